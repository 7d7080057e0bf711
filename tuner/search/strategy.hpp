// Search strategies: they see only configs, their parameter grid and scores, never kernels,
// GPUs or the cache.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/kernel_config.hpp"
#include "tuner/search/budget.hpp"
#include "tuner/search/param_grid.hpp"

namespace gemmtune {

/// Proposes configs from a fixed candidate list and learns from their scores.
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The next config to evaluate, or nullopt when there is nothing to propose now. A strategy
  /// that waits for reports of configs it proposed answers nullopt until they arrive; nullopt
  /// while every proposal has been reported means it is finished.
  virtual std::optional<KernelConfig> next() = 0;
  /// The result of a proposed config: its time in ms, or nullopt when it failed.
  virtual void report(KernelConfig const& config, std::optional<double> time_ms) = 0;
};

/// What a strategy may know besides the candidates.
struct StrategyContext {
  std::uint64_t seed = 1;
  /// The families' parameter axes; empty = read off the candidates.
  ParamGrid grid;
  /// Configs to try first, best first (warm start from tuned neighbouring shapes); those not
  /// among the candidates are ignored.
  std::vector<KernelConfig> warm_start;
  /// Proposals allowed ahead of feedback: proposal i is chosen from the reports of proposals
  /// 0 .. i-lag-1 only, applied in proposal order. The search compiles `lag` configs ahead,
  /// so with lag = compile_ahead a guided strategy never stalls the pipeline, and its choices
  /// do not depend on when compiles or evaluations finish (a resumed or replayed search
  /// proposes the same configs).
  int lag = 0;
  /// Evaluations the search may spend (0 = unknown); sizes the initial population.
  long long budget_evaluations = 0;
  /// A predicted time per candidate, in the candidates' order (the roofline estimate; any unit,
  /// only the order within one problem counts); ≤ 0 where there is none, empty for none at all.
  /// A guided strategy's start tries the predicted fastest first.
  std::vector<double> predicted;
};

/// Every candidate: in the given (canonical) order, or with one predicted time per candidate
/// (StrategyContext::predicted), predicted fastest first (unpredicted last, ties in given order).
std::unique_ptr<Strategy> make_exhaustive(std::vector<KernelConfig> candidates,
                                          std::vector<double> const& predicted = {});
/// A seeded random permutation of the candidates (a budget cuts it short).
std::unique_ptr<Strategy> make_random(std::vector<KernelConfig> candidates, std::uint64_t seed);
/// By name (see strategy_names()); throws UsageError naming the bad name and the choices.
std::unique_ptr<Strategy> make_strategy(std::string_view name, std::vector<KernelConfig> candidates,
                                        StrategyContext const& context);
/// The same with only a seed.
std::unique_ptr<Strategy> make_strategy(std::string_view name, std::vector<KernelConfig> candidates,
                                        std::uint64_t seed);

/// The strategy names make_strategy() accepts.
std::vector<std::string> strategy_names();
/// Throws UsageError unless `name` is a strategy name or "auto".
void check_strategy_name(std::string_view name);
/// "auto" resolves to evolution when the search has a budget (it finds the optimum of a space
/// in a fraction of its evaluations) and to exhaustive otherwise; other names stay.
std::string resolve_strategy_name(std::string_view name, bool budgeted);

/// Valid configs up to which `auto` without a budget times a whole space: the H200 ran the bf16
/// core suite's spaces (128 to 394 configs) exhaustively in 17 to 34 s per shape.
inline constexpr std::size_t kAutoExhaustiveMax = 400;
/// Seconds per problem `auto` gives evolution on a larger space when no budget was given (fp32's
/// spaces hold 1300 to 4200 configs, whose exhaustive search takes many minutes). With a few
/// seconds of setup per shape, 12 shapes stay within 8 minutes.
inline constexpr double kAutoSeconds = 30.0;

/// What a search runs on one problem: the strategy name and its budget.
struct StrategyPlan {
  std::string strategy;
  Budget budget;
};

/// The plan for a problem with `candidates` valid configs: a named strategy keeps `given`;
/// "auto" is evolution within `given` when a budget was given, else exhaustive up to
/// kAutoExhaustiveMax candidates and evolution within kAutoSeconds above.
StrategyPlan plan_strategy(std::string_view name, Budget const& given, std::size_t candidates);

}  // namespace gemmtune
