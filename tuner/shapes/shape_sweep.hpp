// Size sweeps: "A:B:pow2" and "A:B:STEP" lists of sizes, for token counts and for the dimensions
// of a --shape (CUTLASS profiler style: 1:8192:pow2x4096x4096); and M ranges ("1-16384x4096x4096")
// that a range search tunes as buckets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

/// Most problems one --shape sweep may stand for.
inline constexpr std::size_t kMaxSweepShapes = 4096;

/// Sizes from a comma list of integers and sweeps, "A:B:pow2" (A, 2A, 4A, … up to B) or "A:B:S"
/// (A, A+S, … up to B); each from 1 to 16777216; sorted, duplicates dropped. `what` names an
/// item in errors ("token count", "size"). Throws UsageError naming the bad item.
std::vector<std::int64_t> parse_sizes(std::string_view text, std::string_view what);

/// A shape whose dimensions may be sweeps ("1:8192:pow2x4096x4096", "64x1024:4096:1024x4096"),
/// as "MxNxK" texts, M slowest; a shape without ':' comes back unchanged. Throws UsageError for
/// a sweep without three dimensions or one standing for more than kMaxSweepShapes problems.
std::vector<std::string> expand_shape_sweep(std::string_view text);

/// A shape's M given as a range "A-B" (1 ≤ A < B ≤ 2²⁴), N and K fixed.
struct RangeShape {
  std::int64_t m_lo = 0, m_hi = 0, n = 0, k = 0;
};

/// Reads "A-BxNxK" into `out`; false (and `out` untouched) when `text` has no range. Throws
/// UsageError for a malformed or inverted range, or a range in N or K (buckets are over M).
bool parse_range_shape(std::string_view text, RangeShape& out);

}  // namespace gemmtune
