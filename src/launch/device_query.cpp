// query_device(): cudaGetDeviceProperties and the opt-in shared-memory attribute, mapped onto
// GpuIdentity and DeviceLimits.
#include "src/launch/device_query.hpp"

namespace gemmtune {

std::string query_device(int device, GpuIdentity& gpu, DeviceLimits& limits,
                         cudaDeviceProp* properties) {
  cudaDeviceProp prop{};
  if (cudaError_t const e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e);
  }
  gpu.name = prop.name;
  gpu.cc_major = prop.major;
  gpu.cc_minor = prop.minor;
  gpu.sm_count = prop.multiProcessorCount;
  limits.arch = gpu.arch();
  limits.max_threads_per_block = prop.maxThreadsPerBlock;
  limits.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    optin = static_cast<int>(prop.sharedMemPerBlock);
  }
  limits.max_smem_per_block_optin = optin;
  limits.max_smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  limits.regs_per_sm = prop.regsPerMultiprocessor;
  limits.sm_count = prop.multiProcessorCount;
  limits.l2_bytes = prop.l2CacheSize;
  if (properties != nullptr) *properties = prop;
  return {};
}

}  // namespace gemmtune
