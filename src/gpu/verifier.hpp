// Checking a candidate's output against the cuBLAS reference on the host: the tolerance model
// of research/reliability_ecosystem.md §2.3 and the bit-exact small-integer pass.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "src/core/precision.hpp"

namespace gemmtune {

/// c in γ(K) = c·√K·2⁻²⁴: a probabilistic accumulation bound for FP32 accumulation.
inline constexpr double kGammaC = 8.0;
/// Bits the tensor cores keep of an FP8 chain's running sum (about 14 on Hopper, as published
/// for the H800), which sets the accumulation term of the FP8 precisions.
inline constexpr int kFp8AccumBits = 14;
/// floor = kFloorRelative · max S, so elements whose exact value is ~0 are not judged on noise.
inline constexpr double kFloorRelative = 1e-6;

/// Elementwise acceptance |C − R| ≤ τ_in·S + γ(K)·S + u_out·|R| + floor, with S = |α|·|A|·|B|
/// (+ |β|·|C₀|) and R a float-output reference (so the candidate's own output rounding is u_out).
struct ToleranceModel {
  double tau_in = 0.0;  ///< input rounding the reference does not do (tf32: 2·2⁻¹⁰)
  double gamma = 0.0;   ///< accumulation: c·√K·2⁻²⁴ (FP8: c·√(K/32)·2⁻¹⁴)
  double u_out = 0.0;   ///< output rounding: 2⁻²⁴ fp32/tf32, 2⁻¹¹ fp16, 2⁻⁸ bf16
  double floor = 0.0;   ///< absolute slack
  /// The largest |C − R| accepted for an element with S = `s` and reference value `r`.
  double bound(double s, double r) const;
};

/// The model for a precision and reduction length; `max_s` is the largest element of S.
ToleranceModel tolerance_model(Precision p, std::int64_t k, double max_s);

/// Figures of the tolerance pass; `pass` is false on any element over its bound or non-finite.
struct ToleranceReport {
  bool pass = true;
  double max_abs_err = 0.0;    ///< over finite elements
  double max_err_ratio = 0.0;  ///< max |C − R| / bound, over finite elements
  double rel_fro_err = 0.0;    ///< ‖C − R‖_F / ‖R‖_F over finite elements
  std::int64_t bad_elements = 0;  ///< over the bound, plus non-finite
  std::string reason;          ///< empty when pass
};

/// Compares row-major `c` against `r` (both `cols` wide) with bounds from `s` and `model`, on
/// host_threads() threads.
ToleranceReport compare_with_tolerance(std::span<float const> c, std::span<float const> r,
                                       std::span<float const> s, std::int64_t cols,
                                       ToleranceModel const& model);
/// The same on up to `threads` threads; every figure and the reason are identical for any
/// thread count (the sums are taken in fixed blocks, merged in index order).
ToleranceReport compare_with_tolerance(std::span<float const> c, std::span<float const> r,
                                       std::span<float const> s, std::int64_t cols,
                                       ToleranceModel const& model, int threads);

/// Figures of the exact pass: every element must equal the reference (±0 count as equal).
struct ExactReport {
  std::int64_t mismatches = 0;
  std::string reason;  ///< empty when no mismatch
};

/// Compares row-major `c` against `r` (both `cols` wide) for equality, on host_threads() threads.
ExactReport compare_exact(std::span<float const> c, std::span<float const> r, std::int64_t cols);
/// The same on up to `threads` threads; the result is identical for any thread count.
ExactReport compare_exact(std::span<float const> c, std::span<float const> r, std::int64_t cols,
                          int threads);

}  // namespace gemmtune
