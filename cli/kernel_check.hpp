// The kernel check of `import` and `check`: a kernel this build cannot compile, or one stored
// under a precision its family has no kernel for, is refused from a file, not found at run time.
#pragma once

#include <string>

#include "src/core/kernel_config.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {

/// "" when this build can run `cfg` for `precision` (a known family that supports it, values in
/// its space, or a valid vendor id), else why not.
std::string check_kernel(KernelConfig const& cfg, Precision precision);

}  // namespace gemmtune
