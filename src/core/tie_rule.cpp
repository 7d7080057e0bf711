// pick_with_ties(): the fastest figure, then the fixed tie rule within its noise band.
#include "src/core/tie_rule.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

namespace gemmtune {

std::size_t pick_with_ties(std::span<RankedFigure const> figures) {
  if (figures.empty()) throw std::invalid_argument("pick_with_ties: no figures");
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < figures.size(); ++i) {
    if (figures[i].time_ms < figures[fastest].time_ms) fastest = i;
  }
  double const limit = figures[fastest].time_ms * (1.0 + kTieBand);
  std::size_t pick = fastest;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    if (i != fastest && (figures[i].time_ms > limit || !figures[i].side_by_side)) continue;
    RankedFigure const& a = figures[i];
    RankedFigure const& b = figures[pick];
    if (a.vendor != b.vendor ? a.vendor : a.id < b.id) pick = i;
  }
  return pick;
}

std::size_t pick_trial(std::span<Trial const> trials) {
  bool const any_retimed = std::any_of(trials.begin(), trials.end(),
                                       [](Trial const& t) { return t.spread_rounds >= 2; });
  std::vector<RankedFigure> figures;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    Trial const& t = trials[i];
    if (any_retimed && t.spread_rounds < 2) continue;
    figures.push_back(RankedFigure{t.config.id(), t.time_ms, t.spread_lo_ms, t.spread_hi_ms,
                                   false, t.spread_rounds >= 2});
    index.push_back(i);
  }
  return index.at(pick_with_ties(figures));
}

std::vector<Trial> newest_verified(std::span<Trial const> newest_first) {
  std::set<std::string> seen;
  std::vector<Trial> out;
  for (Trial const& t : newest_first) {
    if (seen.insert(t.config.id()).second && t.disposition == Disposition::kOk) out.push_back(t);
  }
  return out;
}

}  // namespace gemmtune
