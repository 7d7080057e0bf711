// Range search planning (range_plan.hpp).
#include "tuner/search/range_plan.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/tie_rule.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {

std::vector<std::int64_t> initial_range_points(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> out{lo};
  for (std::int64_t p = 1; p < hi; p *= 2) {
    if (p > lo) out.push_back(p);
  }
  if (hi != lo) out.push_back(hi);
  return out;
}

RangePoint range_point(std::int64_t m, std::vector<Trial> const& trials) {
  RangePoint out;
  out.m = m;
  std::vector<Trial> const verified = newest_verified(trials);
  for (Trial const& t : verified) out.times[t.config.id()] = t.time_ms;
  if (!verified.empty()) out.pick = verified[pick_trial(verified)].config.id();
  return out;
}

SearchOptions range_point_options(SearchOptions options) {
  options.retime_rounds = std::min(options.retime_rounds, kRangeRetimeRounds);
  return options;
}

SearchOptions refined_point_options(SearchOptions options) {
  options = range_point_options(options);
  if (options.budget.seconds > 0.0) {
    options.budget.seconds = std::max(1.0, options.budget.seconds / 2.0);
  }
  return options;
}

bool neighbours_agree(RangePoint const& a, RangePoint const& b, double noise) {
  if (a.pick.empty() || b.pick.empty()) return true;  // nothing to choose between
  if (a.pick == b.pick) return true;
  auto const serves = [noise](RangePoint const& from, RangePoint const& at) {
    auto const mine = at.times.find(from.pick), theirs = at.times.find(at.pick);
    return mine != at.times.end() && theirs != at.times.end() &&
           mine->second <= theirs->second * (1.0 + noise);
  };
  return serves(a, b) && serves(b, a);
}

namespace {

/// One gap between neighbouring points (sorted by M) that `wanted` keeps: its ratio in M, its
/// geometric midpoint (strictly between), and the neighbours.
struct Gap {
  double ratio = 0.0;
  std::int64_t mid = 0;
  RangePoint const* lo = nullptr;
  RangePoint const* hi = nullptr;
};

/// The gaps more than `min_ratio` wide (and holding an integer) that `wanted` keeps: at most
/// `limit`, widest first, then returned in ascending M.
template <class Wanted>
std::vector<Gap> widest_gaps(std::vector<RangePoint> const& points, double min_ratio,
                             std::size_t limit, Wanted wanted) {
  std::vector<RangePoint const*> sorted;
  for (RangePoint const& p : points) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](RangePoint const* a, RangePoint const* b) { return a->m < b->m; });
  std::vector<Gap> gaps;
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
    RangePoint const& a = *sorted[i];
    RangePoint const& b = *sorted[i + 1];
    double const ratio = static_cast<double>(b.m) / static_cast<double>(a.m);
    if (b.m - a.m < 2 || !(ratio > min_ratio) || !wanted(a, b)) continue;
    auto const mid = static_cast<std::int64_t>(
        std::llround(std::sqrt(static_cast<double>(a.m) * static_cast<double>(b.m))));
    gaps.push_back({ratio, std::clamp(mid, a.m + 1, b.m - 1), &a, &b});
  }
  std::stable_sort(gaps.begin(), gaps.end(),
                   [](Gap const& x, Gap const& y) { return x.ratio > y.ratio; });
  if (gaps.size() > limit) gaps.resize(limit);
  std::sort(gaps.begin(), gaps.end(), [](Gap const& x, Gap const& y) { return x.mid < y.mid; });
  return gaps;
}

bool vendor_id(std::string const& id) {
  return id.rfind(std::string(kCublasFamily) + ":", 0) == 0 ||
         id.rfind(std::string(kCublasLtFamily) + ":", 0) == 0;
}

}  // namespace

std::vector<std::int64_t> refine_range_points(std::vector<RangePoint> const& points, double noise,
                                              double min_ratio, std::size_t limit) {
  std::vector<std::int64_t> out;
  for (Gap const& g : widest_gaps(points, min_ratio, limit,
                                  [noise](RangePoint const& a, RangePoint const& b) {
                                    return !neighbours_agree(a, b, noise);
                                  })) {
    out.push_back(g.mid);
  }
  return out;
}

std::vector<VendorProbe> vendor_probe_points(std::vector<RangePoint> const& points,
                                             double min_ratio, std::size_t limit) {
  std::vector<VendorProbe> out;
  for (Gap const& g : widest_gaps(points, min_ratio, limit,
                                  [](RangePoint const& a, RangePoint const& b) {
                                    return vendor_id(a.pick) || vendor_id(b.pick);
                                  })) {
    VendorProbe p;
    p.m = g.mid;
    for (RangePoint const* side : {g.lo, g.hi}) {
      if (vendor_id(side->pick) &&
          std::find(p.picks.begin(), p.picks.end(), side->pick) == p.picks.end()) {
        p.picks.push_back(side->pick);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

bool probe_needs_point(double pick_ms, double best_vendor_ms, double noise) {
  return pick_ms > 0.0 && best_vendor_ms > 0.0 && pick_ms > best_vendor_ms * (1.0 + noise);
}

std::vector<RangeSpan> range_map(std::vector<RangePoint> points) {
  std::sort(points.begin(), points.end(),
            [](RangePoint const& a, RangePoint const& b) { return a.m < b.m; });
  std::vector<std::int64_t> ms;
  for (RangePoint const& p : points) ms.push_back(p.m);
  std::vector<RangeSpan> out;
  if (ms.empty()) return out;
  std::vector<TableRangeBucket> const buckets = range_buckets(ms);
  for (std::size_t i = 0; i < buckets.size() && i < points.size(); ++i) {
    if (!out.empty() && out.back().pick == points[i].pick) {
      out.back().m_hi = buckets[i].m_hi;
    } else {
      out.push_back({buckets[i].m_lo, buckets[i].m_hi, points[i].pick});
    }
  }
  return out;
}

std::string range_map_text(std::vector<RangeSpan> const& map, std::size_t max_pick) {
  std::string out;
  for (RangeSpan const& s : map) {
    std::string pick = s.pick.empty() ? "-" : s.pick;
    if (pick.size() > max_pick) pick = pick.substr(0, max_pick) + "…";
    out += (out.empty() ? "" : " | ") + std::to_string(s.m_lo) + "-" + std::to_string(s.m_hi) +
           " " + pick;
  }
  return out;
}

}  // namespace gemmtune
