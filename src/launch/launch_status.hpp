// LaunchStatus: how a CUDA step of running a plan ended, as a value, so the worker can tell a
// launch-time resource error (the worker lives on) from a sticky one and the runtime can fall
// back to cuBLAS with the reason.
#pragma once

#include <string>

namespace gemmtune {

/// Outcome of queuing work or a CUDA call that prepares it.
struct LaunchStatus {
  int cuda_error = 0;  ///< 0 unless the CUDA runtime reported the failure
  std::string error;   ///< empty on success, else what failed
  bool ok() const { return error.empty(); }
};

}  // namespace gemmtune
