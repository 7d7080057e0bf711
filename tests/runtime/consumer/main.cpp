// Links gemmtune::runtime from an installed package and makes one call. Without a GPU the call
// must come back as no_device; with one, A, B and C are device buffers and the call must be ok.
#include <cstdio>
#include <string>

#include <cuda_runtime_api.h>

#include <gemmtune/runtime.hpp>

int main() {
  gemmtune::Runtime rt;
  void* buffer = nullptr;
  bool const device = cudaMalloc(&buffer, 3 * 16 * 16 * sizeof(float)) == cudaSuccess;
  float* a = static_cast<float*>(buffer);
  float host[3 * 16 * 16] = {};
  if (!device) a = host;  // never dereferenced: the runtime stops at the missing device
  gemmtune::GemmInfo info;
  gemmtune::GemmStatus const s =
      rt.gemm(gemmtune::Precision::kFP32, gemmtune::Layout::kNN, 16, 16, 16, 1.0f, a, 16,
              a + 256, 16, 0.0f, a + 512, 16, nullptr, &info);
  std::printf("%s: %s via %s: %s\n", rt.describe().c_str(), std::string(gemmtune::to_string(s)).c_str(),
              std::string(gemmtune::to_string(info.path)).c_str(), info.detail.c_str());
  if (device) cudaFree(buffer);
  bool const expected = device ? s == gemmtune::GemmStatus::kOk : s == gemmtune::GemmStatus::kNoDevice;
  return expected ? 0 : 1;
}
