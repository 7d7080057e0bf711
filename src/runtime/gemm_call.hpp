// One GEMM call as the runtime receives it: argument checks (sizes, leading dimensions,
// pointers) and the alignment class of the actual data, which decides which configs may run.
#pragma once

#include <cstdint>
#include <string>

#include "src/core/problem.hpp"

namespace gemmtune {

/// The arguments of Runtime::gemm.
struct GemmCall {
  Precision precision = Precision::kFP32;
  Layout layout = Layout::kNN;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  void const* a = nullptr;
  std::int64_t lda = 0;
  void const* b = nullptr;
  std::int64_t ldb = 0;
  void* c = nullptr;
  std::int64_t ldc = 0;
  /// FP8 only: the scales of A and B in device memory, laid out as src/core/precision.hpp says
  /// for the precision (scale_a_count / scale_b_count floats: one each per tensor, M and N
  /// row-wise, block scales for e4m3-blk).
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
};

/// Why the call cannot run (one line naming the bad value and what was expected), or "".
/// Sizes must be ≥ 0 and, like leading dimensions, fit cuBLAS's int; leading dimensions must
/// cover a row of the stored matrix; pointers must be non-null where data is read or written
/// and aligned to the element size. FP8 calls take the problems their precision can
/// (Problem::unsupported_reason), 16-byte aligned operands and leading dimensions, and two
/// non-null scale pointers, each 16-byte aligned (cuBLASLt's FP8 matmul refuses others); other
/// precisions take no scales.
std::string invalid_reason(GemmCall const& call);

/// Largest power of two (≤ 16 bytes) dividing the three addresses and the three leading
/// dimensions in bytes: the alignment class of DESIGN.md §3 for this call's data.
int call_alignment(GemmCall const& call);

/// The call as a table key: M, N, K, precision, layout and call_alignment().
Problem call_problem(GemmCall const& call);

}  // namespace gemmtune
