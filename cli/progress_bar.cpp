// Progress bar drawing.
#include "cli/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/output.hpp"

namespace gemmtune {

ProgressBar::ProgressBar(bool quiet)
    : quiet_(quiet),
      tty_(::isatty(STDERR_FILENO) == 1),
      color_(tty_ && std::getenv("NO_COLOR") == nullptr) {}

void ProgressBar::clear_line() {
  if (drawn_) {
    std::cerr << "\r\033[K";
    drawn_ = false;
  }
}

void ProgressBar::problem_started(Problem const& problem, int candidates, int pruned) {
  if (quiet_) return;
  clear_line();
  label_ = problem.describe();
  failures_ = 0;
  start_ = std::chrono::steady_clock::now();
  std::cerr << "tuning " << label_ << ": " << candidates << " candidates (" << pruned
            << " pruned by constraints)" << std::endl;
}

void ProgressBar::draw_bar(int done, int total, std::string const& detail, int failed) {
  double const elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double const eta = done > 0 && total > done ? elapsed / done * (total - done) : 0.0;
  int const width = 24;
  int const filled = total > 0 ? std::min(width, width * done / total) : 0;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar += std::string(static_cast<std::size_t>(width - filled), '.');
  clear_line();
  std::cerr << '[' << bar << "] " << done << '/' << total << " eta " << fixed(eta, 0) << "s"
            << detail;
  if (failed > 0) {
    std::cerr << "  " << (color_ ? "\033[33m" : "") << failed << " failed"
              << (color_ ? "\033[0m" : "");
  }
  std::cerr << std::flush;
  drawn_ = true;
}

void ProgressBar::compile_started(std::string const& family, Problem const& problem, int total,
                                  int valid) {
  if (quiet_) return;
  clear_line();
  label_ = family;
  start_ = std::chrono::steady_clock::now();
  std::cerr << "compiling " << family << " for " << problem.describe() << ": " << total;
  if (total < valid) std::cerr << " of " << valid << " valid configs (a sample; --whole-space for all)";
  else std::cerr << " valid configs";
  std::cerr << std::endl;
}

void ProgressBar::compile_done(int done, int total, int spilling, int failed) {
  if (quiet_ || !tty_) return;
  std::string detail = "  compiling " + label_;
  if (spilling > 0) detail += "  " + std::to_string(spilling) + " spilling";
  draw_bar(done, total, detail, failed);
}

void ProgressBar::trial_done(Trial const& trial, std::optional<Trial> const& best, int done,
                             int planned) {
  if (quiet_) return;
  if (trial.disposition != Disposition::kOk) ++failures_;
  if (!tty_) return;
  draw_bar(done, planned, best ? "  best " + fixed(best->tflops, 2) + " TFLOP/s" : "", failures_);
}

void ProgressBar::problem_finished(ProblemOutcome const& outcome) {
  if (quiet_) return;
  clear_line();
  if (outcome.finished_by > 0) {
    std::cerr << "done " << outcome.problem.describe() << ": finished by search "
              << outcome.finished_by << " with the same settings, nothing run (--again searches "
              << "it again)" << std::endl;
    return;
  }
  std::cerr << "done " << outcome.problem.describe() << ": " << outcome.evaluated
            << " evaluated, " << outcome.resumed << " already in the cache";
  for (auto const& [d, n] : outcome.dispositions) {
    if (d != "ok") std::cerr << ", " << n << ' ' << d;
  }
  std::cerr << " (" << fixed(outcome.wall_s, 1) << " s)" << std::endl;
}

void ProgressBar::message(std::string const& line) {
  if (quiet_) return;
  clear_line();
  std::cerr << line << std::endl;
}

}  // namespace gemmtune
