// The build's identity, from definitions CMake sets (cli/CMakeLists.txt) and the revision it
// writes at every build (git_revision(), cli/git_revision.cmake), and the libraries' versions
// asked at run time.
#include "cli/build_info.hpp"

#include "src/core/gpu_identity.hpp"
#include "src/launch/cublas_contract.hpp"
#include "src/nvrtc/compiler.hpp"

#ifndef GEMMTUNE_BUILD_TYPE
#define GEMMTUNE_BUILD_TYPE "unknown"
#endif
#ifndef GEMMTUNE_CUDA_VERSION
#define GEMMTUNE_CUDA_VERSION "unknown"
#endif

namespace gemmtune {

std::string version_text() {
  std::string const build_type = GEMMTUNE_BUILD_TYPE;
  return "gemmtune " + std::string(gemmtune_version()) + " (git " + git_revision() + ", " +
         (build_type.empty() ? std::string("no build type") : build_type) + " build)\n" +
         "built against the CUDA " GEMMTUNE_CUDA_VERSION " toolkit; running NVRTC " +
         nvrtc_version() + " and cuBLAS " + cublas_version() + "\n" +
         "kernel archs: " + std::string(supported_archs());
}

}  // namespace gemmtune
