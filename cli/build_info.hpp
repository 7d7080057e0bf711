// What `gemmtune --version` says: the release, the revision and build type it was built from,
// the CUDA toolkit it was built against, the NVRTC and cuBLAS it runs with, and the archs its
// kernels target — what a bug report needs.
#pragma once

#include <string>

namespace gemmtune {

/// Several lines, the first "gemmtune <version> (<git revision>, <build type>)".
std::string version_text();

/// The source revision the binary was built from: git's short id, with "+changes" when the work
/// tree differed from it, or "unknown". Defined in a file the build writes each time it runs
/// (cli/git_revision.cmake), so a build tree configured long ago still names its commit.
char const* git_revision();

}  // namespace gemmtune
