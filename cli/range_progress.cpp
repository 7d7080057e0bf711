// Range search progress lines.
#include "cli/range_progress.hpp"

#include "cli/output.hpp"

namespace gemmtune {

RangeProgress::RangeProgress(ProgressBar& bar, std::vector<RangeShape> ranges,
                             std::function<RangePoint(Problem const&)> measure)
    : bar_(bar), ranges_(std::move(ranges)), measure_(std::move(measure)) {}

void RangeProgress::start_pass(int pass, std::size_t planned) {
  pass_ = pass;
  planned_ = planned;
  done_ = 0;
  pass_start_ = std::chrono::steady_clock::now();
}

void RangeProgress::problem_started(Problem const& problem, int candidates, int pruned) {
  bar_.problem_started(problem, candidates, pruned);
}

void RangeProgress::trial_done(Trial const& trial, std::optional<Trial> const& best, int done,
                               int planned) {
  bar_.trial_done(trial, best, done, planned);
}

void RangeProgress::message(std::string const& line) { bar_.message(line); }

void RangeProgress::compile_started(std::string const& family, Problem const& problem, int total,
                                    int valid) {
  bar_.compile_started(family, problem, total, valid);
}

void RangeProgress::compile_done(int done, int total, int spilling, int failed) {
  bar_.compile_done(done, total, spilling, failed);
}

void RangeProgress::problem_finished(ProblemOutcome const& outcome) {
  bar_.problem_finished(outcome);
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
    bar_.message("range " + std::to_string(r.m_lo) + "-" + std::to_string(r.m_hi) + "x" +
                 std::to_string(r.n) + "x" + std::to_string(r.k) + " " +
                 std::string(to_string(q.precision)) + " " + std::string(to_string(q.layout)) +
                 ": pass " + std::to_string(pass_ + 1) + ", " + std::to_string(done_) + "/" +
                 std::to_string(planned_) + " points" + eta + "; buckets " +
                 range_map_text(range_map(std::move(measured))));
    return;
  }
}

}  // namespace gemmtune
