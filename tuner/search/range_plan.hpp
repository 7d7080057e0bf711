// Where a range search over M measures (issue "Tune a model"; the range syntax is
// tuner/shapes/shape_sweep.hpp's): the first points of a range [A, B] (A, the powers of two
// between, B), then, after each pass, the geometric midpoints of
// neighbours whose picks disagree beyond the noise band, until they agree or are close.
// Plain logic on measured figures; the search itself is SearchSession's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/core/trial.hpp"
#include "tuner/search/search_session.hpp"

namespace gemmtune {

/// The first points of [lo, hi]: lo, every power of two strictly between, hi.
std::vector<std::int64_t> initial_range_points(std::int64_t lo, std::int64_t hi);

/// One measured point of a range: its pick, and every verified kernel's time there.
struct RangePoint {
  std::int64_t m = 0;
  std::string pick;                      ///< the pick's kernel id ("" when nothing verified)
  std::map<std::string, double> times;   ///< kernel id → time at this M (ms)
};

/// The RangePoint of one problem from its trials (newest first, as a store returns them): the
/// newest trial of each config, the verified ones' times, and the tie rule's pick among them.
RangePoint range_point(std::int64_t m, std::vector<Trial> const& trials);

/// Passes of refinement after the first points, and points a range search measures at most.
inline constexpr int kRangePasses = 4;
inline constexpr std::size_t kMaxRangePoints = 48;
/// Neighbours closer than this ratio in M get no point between them.
inline constexpr double kRangeMinRatio = 1.25;

/// Re-time rounds of a range's points (a single point's search takes SearchOptions' 6): a
/// range measures dozens of points, and a bucket's boundary is set by neighbouring points
/// agreeing within the tie band, so each point's pick needs the rounds less than a lone
/// problem does, and the rounds were most of a range's time (180 of 270 s, 212 of 329 s).
inline constexpr int kRangeRetimeRounds = 3;

/// The options a range's first points are searched with: the search's own with
/// kRangeRetimeRounds rounds of re-time (fewer when fewer were asked for).
SearchOptions range_point_options(SearchOptions options);
/// The options of the points refinement adds: range_point_options with half the time budget
/// (at least a second), as each starts warm from the picks of the points around it.
SearchOptions refined_point_options(SearchOptions options);

/// Neighbours agree when they pick the same kernel, or when each one's pick, measured at the
/// other's M, is within `noise` of the other's pick there (either may then serve both).
bool neighbours_agree(RangePoint const& a, RangePoint const& b, double noise);

/// New points for the next pass: the geometric midpoint of each pair of neighbours (sorted by
/// M) that disagree and are more than `min_ratio` apart in M (and hold an integer between
/// them); at most `limit`, widest gaps first, ascending.
std::vector<std::int64_t> refine_range_points(std::vector<RangePoint> const& points, double noise,
                                              double min_ratio, std::size_t limit);

/// An M between two measured points where the map runs a vendor call: the gap's geometric
/// midpoint, where the bucket of one neighbour ends and the other's begins, with the vendor
/// picks of the two (one or two ids) to time there against the vendor's best.
struct VendorProbe {
  std::int64_t m = 0;
  std::vector<std::string> picks;
};

/// Probes for the gaps whose neighbours' picks include a vendor call: more than `min_ratio`
/// apart, at most `limit`, widest first, ascending. A vendor library's best algorithm changes
/// with M in ways its neighbours cannot show: in the regret run of 2026-12-04 (bf16, 4096×4096,
/// NT) at every M below 0.99× the vendor (6 of 28, 0.923–0.988) the map ran a neighbouring
/// point's cuBLASLt algorithm or cublas:default while another cuBLASLt algorithm was faster
/// there, though the neighbours agreed. A probe costs a baseline timing or two, not a search.
std::vector<VendorProbe> vendor_probe_points(std::vector<RangePoint> const& points,
                                             double min_ratio, std::size_t limit);

/// Whether a probe's M needs a point of its own: the vendor pick the map runs there is slower
/// than the vendor's best at that M beyond `noise`.
bool probe_needs_point(double pick_ms, double best_vendor_ms, double noise);

/// A stretch of M that one pick serves, as a range search's measured points share it out.
struct RangeSpan {
  std::int64_t m_lo = 0, m_hi = 0;
  std::string pick;  ///< "" where the point had nothing verified
  bool operator==(RangeSpan const&) const = default;
};

/// The bucket map the measured points give (any order; one per M): each M from the lowest to
/// the highest point goes to the point nearest in log space (range_buckets, as export draws
/// them), and neighbouring buckets with the same pick are one span.
std::vector<RangeSpan> range_map(std::vector<RangePoint> points);

/// The map as one line: "1-45 cublas:default | 46-16384 wgmma:BM=128,…", each pick cut to
/// `max_pick` characters ("-" where nothing was verified).
std::string range_map_text(std::vector<RangeSpan> const& map, std::size_t max_pick = 48);

}  // namespace gemmtune
