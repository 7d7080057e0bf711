// Range search planning (range_plan.hpp).
#include "tuner/search/range_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <set>

#include "src/core/error.hpp"
#include "src/core/problem.hpp"
#include "src/core/tie_rule.hpp"

namespace gemmtune {
namespace {

std::int64_t whole(std::string_view text, std::string_view shape) {
  std::int64_t v = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxDim) {
    throw UsageError("bad range shape '" + std::string(shape) + "': '" + std::string(text) +
                     "' is not an integer in [1, " + std::to_string(kMaxDim) + "]");
  }
  return v;
}

}  // namespace

bool parse_range_shape(std::string_view text, RangeShape& out) {
  // A '-' after the first character of a dimension makes a range; a leading one is a negative
  // size, which the shape parser reports as such.
  auto const is_range = [](std::string_view d) {
    std::size_t const dash = d.find('-');
    return dash != std::string_view::npos && dash > 0;
  };
  std::vector<std::string_view> dims;
  std::size_t start = 0;
  while (true) {
    std::size_t const x = text.find('x', start);
    dims.push_back(text.substr(start, x == std::string_view::npos ? x : x - start));
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  bool const any = std::any_of(dims.begin(), dims.end(), is_range);
  if (!any) return false;
  if (dims.size() != 3) {
    throw UsageError("bad range shape '" + std::string(text) + "': expected A-BxNxK");
  }
  if (is_range(dims[1]) || is_range(dims[2])) {
    throw UsageError("bad range shape '" + std::string(text) +
                     "': only M may be a range (the buckets are over M); sweep N or K with "
                     "A:B:STEP");
  }
  std::size_t const dash = dims[0].find('-');
  out.m_lo = whole(dims[0].substr(0, dash), text);
  out.m_hi = whole(dims[0].substr(dash + 1), text);
  out.n = whole(dims[1], text);
  out.k = whole(dims[2], text);
  if (out.m_lo >= out.m_hi) {
    throw UsageError("bad range shape '" + std::string(text) + "': the range " +
                     std::to_string(out.m_lo) + "-" + std::to_string(out.m_hi) +
                     " is empty or inverted (expected A < B)");
  }
  return true;
}

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
  std::set<std::string> seen;
  std::vector<Trial> verified;
  for (Trial const& t : trials) {
    if (!seen.insert(t.config.id()).second || t.disposition != Disposition::kOk) continue;
    out.times[t.config.id()] = t.time_ms;
    verified.push_back(t);
  }
  if (!verified.empty()) out.pick = verified[pick_trial(verified)].config.id();
  return out;
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

std::vector<std::int64_t> refine_range_points(std::vector<RangePoint> const& points, double noise,
                                              double min_ratio, std::size_t limit) {
  std::vector<RangePoint const*> sorted;
  for (RangePoint const& p : points) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](RangePoint const* a, RangePoint const* b) { return a->m < b->m; });
  std::vector<std::pair<double, std::int64_t>> gaps;  // (ratio, midpoint)
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
    RangePoint const& a = *sorted[i];
    RangePoint const& b = *sorted[i + 1];
    double const ratio = static_cast<double>(b.m) / static_cast<double>(a.m);
    if (b.m - a.m < 2 || !(ratio > min_ratio) || neighbours_agree(a, b, noise)) continue;
    auto const mid = static_cast<std::int64_t>(
        std::llround(std::sqrt(static_cast<double>(a.m) * static_cast<double>(b.m))));
    gaps.emplace_back(ratio, std::clamp(mid, a.m + 1, b.m - 1));
  }
  std::stable_sort(gaps.begin(), gaps.end(),
                   [](auto const& x, auto const& y) { return x.first > y.first; });
  if (gaps.size() > limit) gaps.resize(limit);
  std::vector<std::int64_t> out;
  for (auto const& [ratio, m] : gaps) out.push_back(m);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gemmtune
