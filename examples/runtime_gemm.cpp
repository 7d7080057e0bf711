// Example: load a tuning table, run an FP32 GEMM through gemmtune::Runtime on a stream, and
// compare C with the same GEMM run by cuBLAS (a Runtime with tuned kernels switched off).
//
//   runtime_gemm TABLE.json [MxNxK] [NN|NT|TN|TT]
//
// Exit status: 0 when the results agree, 1 when they do not or a call failed, 2 on bad usage.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include <gemmtune/runtime.hpp>

namespace {

bool check(cudaError_t e, char const* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s TABLE.json [MxNxK] [NN|NT|TN|TT]\n", argv[0]);
    return 2;
  }
  long long m = 1000, n = 1000, k = 1000;
  if (argc >= 3 && std::sscanf(argv[2], "%lldx%lldx%lld", &m, &n, &k) != 3) {
    std::fprintf(stderr, "bad shape '%s': expected MxNxK, e.g. 1024x1024x512\n", argv[2]);
    return 2;
  }
  gemmtune::Layout layout = gemmtune::Layout::kNN;
  try {
    if (argc == 4) layout = gemmtune::parse_layout(argv[3]);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }

  // 1. Load the table (throws with the file and JSON path when it is not a valid table).
  std::unique_ptr<gemmtune::Runtime> tuned;
  try {
    tuned = std::make_unique<gemmtune::Runtime>(argv[1]);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::printf("%s\n", tuned->describe().c_str());
  gemmtune::RuntimeOptions cublas_only;
  cublas_only.use_tuned = false;
  gemmtune::Runtime reference(cublas_only);

  // 2. Inputs on the device, packed row-major for the layout.
  bool const ta = layout == gemmtune::Layout::kTN || layout == gemmtune::Layout::kTT;
  bool const tb = layout == gemmtune::Layout::kNT || layout == gemmtune::Layout::kTT;
  long long const lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
  std::vector<float> ha(static_cast<std::size_t>(m * k)), hb(static_cast<std::size_t>(k * n));
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : ha) x = dist(rng);
  for (float& x : hb) x = dist(rng);
  float *a = nullptr, *b = nullptr, *c = nullptr, *c_ref = nullptr;
  std::size_t const c_bytes = static_cast<std::size_t>(m * n) * sizeof(float);
  cudaStream_t stream = nullptr;
  if (!check(cudaStreamCreate(&stream), "cudaStreamCreate") ||
      !check(cudaMalloc(reinterpret_cast<void**>(&a), ha.size() * sizeof(float)), "cudaMalloc A") ||
      !check(cudaMalloc(reinterpret_cast<void**>(&b), hb.size() * sizeof(float)), "cudaMalloc B") ||
      !check(cudaMalloc(reinterpret_cast<void**>(&c), c_bytes), "cudaMalloc C") ||
      !check(cudaMalloc(reinterpret_cast<void**>(&c_ref), c_bytes), "cudaMalloc C reference") ||
      !check(cudaMemcpy(a, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice), "copy A") ||
      !check(cudaMemcpy(b, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice), "copy B")) {
    return 1;
  }

  // 3. The GEMM through the table, and through cuBLAS, on the caller's stream.
  gemmtune::GemmInfo info, ref_info;
  gemmtune::GemmStatus const s = tuned->gemm(gemmtune::Precision::kFP32, layout, m, n, k, 1.0f, a,
                                             lda, b, ldb, 0.0f, c, ldc, stream, &info);
  gemmtune::GemmStatus const r = reference.gemm(gemmtune::Precision::kFP32, layout, m, n, k, 1.0f,
                                                a, lda, b, ldb, 0.0f, c_ref, ldc, stream, &ref_info);
  std::printf("table:  %s via %s (rule %s, kernel %s, align %d): %s\n",
              std::string(gemmtune::to_string(s)).c_str(),
              std::string(gemmtune::to_string(info.path)).c_str(),
              info.rule.empty() ? "-" : info.rule.c_str(),
              info.kernel.empty() ? "-" : info.kernel.c_str(), info.align, info.detail.c_str());
  std::printf("cuBLAS: %s: %s\n", std::string(gemmtune::to_string(r)).c_str(), ref_info.detail.c_str());
  if (s != gemmtune::GemmStatus::kOk || r != gemmtune::GemmStatus::kOk) return 1;
  if (!check(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) return 1;

  // 4. Compare, relative to the largest reference value.
  std::vector<float> hc(static_cast<std::size_t>(m * n)), hr(hc.size());
  if (!check(cudaMemcpy(hc.data(), c, c_bytes, cudaMemcpyDeviceToHost), "copy C") ||
      !check(cudaMemcpy(hr.data(), c_ref, c_bytes, cudaMemcpyDeviceToHost), "copy C reference")) {
    return 1;
  }
  double max_diff = 0.0, max_ref = 0.0;
  for (std::size_t i = 0; i < hc.size(); ++i) {
    double const d = std::abs(static_cast<double>(hc[i]) - hr[i]);
    if (!(d <= max_diff)) max_diff = d;  // a NaN sticks
    max_ref = std::max(max_ref, std::abs(static_cast<double>(hr[i])));
  }
  // FP32 with K-long sums: a few ulps times sqrt(K) of the largest value is ample.
  double const tolerance = 1e-6 * std::sqrt(static_cast<double>(k)) * 8.0 * std::max(1.0, max_ref);
  bool const agree = max_diff <= tolerance;
  std::printf("%lldx%lldx%lld %s: max |C - C_cublas| = %.3g (tolerance %.3g): %s\n", m, n, k,
              argc == 4 ? argv[3] : "NN", max_diff, tolerance, agree ? "agree" : "DIFFER");
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(c_ref);
  cudaStreamDestroy(stream);
  return agree ? 0 : 1;
}
