// probe_device(): what the worker's GPU is, and the versions that go into provenance. Never
// throws, so `gemmtune devices` and the worker hello work on a machine without a driver.
#include "src/gpu/device_probe.hpp"

#include <cstdlib>
#include <exception>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "src/launch/cublas_contract.hpp"
#include "src/launch/cuda_errors.hpp"
#include "src/launch/device_query.hpp"

namespace gemmtune {
namespace {

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}

void probe_into(DeviceReport& r) {
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  r.driver = driver == 0 ? "none" : std::to_string(driver);
  r.cuda_runtime = std::to_string(runtime);
  r.cublas = cublas_version();

  int count = 0;
  cudaError_t const e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    r.reason = std::string(driver == 0 ? "no CUDA driver found" : "no usable CUDA device") +
               " (cudaGetDeviceCount: " + cudaGetErrorString(e) + ")";
    return;
  }
  if (count == 0) {
    char const* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    r.reason = std::string("no CUDA device visible") +
               (visible ? " (CUDA_VISIBLE_DEVICES='" + std::string(visible) + "')" : "");
    return;
  }
  cudaDeviceProp prop{};
  if (std::string const why = query_device(0, r.gpu, r.limits, &prop); !why.empty()) {
    r.reason = "cannot query device 0 (" + why + ")";
    return;
  }
  r.clock_mhz = attribute(cudaDevAttrClockRate, 0) / 1000;          // kHz → MHz
  r.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, 0) / 1000;
  r.memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  r.present = true;
}

}  // namespace

DeviceReport probe_device() {
  DeviceReport r;
  try {
    probe_into(r);
  } catch (std::exception const& ex) {
    r = DeviceReport{};
    r.reason = std::string("device probe failed: ") + ex.what();
  }
  return r;
}

}  // namespace gemmtune
