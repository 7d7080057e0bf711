// Where a test finds the gemmtune binary, helper programs of the build and files of the
// checkout: relative to the test executable itself, by paths fixed when the build was
// configured. A build folder inside its checkout can therefore be copied to another machine
// (the GPU host) and its tests still find everything; no absolute path of the configuring
// machine is compiled in. GEMMTUNE_BINARY, GEMMTUNE_BUILD_DIR and GEMMTUNE_SOURCE_DIR in the
// environment override.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#ifndef GEMMTUNE_TEST_BUILD_REL
#error "tests/CMakeLists.txt defines GEMMTUNE_TEST_BUILD_REL for every test target"
#endif

namespace gemmtune::test {

/// The folder holding the running test executable.
inline std::filesystem::path executable_dir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

inline std::filesystem::path from_env_or(char const* name, std::filesystem::path fallback) {
  char const* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::filesystem::path(v) : fallback.lexically_normal();
}

/// The top of the build folder.
inline std::filesystem::path build_dir() {
  return from_env_or("GEMMTUNE_BUILD_DIR", executable_dir() / GEMMTUNE_TEST_BUILD_REL);
}

/// The top of the checkout.
inline std::filesystem::path source_dir() {
  return from_env_or("GEMMTUNE_SOURCE_DIR", executable_dir() / GEMMTUNE_TEST_SOURCE_REL);
}

/// A file of the checkout, by its path from the repository root ("tests/data/replay").
inline std::filesystem::path source_path(std::string_view repo_relative) {
  return source_dir() / repo_relative;
}

/// A file of the build, by its path from the build folder ("cli/gemmtune").
inline std::filesystem::path build_path(std::string_view build_relative) {
  return build_dir() / build_relative;
}

/// The gemmtune executable the tests run.
inline std::string gemmtune_binary() {
  return from_env_or("GEMMTUNE_BINARY", build_path(GEMMTUNE_TEST_BINARY_REL)).string();
}

}  // namespace gemmtune::test
