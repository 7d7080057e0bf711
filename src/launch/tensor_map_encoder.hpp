// TensorMapEncoder: turns a launch plan's TMA descriptor specs into encoded descriptors over a
// call's pointers. The driver's encoder is found at run time through the CUDA runtime, so no
// binary links libcuda. Shared by the worker's candidate runner and the runtime library.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/core/kernel_abi.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// Encodes and remembers descriptors per argument set (timing rotates over up to a hundred buffer
/// sets, and a deployed GEMM is called with the same buffers again and again, so re-encoding per
/// launch would only add host time to every call).
class TensorMapEncoder {
 public:
  /// Fills `out` with the descriptors of `specs` for `problem` over `args` (slots no spec names
  /// are zero). Returns "" or why a descriptor cannot be encoded (geometry, a pointer not
  /// 16-byte aligned, the driver's refusal or no driver entry point). Thread-safe.
  std::string encode(std::vector<TensorMapSpec> const& specs, Problem const& problem,
                     GemmArgs const& args, TensorMaps& out) const;

 private:
  struct Key {
    std::array<std::int64_t, 6> dims{};      // M, N, K, lda, ldb, ldc
    std::array<void const*, 4> pointers{};  // A, B, C, workspace
    bool operator==(Key const&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(Key const& k) const noexcept;
  };
  struct Entry {
    std::vector<TensorMapSpec> specs;
    Problem problem;
    TensorMaps maps{};
  };
  /// Argument sets remembered; past this the memory is cleared and refilled (an application
  /// that cycles through more buffers than this pays one encode per call, as without a cache).
  static constexpr std::size_t kRemembered = 1024;
  mutable std::mutex mutex_;
  mutable std::unordered_map<Key, Entry, KeyHash> remembered_;
};

}  // namespace gemmtune
