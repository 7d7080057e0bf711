// Size sweeps: "A:B:pow2" and "A:B:STEP" lists of sizes, for token counts and for the dimensions
// of a --shape (CUTLASS profiler style: 1:8192:pow2x4096x4096).
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

}  // namespace gemmtune
