// SearchSession: tunes a list of problems — enumerate and prune each family's space, let a
// strategy propose configs, compile ahead in a pool, evaluate on the GPU worker, store every
// trial before the next one, and skip what the cache already holds (resume).
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/eval_job.hpp"
#include "src/core/trial_store.hpp"
#include "src/kernels/family.hpp"
#include "tuner/search/budget.hpp"
#include "tuner/search/gpu_evaluator.hpp"

namespace gemmtune {

/// The short timing protocol used while searching (warm-up 10 ms, 5 repeats of 10 ms).
TimingSpec quick_timing();

/// Compiles a request somewhere (a pool, usually) and hands back the result later.
using CompileFn = std::function<std::future<CompileResult>(CompileRequest)>;

/// What to search.
/// The final re-time takes a candidate only when its quick figure is within this factor of
/// the fastest quick figure (ours or the vendor's); the fastest of ours is always taken.
inline constexpr double kRetimeWithin = 2.0;

struct SearchOptions {
  std::vector<Problem> problems;
  std::vector<Family const*> families;
  /// A strategy name, or "auto": evolution with a budget, exhaustive without.
  std::string strategy = "auto";
  Budget budget;                 ///< per problem; an evaluation budget counts resumed trials too,
                                 ///< so re-running an interrupted search finishes the same plan
  std::uint64_t seed = 1;
  /// Timing while searching: short, so the GPU sees many candidates.
  TimingSpec timing = quick_timing();
  /// Timing of the final re-time of the top candidates, interleaved with cuBLAS (DESIGN.md §5).
  TimingSpec final_timing;
  int retime_top = 3;            ///< candidates re-timed at the end (0 = none)
  /// Rounds of (baselines, top 1, top 2, ...) in the re-time, each starting one place further
  /// along; the figure is the median of the rounds and their fastest and slowest the spread.
  int retime_rounds = 6;
  /// Untimed repeats of the re-time's entries in turn before its first round (RetimeJob).
  double retime_settle_ms = 1000.0;
  double job_timeout_s = 120.0;  ///< deadline of one evaluation in the worker
  bool early_stop = true;        ///< stop timing candidates clearly slower than the best
  double early_stop_factor = 3.0;
  int compile_ahead = 8;         ///< compiles kept in flight ahead of the GPU (also the
                                 ///< strategy's feedback lag, see StrategyContext::lag)
  /// Start guided strategies from the best configs of tuned neighbouring shapes on this GPU.
  bool warm_start = true;
  /// Start guided strategies from the configs the roofline estimate predicts fastest
  /// (src/kernels/roofline_estimate.hpp); off, their start is random.
  bool roofline_start = true;
  /// The default cuBLAS call and the chosen cuBLASLt algorithm are candidates too (verified,
  /// re-timed in the same rounds, stored as cublas / cublaslt trials), so the pick never loses
  /// to them (DESIGN.md §6). Off: they are timed as baselines only.
  bool vendor_candidates = true;
  /// Search every problem, also those a search with the same settings (search_settings()) has
  /// finished on this GPU; off, those are reported from the cache and nothing runs for them.
  bool again = false;
  std::string arguments;         ///< recorded with the search
};

/// Counts and times for one problem.
struct ProblemOutcome {
  Problem problem;
  /// The pick: the fastest candidate of any family, vendor calls included (tie rule).
  std::optional<Trial> best;
  /// The pick among our own kernels only, so their progress stays visible beside a vendor pick.
  std::optional<Trial> best_own;
  BaselineResult baseline;
  std::map<std::string, int> dispositions;  ///< this run's trials, by disposition text
  int candidates = 0;         ///< valid configs after pruning
  int pruned = 0;             ///< rejected by constraints before compiling
  int evaluated = 0;          ///< trials recorded by this run
  int resumed = 0;            ///< skipped: already in the cache
  int retimed = 0;            ///< top candidates re-timed at the end
  int vendor_trials = 0;      ///< cuBLAS / cuBLASLt candidates recorded by this run
  int warm_start = 0;         ///< configs offered to the strategy from neighbouring shapes
  std::string strategy;       ///< the strategy used (after "auto" is resolved)
  /// Why the re-time left (some of) the quick figures standing: a candidate that would not
  /// compile again, a request that failed, baselines that missed rounds. Empty when it did not.
  std::string retime_note;
  /// The search that had finished this problem under the same settings: this run reported it
  /// from the cache and ran nothing for it (0 when it was searched).
  std::int64_t finished_by = 0;
  double wall_s = 0.0;
};

/// Where time went (DESIGN.md §6: stored with each search and shown at its end).
struct PhaseTimes {
  double wall_s = 0.0;
  double compile_s = 0.0;     ///< summed compile time of the pool (overlaps the GPU)
  double compile_wait_s = 0.0;///< GPU side waiting for a compile while none was ready
  double gpu_s = 0.0;         ///< inside evaluate calls while searching (round trips included)
  double load_s = 0.0;        ///< of gpu_s, the worker loading cubins
  double verify_s = 0.0;      ///< of gpu_s, the worker's verified runs, references, input checks
  double time_s = 0.0;        ///< of gpu_s, the worker timing candidates
  double baseline_s = 0.0;
  double retime_s = 0.0;      ///< final re-time of the top candidates
  double store_s = 0.0;
  /// Wall time with no evaluation, baseline or re-time running: compile waits, pruning,
  /// strategy and store work.
  double idle_s() const;
  /// Share of the wall time the GPU worker was busy.
  double gpu_busy() const;
  /// Adds one evaluation's worker steps to load_s, verify_s and time_s.
  void add_steps(std::vector<std::pair<std::string, double>> const& steps);
  std::string to_json() const;
};

struct SearchReport {
  std::int64_t search_id = 0;
  std::vector<ProblemOutcome> problems;
  PhaseTimes phases;
  bool interrupted = false;
  bool device_stopped = false;
  int worker_restarts = 0;
};

/// Receives progress; the CLI draws it.
class SearchProgress {
 public:
  virtual ~SearchProgress() = default;
  virtual void problem_started(Problem const& problem, int candidates, int pruned) = 0;
  virtual void trial_done(Trial const& trial, std::optional<Trial> const& best, int done,
                          int planned) = 0;
  virtual void problem_finished(ProblemOutcome const& outcome) = 0;
  virtual void message(std::string const& line) = 0;
  /// A dry run starts compiling `total` configs of `family` for `problem` (of `valid`).
  virtual void compile_started(std::string const& family, Problem const& problem, int total,
                               int valid) {
    (void)family, (void)problem, (void)total, (void)valid;
  }
  /// A dry run's compile finished: `done` of `total` for the current family and problem.
  virtual void compile_done(int done, int total, int spilling, int failed) {
    (void)done, (void)total, (void)spilling, (void)failed;
  }
};

class SearchSession {
 public:
  /// `cubin_dir` is where cubins that did not come from the cache are written for the worker.
  SearchSession(GpuEvaluator& gpu, TrialStore& store, CompileFn compile, std::string cubin_dir,
                SearchProgress* progress = nullptr);

  /// Runs the whole search. Returns early (interrupted = true) on Ctrl-C; every finished
  /// trial is already stored.
  SearchReport run(SearchOptions const& options);

  /// Provenance for trials of a family on the current device.
  Provenance provenance_for(Family const& family) const;
  /// Provenance of vendor trials and baselines: the device's driver, runtime and cuBLAS
  /// versions (an algorithm id belongs to the cuBLAS that listed it), no template or options.
  Provenance vendor_provenance() const;
  /// Everything besides the problem that decides what a search of it does and finds, as one
  /// canonical text (compact JSON, sorted keys): the families with their provenance, strategy,
  /// budget, seed, both timings, the re-time's settings, early stop, warm start, vendor
  /// candidates and the compile lag (a guided strategy's plan depends on it). The device must
  /// be known (after run() has started, or device() called on the evaluator).
  std::string search_settings(SearchOptions const& options) const;

 private:
  ProblemOutcome tune_problem(Problem const& problem, SearchOptions const& options,
                              PhaseTimes& phases, std::int64_t search_id);
  /// A problem finished before by search `by` under the same settings, as the cache holds it:
  /// the pick and our best by the tie rule over its verified trials, the newest baseline.
  ProblemOutcome finished_outcome(Problem const& problem, SearchOptions const& options,
                                  std::int64_t by);
  /// Re-times the best few candidates of `problem` and cuBLAS with the full protocol, in
  /// alternating rounds, and stores the figures as new trials (they supersede the quick ones).
  /// The re-time's rounds as one evaluate() or baseline() request per entry and round, in
  /// rotated order: where the evaluator has no one-request re-time, or that request failed.
  void retime_by_requests(std::vector<EvalJob> const& jobs, BaselineJob const& base_job,
                          int rounds, SearchOptions const& options,
                          std::vector<std::vector<double>>& times, std::vector<EvalResult>& last,
                          std::vector<double>& cublas, std::vector<double>& cublaslt,
                          BaselineResult& last_base);
  void retime_top(Problem const& problem, SearchOptions const& options,
                  std::map<std::string, Family const*> const& families, ProblemOutcome& outcome,
                  PhaseTimes& phases, std::int64_t search_id);

  /// The cuBLASLt algorithm of the newest verified cublaslt trial of `problem` under the current
  /// vendor provenance, or "".
  std::string stored_cublaslt(Problem const& problem);
  /// Records the vendor candidates a baseline timed as trials: `rounds` ≥ 2 when the figures
  /// are the medians of a final re-time's rounds (with `lo`/`hi` their spread), 1 for one timing.
  /// With `only_new`, a candidate already stored under the current provenance is left alone (a
  /// resumed search keeps its re-timed figures). `board` is the board during the rounds (SM
  /// MHz, °C; zeros for a single timing). Returns the trials recorded.
  std::vector<Trial> record_vendor_trials(Problem const& problem, BaselineResult const& base,
                                          BaselineResult const& verdicts, int rounds,
                                          bool only_new, std::int64_t search_id,
                                          std::pair<int, int> board = {0, 0});

  GpuEvaluator& gpu_;
  TrialStore& store_;
  CompileFn compile_;
  std::string cubin_dir_;
  SearchProgress* progress_;
  DeviceReport device_;
};

/// The configs of `families` that pass every constraint for `problem` on `limits`, in
/// canonical order; `pruned` counts the rest, `reasons` counts them by constraint reason, and
/// `rejected` receives each of them with its whole reason.
std::vector<std::pair<Family const*, KernelConfig>> valid_candidates(
    std::vector<Family const*> const& families, Problem const& problem, DeviceLimits const& limits,
    int* pruned = nullptr, std::map<std::string, int>* reasons = nullptr,
    std::vector<std::pair<KernelConfig, std::string>>* rejected = nullptr);

/// The first word of a rejection reason, used to group rejections by constraint.
std::string reason_key(std::string const& reason);

}  // namespace gemmtune
