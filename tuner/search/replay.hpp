// Replay: runs a strategy against stored trials of a search with no GPU. The evaluator answers
// with the stored disposition and time; a model of the compile pool and the GPU gives the
// simulated wall time. Measures how fast a strategy gets near the optimum of the stored space.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "src/core/disposition.hpp"
#include "src/core/eval_job.hpp"
#include "src/core/problem.hpp"
#include "src/core/trial.hpp"
#include "tuner/search/search_session.hpp"
#include "tuner/search/strategy.hpp"

namespace gemmtune {

/// One stored trial: all a replay needs of it.
struct ReplayRecord {
  KernelConfig config;
  Disposition disposition = Disposition::kSkipped;
  double time_ms = 0.0;     ///< kOk only
  double compile_ms = 0.0;
};

/// The stored trials of one (GPU, problem): the space a replay searches, in stored order.
struct ReplayProblem {
  std::string gpu;          ///< GpuIdentity::describe()
  Problem problem;
  std::vector<ReplayRecord> records;
  /// The GPU's limits as far as the data tells: its arch's table, with its SM count (0 when
  /// unknown: then there is no roofline estimate).
  DeviceLimits limits;
  /// The fastest verified time, or 0 when none verified.
  double optimum_ms() const;
  /// The problem as a cell names it: "4096x4096x4096 bf16 NN a16", with the GPU in front
  /// when `with_gpu` (data of several GPUs).
  std::string label(bool with_gpu) const;
};

/// Reads JSON lines {"gpu":{"name","cc","sm_count"}, "problem":{...}, "kernel", "disposition",
/// "time_ms", "compile_ms"} (scripts/export_replay_data.py); throws Error naming the file and
/// line of anything malformed.
std::vector<ReplayProblem> load_replay_jsonl(std::filesystem::path const& path);

/// Groups trials (a cache's, say) into replay problems. The first trial of each (GPU, problem,
/// kernel) counts — by id: the quick search-time figure, not a later re-time — and a compile
/// time of 0 (a cubin-cache hit) takes the kernel's compile time on another problem.
std::vector<ReplayProblem> replay_problems_from_trials(std::vector<Trial> trials);

/// The simulated cost of a search: the problem's setup, then a pool of compile threads fed in
/// proposal order, `ahead` compiles in flight, one GPU evaluating the oldest compiled proposal.
///
/// Fitted to the H200 runs in bench/results/raw (trial timestamps, 1 s resolution): the
/// exhaustive bf16 core suite (GPU busy 98%; 11 shapes, the first left out since it paid every
/// compile) and fp32 4096³ of the ladder run. Per candidate, past the quick timing, the GPU
/// spends 0.013 s + 1.6 ns per output element per verified run (two, three with fp32's and
/// tf32's exact pass): reading C back, converting and comparing it dominate on large outputs.
/// Measured against this: 0.003–0.02 s on the bf16 shapes of at most 1M outputs (model
/// 0.013–0.017), 0.038 at 2048² (0.026), 0.085–0.090 at 4096×4096 outputs (0.067), 0.153 at
/// 4096×11008 (0.16), 0.229 at 8192² (0.23), fp32 4096³ 0.094 (0.094); the inputs' size adds
/// nothing measurable. Before the first candidate the search times cuBLAS and cuBLASLt on fresh
/// inputs (the clock of `--budget 12s` includes it): 0.4 s + 44 ns per input element
/// (M·K + K·N), 0–7 s on the bf16 suite, within 1 s of each of the 26 measured.
struct ReplayCost {
  int compile_threads = 16;       ///< the H200 machine's cores
  int compile_ahead = 16;         ///< SearchOptions::compile_ahead, one per compile thread as
                                  ///< `search` sets it (also the strategy's lag)
  double eval_fixed_s = 0.013;    ///< per run candidate: round trip, load, launches, checks
  double verify_s_per_element = 1.6e-9;  ///< per output element and verified run
  double setup_s = 0.4;           ///< per problem: worker data, cuBLAS and cuBLASLt baseline
  double setup_s_per_element = 4.4e-8;   ///< ... per input element (M·K + K·N)
  double early_stop_factor = 3.0; ///< SearchOptions's: one timed repeat when slower (0 = off)
  TimingSpec timing = quick_timing();  ///< warm-up + repeats × max(target, one call)
  /// Verified runs of a candidate that passes: the first, the exact pass (fp32, tf32), the last.
  static int verified_runs(Precision p);
  /// Simulated seconds before the first candidate of `problem` can run.
  double setup_seconds(Problem const& problem) const;
  /// Simulated GPU seconds of evaluating one record (0 when it never reaches the GPU), with
  /// `best_ms` the best time reported so far (0 = none): the early stop's reference.
  double eval_seconds(Problem const& problem, ReplayRecord const& r, double best_ms = 0.0) const;
};

/// One replayed search: after each evaluation, the best time found and the simulated time.
struct ReplayRun {
  std::vector<double> best_ms;  ///< 0 until something verified
  std::vector<double> sim_s;
  /// The evaluation (index into best_ms) of the strategy's first proposal, -1 if none, and its
  /// time (0 unless verified): a time budget that ends before it is reached still takes it,
  /// as the search session does.
  long long first_eval = -1;
  double first_ms = 0.0;
  /// The best within a time budget of `t` simulated seconds and the evaluations it took:
  /// those finished by then, and the first proposal's if it was not among them.
  std::pair<double, long long> best_within(double t) const;
};

/// Replays `strategy` with `seed` on one problem for at most `budget` evaluations (0 = all),
/// stopping early once both `budget` is spent and the simulated time passed `until_s` (0 =
/// no time goal). `warm_start` and `predicted` (one per record, in record order) as in
/// StrategyContext.
ReplayRun replay_once(ReplayProblem const& problem, std::string const& strategy,
                      std::uint64_t seed, long long budget, ReplayCost const& cost,
                      std::vector<KernelConfig> const& warm_start = {}, double until_s = 0.0,
                      std::vector<double> const& predicted = {});

/// The roofline estimate of every record's config on the problem (roofline_estimate.hpp), in
/// record order: what a search on that GPU hands its strategy.
std::vector<double> replay_predictions(ReplayProblem const& problem);

/// Fraction of the optimum reached: optimum / best found (1 = found it; 0 = nothing verified).
double optimum_fraction(double optimum_ms, double best_ms);

/// What a replay study measures.
struct ReplayStudy {
  std::vector<std::string> strategies;
  std::vector<long long> budgets;      ///< evaluations per problem
  std::vector<double> time_budgets_s;  ///< simulated seconds per problem
  int seeds = 20;                      ///< seeds 1..seeds
  bool warm_start = false;             ///< from the other problems of the data (same GPU and
                                       ///< precision), as a search over a cache would
  bool per_problem = false;            ///< also one cell per problem (over its seeds): a
                                       ///< median over all problems hides the one left behind
  bool roofline_start = true;          ///< strategies get the roofline estimate's predictions,
                                       ///< as `search` gives them unless --random-start
  ReplayCost cost;
};

/// One cell of the result: a strategy at a budget, over every (problem, seed).
struct ReplayCell {
  std::string strategy;
  std::string budget;       ///< "50" or "30s"
  double median = 0.0;      ///< median fraction of the optimum
  double worst = 0.0;
  double median_sim_s = 0.0;  ///< simulated time spent (evaluation budgets)
  double median_evals = 0.0;  ///< evaluations spent (time budgets)
  int runs = 0;
  std::string problem;      ///< "" = every problem; else ReplayProblem::label() (per_problem)
};

/// Runs every strategy × seed on every problem once with the largest budget and reads each
/// budget off the curves. The cells over every problem come first (strategy by strategy); with
/// `per_problem`, the cells of each problem follow, in the problems' order.
std::vector<ReplayCell> run_replay_study(std::vector<ReplayProblem> const& problems,
                                         ReplayStudy const& study);

/// The cells as a Markdown table: rows strategies, columns budgets, "median % / worst %"; with
/// per-problem cells, then a table with a row per problem and strategy.
std::string replay_markdown(std::vector<ReplayCell> const& cells, ReplayStudy const& study);

}  // namespace gemmtune
