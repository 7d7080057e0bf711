// Preparing and queuing the kernels of a launch plan, shared by the worker's candidate runner
// and the runtime library: both check a launch's geometry, opt in to more shared memory and
// queue kernels (programmatically serialized where the plan and the device allow) the same way,
// so what was verified and timed is what an application runs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "src/core/kernel_abi.hpp"
#include "src/launch/launch_status.hpp"

namespace gemmtune {

/// One kernel of a plan, ready to queue.
struct PreparedLaunch {
  std::string name;  ///< for messages: the lowered name or the name expression
  cudaKernel_t kernel = nullptr;
  dim3 grid;
  dim3 block;
  std::size_t dynamic_smem = 0;
  bool takes_tensor_maps = false;
  bool programmatic = false;  ///< waits for prior grids and the device overlaps launches
};

/// Makes launch `index` of `plan` ready with `kernel` (resolved by the caller from its module):
/// dynamic shared memory must not be negative, every grid and block extent must be 1 … 2^32−1,
/// a launch that takes tensor maps needs a plan that describes them, and dynamic shared memory
/// above kSmemWithoutOptIn is opted in with cudaFuncSetAttribute (for the current device: the
/// attribute of a context-independent kernel applies to the current context). `overlaps`: the
/// device runs programmatically serialized launches (device_overlaps_launches()).
LaunchStatus prepare_launch(LaunchPlan const& plan, std::size_t index, cudaKernel_t kernel,
                            std::string name, bool overlaps, PreparedLaunch& out);

/// How queue_launches() judges a launch.
enum class LaunchCheck {
  kReturnCode,  ///< the launch call's return code only (an application's earlier,
                ///< unrelated error in the last-error slot must not count against us)
  kLastError,   ///< also cudaGetLastError() after each launch (the worker: nothing else runs)
};

/// Queues `launches` in order on `stream`, each with `args` and `maps` (a kernel without tensor
/// maps reads only the first parameter); does not wait. On failure the status names the launch,
/// its geometry and the CUDA error, and `queued` counts the launches queued before it (after
/// more than none, C may be partly written).
LaunchStatus queue_launches(std::vector<PreparedLaunch> const& launches, GemmArgs const& args,
                            TensorMaps const& maps, cudaStream_t stream, LaunchCheck check,
                            std::size_t& queued);

}  // namespace gemmtune
