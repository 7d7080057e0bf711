// The range search's display: the search's usual progress, and after each point of an M range
// one line with the pass, the points done and planned, an ETA for the pass, and the bucket map
// the measured points give so far.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli/progress_bar.hpp"
#include "tuner/search/range_plan.hpp"
#include "tuner/shapes/shape_sweep.hpp"

namespace gemmtune {

class RangeProgress : public ProgressBar {
 public:
  /// `measure` reads a finished point's figures (from the cache) for the bucket map; it is
  /// called only for points of `ranges`.
  RangeProgress(bool quiet, std::vector<RangeShape> ranges,
                std::function<RangePoint(Problem const&)> measure);

  /// A pass of `planned` range points starts (pass 0: a range's first points).
  void start_pass(int pass, std::size_t planned);

  void problem_finished(ProblemOutcome const& outcome) override;

 private:
  /// A layer of a range: the range's index, precision, layout and alignment.
  using Layer = std::tuple<std::size_t, Precision, Layout, int>;

  std::vector<RangeShape> ranges_;
  std::function<RangePoint(Problem const&)> measure_;
  std::map<Layer, std::map<std::int64_t, RangePoint>> points_;
  int pass_ = 0;
  std::size_t planned_ = 0;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point pass_start_ = std::chrono::steady_clock::now();
};

}  // namespace gemmtune
