// Exhaustive and random strategies, and strategies by name.
#include "tuner/search/strategy.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "src/core/error.hpp"
#include "tuner/search/evolution_strategy.hpp"

namespace gemmtune {
namespace {

/// Walks a list in order; the list's order is the strategy.
class ListStrategy : public Strategy {
 public:
  explicit ListStrategy(std::vector<KernelConfig> order) : order_(std::move(order)) {}
  std::optional<KernelConfig> next() override {
    if (pos_ >= order_.size()) return std::nullopt;
    return order_[pos_++];
  }
  void report(KernelConfig const&, std::optional<double>) override {}

 private:
  std::vector<KernelConfig> order_;
  std::size_t pos_ = 0;
};

std::string joined_names() {
  std::string s;
  for (std::string const& n : strategy_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(std::vector<KernelConfig> candidates,
                                          std::vector<double> const& predicted) {
  if (predicted.size() == candidates.size()) {
    // Predicted fastest first: the fast configs set the early stop's reference sooner, so the
    // slow ones get one timed repeat each; an interrupted search has timed the likely best.
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto const key = [&](std::size_t i) {
      return predicted[i] > 0 ? predicted[i] : std::numeric_limits<double>::infinity();
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::vector<KernelConfig> sorted;
    sorted.reserve(order.size());
    for (std::size_t i : order) sorted.push_back(std::move(candidates[i]));
    candidates = std::move(sorted);
  }
  return std::make_unique<ListStrategy>(std::move(candidates));
}

std::unique_ptr<Strategy> make_random(std::vector<KernelConfig> candidates, std::uint64_t seed) {
  // A fixed engine and our own Fisher-Yates, so the order is the same on every platform.
  std::mt19937_64 rng(seed);
  for (std::size_t i = candidates.size(); i > 1; --i) {
    std::size_t const j = static_cast<std::size_t>(rng() % i);
    std::swap(candidates[i - 1], candidates[j]);
  }
  return std::make_unique<ListStrategy>(std::move(candidates));
}

std::vector<std::string> strategy_names() { return {"exhaustive", "random", "evolution"}; }

void check_strategy_name(std::string_view name) {
  if (name == "auto") return;
  for (std::string const& n : strategy_names()) {
    if (n == name) return;
  }
  throw UsageError("bad strategy '" + std::string(name) + "': expected auto, " + joined_names());
}

std::string resolve_strategy_name(std::string_view name, bool budgeted) {
  check_strategy_name(name);
  if (name == "auto") return budgeted ? "evolution" : "exhaustive";
  return std::string(name);
}

StrategyPlan plan_strategy(std::string_view name, Budget const& given, std::size_t candidates) {
  check_strategy_name(name);
  if (name != "auto" || !given.unlimited()) {
    return {resolve_strategy_name(name, !given.unlimited()), given};
  }
  if (candidates <= kAutoExhaustiveMax) return {"exhaustive", given};
  Budget timed;
  timed.seconds = kAutoSeconds;
  return {"evolution", timed};
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, std::vector<KernelConfig> candidates,
                                        StrategyContext const& context) {
  if (name == "exhaustive") return make_exhaustive(std::move(candidates), context.predicted);
  if (name == "random") return make_random(std::move(candidates), context.seed);
  if (name == "evolution") return make_evolution(std::move(candidates), context);
  throw UsageError("bad strategy '" + std::string(name) + "': expected " + joined_names());
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, std::vector<KernelConfig> candidates,
                                        std::uint64_t seed) {
  StrategyContext context;
  context.seed = seed;
  return make_strategy(name, std::move(candidates), context);
}

}  // namespace gemmtune
