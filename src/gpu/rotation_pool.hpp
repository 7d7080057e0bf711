// RotationPool: replicas of one problem's (A, B, C) laid out back to back in one allocation,
// enough of them to exceed a byte budget (2× L2 by default), so timed launches do not find
// their operands already in L2.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "src/core/problem.hpp"
#include "src/gpu/device_buffer.hpp"

namespace gemmtune {

/// Device pointers of one GEMM's operands.
struct GemmPointers {
  void const* a = nullptr;
  void const* b = nullptr;
  void* c = nullptr;
};

class RotationPool {
 public:
  /// Builds ⌈rotate_bytes / set size⌉ sets (at least one) of `p`'s packed operands, A and B
  /// copied from `a_src` / `b_src`, C zeroed. Throws CudaFailure when allocation fails.
  RotationPool(Problem const& p, std::int64_t rotate_bytes, void const* a_src,
               void const* b_src, cudaStream_t stream);

  int set_count() const { return count_; }
  /// Operands of set `i` (0 … set_count−1); each starts 256-byte aligned.
  GemmPointers set(int i) const;
  /// The byte budget the pool was built for.
  std::int64_t rotate_bytes() const { return rotate_bytes_; }

 private:
  DeviceBuffer storage_;
  std::size_t a_offset_ = 0, b_offset_ = 0, c_offset_ = 0, stride_ = 0;
  int count_ = 1;
  std::int64_t rotate_bytes_ = 0;
};

}  // namespace gemmtune
