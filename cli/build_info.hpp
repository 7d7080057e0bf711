// What `gemmtune --version` says: the release, the revision and build type it was built from,
// the CUDA toolkit it was built against, the NVRTC and cuBLAS it runs with, and the archs its
// kernels target — what a bug report needs.
#pragma once

#include <string>

namespace gemmtune {

/// Several lines, the first "gemmtune <version> (<git revision>, <build type>)".
std::string version_text();

}  // namespace gemmtune
