// Range search progress lines.
#include "cli/range_progress.hpp"

#include "cli/output.hpp"

namespace gemmtune {

RangeProgress::RangeProgress(bool quiet, std::vector<RangeShape> ranges,
                             std::function<RangePoint(Problem const&)> measure)
    : ProgressBar(quiet), ranges_(std::move(ranges)), measure_(std::move(measure)) {}

void RangeProgress::start_pass(int pass, std::size_t planned) {
  pass_ = pass;
  planned_ = planned;
  done_ = 0;
  pass_start_ = std::chrono::steady_clock::now();
}

void RangeProgress::problem_finished(ProblemOutcome const& outcome) {
  ProgressBar::problem_finished(outcome);
  if (quiet()) return;  // nothing to print: no need to read the points back
  Problem const& q = outcome.problem;
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    RangeShape const& r = ranges_[i];
    if (q.n != r.n || q.k != r.k || q.m < r.m_lo || q.m > r.m_hi) continue;
    auto& layer = points_[Layer{i, q.precision, q.layout, q.align}];
    layer[q.m] = measure_(q);
    ++done_;
    double const elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start_).count();
    std::string eta;
    if (planned_ > done_) {
      eta = ", pass eta " + fixed(elapsed / static_cast<double>(done_) *
                                      static_cast<double>(planned_ - done_), 0) + " s";
    }
    std::vector<RangePoint> measured;
    for (auto const& [m, p] : layer) measured.push_back(p);
    message("range " + std::to_string(r.m_lo) + "-" + std::to_string(r.m_hi) + "x" +
                 std::to_string(r.n) + "x" + std::to_string(r.k) + " " +
                 std::string(to_string(q.precision)) + " " + std::string(to_string(q.layout)) +
                 ": pass " + std::to_string(pass_ + 1) + ", " + std::to_string(done_) + "/" +
                 std::to_string(planned_) + " points" + eta + "; buckets " +
                 range_map_text(range_map(std::move(measured))));
    return;
  }
}

}  // namespace gemmtune
