// probe_device(): what the worker's GPU is, and the versions that go into provenance. Never
// throws, so `gemmtune devices` and the worker hello work on a machine without a driver.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <exception>

#include "gpu/cuda_errors.hpp"
#include "gpu/gpu_session.hpp"

namespace gemmtune {
namespace {

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return "unknown";
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

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
  if (cudaError_t const pe = cudaGetDeviceProperties(&prop, 0); pe != cudaSuccess) {
    (void)cudaGetLastError();
    r.reason = std::string("cannot query device 0 (cudaGetDeviceProperties: ") +
               cudaGetErrorString(pe) + ")";
    return;
  }
  r.gpu.name = prop.name;
  r.gpu.cc_major = prop.major;
  r.gpu.cc_minor = prop.minor;
  r.gpu.sm_count = prop.multiProcessorCount;
  r.limits.arch = r.gpu.arch();
  r.limits.max_threads_per_block = prop.maxThreadsPerBlock;
  r.limits.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  r.limits.max_smem_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  r.limits.max_smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  r.limits.regs_per_sm = prop.regsPerMultiprocessor;
  r.limits.sm_count = prop.multiProcessorCount;
  r.limits.l2_bytes = prop.l2CacheSize;
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

void to_json(nlohmann::json& j, DeviceReport const& v) {
  j = nlohmann::json{
      {"present", v.present},
      {"reason", v.reason},
      {"gpu",
       {{"name", v.gpu.name},
        {"cc_major", v.gpu.cc_major},
        {"cc_minor", v.gpu.cc_minor},
        {"sm_count", v.gpu.sm_count}}},
      {"limits",
       {{"arch", v.limits.arch},
        {"max_threads_per_block", v.limits.max_threads_per_block},
        {"max_smem_per_block_optin", v.limits.max_smem_per_block_optin},
        {"max_smem_per_sm", v.limits.max_smem_per_sm},
        {"regs_per_sm", v.limits.regs_per_sm},
        {"max_regs_per_thread", v.limits.max_regs_per_thread},
        {"sm_count", v.limits.sm_count},
        {"l2_bytes", v.limits.l2_bytes}}},
      {"driver", v.driver},
      {"cuda_runtime", v.cuda_runtime},
      {"cublas", v.cublas},
      {"clock_mhz", v.clock_mhz},
      {"memory_clock_mhz", v.memory_clock_mhz},
      {"memory_bytes", v.memory_bytes}};
}

void from_json(nlohmann::json const& j, DeviceReport& v) {
  j.at("present").get_to(v.present);
  j.at("reason").get_to(v.reason);
  auto const& g = j.at("gpu");
  g.at("name").get_to(v.gpu.name);
  g.at("cc_major").get_to(v.gpu.cc_major);
  g.at("cc_minor").get_to(v.gpu.cc_minor);
  g.at("sm_count").get_to(v.gpu.sm_count);
  auto const& l = j.at("limits");
  l.at("arch").get_to(v.limits.arch);
  l.at("max_threads_per_block").get_to(v.limits.max_threads_per_block);
  l.at("max_smem_per_block_optin").get_to(v.limits.max_smem_per_block_optin);
  l.at("max_smem_per_sm").get_to(v.limits.max_smem_per_sm);
  l.at("regs_per_sm").get_to(v.limits.regs_per_sm);
  l.at("max_regs_per_thread").get_to(v.limits.max_regs_per_thread);
  l.at("sm_count").get_to(v.limits.sm_count);
  l.at("l2_bytes").get_to(v.limits.l2_bytes);
  j.at("driver").get_to(v.driver);
  j.at("cuda_runtime").get_to(v.cuda_runtime);
  j.at("cublas").get_to(v.cublas);
  j.at("clock_mhz").get_to(v.clock_mhz);
  j.at("memory_clock_mhz").get_to(v.memory_clock_mhz);
  j.at("memory_bytes").get_to(v.memory_bytes);
}

}  // namespace gemmtune
