// What a device is and what one block may use on it, read from the CUDA runtime. The worker's
// probe and the runtime library both decide what may run from these limits, so they are read
// in one place.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "src/core/gpu_identity.hpp"

namespace gemmtune {

/// Fills `gpu` and `limits` for `device` (the opt-in shared memory per block falls back to the
/// default per-block size when the attribute cannot be read). Returns "" on success, else the
/// failing call and its error ("cudaGetDeviceProperties: invalid device ordinal"); the CUDA
/// last-error slot is cleared either way. `properties`, when given, receives what the runtime
/// reported, for callers that want more of it.
std::string query_device(int device, GpuIdentity& gpu, DeviceLimits& limits,
                         cudaDeviceProp* properties = nullptr);

}  // namespace gemmtune
