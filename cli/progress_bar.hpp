// Search progress on stderr: a redrawn bar with ETA, best so far and failure counts when
// stderr is a terminal, one line per problem otherwise. NO_COLOR is honoured.
#pragma once

#include <chrono>
#include <string>

#include "tuner/search/search_session.hpp"

namespace gemmtune {

class ProgressBar : public SearchProgress {
 public:
  explicit ProgressBar(bool quiet);
  void problem_started(Problem const& problem, int candidates, int pruned) override;
  void trial_done(Trial const& trial, std::optional<Trial> const& best, int done,
                  int planned) override;
  void problem_finished(ProblemOutcome const& outcome) override;
  void message(std::string const& line) override;
  void compile_started(std::string const& family, Problem const& problem, int total,
                       int valid) override;
  void compile_done(int done, int total, int spilling, int failed) override;
  /// Clears a bar still drawn, so what follows starts on a clean line.
  void finish() { clear_line(); }

 protected:
  /// True when nothing is printed (--quiet).
  bool quiet() const { return quiet_; }

 private:
  void clear_line();
  /// Draws `[####....] done/total eta`, then `detail` and the failures so far (tty only).
  void draw_bar(int done, int total, std::string const& detail, int failed);
  bool quiet_;
  bool tty_;
  bool color_;
  bool drawn_ = false;
  int failures_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gemmtune
