// Problem: the key a tuning result belongs to (M, N, K, precision, layout, alignment class).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/core/precision.hpp"

namespace gemmtune {

/// Largest M, N or K accepted; keeps every element index and byte count inside int64 and
/// every grid dimension inside CUDA's limits.
inline constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;

/// One GEMM to tune. alpha and beta are launch arguments, not part of the key.
struct Problem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Precision precision = Precision::kFP32;
  Layout layout = Layout::kNN;
  /// Largest power-of-two byte alignment (≤ 16) shared by the three pointers and the three
  /// leading dimensions in bytes. 0 means "derive from packed storage" (see resolved()).
  int align = 0;

  /// Leading dimensions of packed row-major storage for this layout.
  std::int64_t lda() const;
  std::int64_t ldb() const;
  std::int64_t ldc() const { return n; }

  /// Alignment class of packed storage with 256-byte aligned base pointers.
  int packed_alignment() const;
  /// A copy with `align` filled in from packed storage when it is 0.
  Problem resolved() const;

  /// The problem Cᵀ = op(B)ᵀ·op(A)ᵀ over the same storage: M and N trade places, B's storage is
  /// read as the new A and A's as the new B (NN ↔ TT; NT and TN stay), so its lda() and ldb()
  /// are this problem's ldb() and lda(); C is stored transposed (the caller's ldc).
  Problem transposed() const;
  /// Why this precision cannot take this problem at all ("" when it can): FP8 is K-major only
  /// (layout NT, A stored M×K and B stored N×K) with 16-byte row strides for A, B and C, which
  /// both its wgmma kernels and cuBLASLt's FP8 matmuls need.
  std::string unsupported_reason() const;

  /// 2·M·N·K.
  double flops() const;
  /// Bytes read and written once: A, B and C (C written once, read only when beta ≠ 0).
  double min_bytes() const;

  /// "4096x4096x4096".
  std::string shape() const;
  /// "4096x4096x4096 fp32 NN a16": shape, precision, layout and alignment, for logs.
  std::string describe() const;

  bool operator==(Problem const&) const = default;
};

/// Parses "MxNxK" (also "M,N,K" or "M N K"); each a positive integer ≤ kMaxDim.
/// Throws UsageError naming the bad text and the expected form.
Problem parse_shape(std::string_view text, Precision precision = Precision::kFP32,
                    Layout layout = Layout::kNN);

/// The alignment class of a byte offset or address: its largest power of two, capped at 16.
int alignment_class(std::uint64_t bytes);

}  // namespace gemmtune
