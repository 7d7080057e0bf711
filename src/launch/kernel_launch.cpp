// Kernel launches with or without programmatic stream serialization (see kernel_launch.hpp).
#include "src/launch/kernel_launch.hpp"

namespace gemmtune {

bool device_overlaps_launches(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return major >= 9;
}

cudaError_t launch_kernel(cudaKernel_t kernel, dim3 grid, dim3 block, std::size_t dynamic_smem,
                          cudaStream_t stream, void** params, bool programmatic) {
  auto const* const fn = reinterpret_cast<void const*>(kernel);
  if (!programmatic) return cudaLaunchKernel(fn, grid, block, params, dynamic_smem, stream);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelExC(&config, fn, params);
}

}  // namespace gemmtune
