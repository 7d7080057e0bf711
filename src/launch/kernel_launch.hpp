// Queuing one kernel of a launch plan, shared by the tuner's runner and the runtime library:
// a plain launch, or one with programmatic stream serialization where the plan says the kernel
// waits for prior grids itself (common/grid_dependency.cuh) and the device has it (sm_90+).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gemmtune {

/// Whether `device` runs programmatically serialized launches (compute capability 9.0 or
/// later); false when the query fails. The runner asks it when it prepares a candidate, not
/// per launch.
bool device_overlaps_launches(int device);

/// Queues `kernel` on `stream`. With `programmatic`, the launch may start while the previous
/// kernel in the stream is still running; pass it only for kernels that execute
/// griddepcontrol.wait before their first global memory access.
cudaError_t launch_kernel(cudaKernel_t kernel, dim3 grid, dim3 block, std::size_t dynamic_smem,
                          cudaStream_t stream, void** params, bool programmatic);

}  // namespace gemmtune
