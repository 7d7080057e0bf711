// pick_with_ties(): the fastest figure, then the fixed tie rule within its noise band.
#include "src/core/tie_rule.hpp"

#include <algorithm>
#include <stdexcept>

namespace gemmtune {

double tie_band(RankedFigure const& fastest) {
  double half = 0.0;
  if (fastest.time_ms > 0.0 && fastest.hi_ms > fastest.lo_ms && fastest.lo_ms > 0.0) {
    half = (fastest.hi_ms - fastest.lo_ms) / (2.0 * fastest.time_ms);
  }
  return std::clamp(half, kMinTieBand, kMaxTieBand);
}

std::size_t pick_with_ties(std::span<RankedFigure const> figures) {
  if (figures.empty()) throw std::invalid_argument("pick_with_ties: no figures");
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < figures.size(); ++i) {
    if (figures[i].time_ms < figures[fastest].time_ms) fastest = i;
  }
  double const limit = figures[fastest].time_ms * (1.0 + tie_band(figures[fastest]));
  std::size_t pick = fastest;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    if (i != fastest && (figures[i].time_ms > limit || !figures[i].side_by_side)) continue;
    RankedFigure const& a = figures[i];
    RankedFigure const& b = figures[pick];
    if (a.vendor != b.vendor ? a.vendor : a.id < b.id) pick = i;
  }
  return pick;
}

}  // namespace gemmtune
