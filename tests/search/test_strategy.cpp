// Strategies: exhaustive keeps order (or takes the predicted fastest first); random is a seeded
// permutation.
#include <gtest/gtest.h>

#include <set>

#include "src/core/error.hpp"
#include "tuner/search/strategy.hpp"

namespace gemmtune {
namespace {

std::vector<KernelConfig> configs(int n) {
  std::vector<KernelConfig> v;
  for (int i = 0; i < n; ++i) {
    KernelConfig c;
    c.family = "fake";
    c.set("X", i);
    v.push_back(c);
  }
  return v;
}

std::vector<std::int64_t> drain(Strategy& s) {
  std::vector<std::int64_t> out;
  while (auto c = s.next()) {
    out.push_back(c->at("X"));
    s.report(*c, 1.0);
  }
  return out;
}

}  // namespace

TEST(Strategy, ExhaustiveKeepsOrder) {
  auto s = make_exhaustive(configs(5));
  EXPECT_EQ(drain(*s), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST(Strategy, ExhaustiveWithPredictionsTimesThePredictedFastestFirst) {
  // Unpredicted (≤ 0) last; equal predictions keep their order.
  auto s = make_exhaustive(configs(5), {3.0, 1.0, 0.0, 1.0, 2.0});
  EXPECT_EQ(drain(*s), (std::vector<std::int64_t>{1, 3, 4, 0, 2}));
  // Not one prediction per candidate: the given order.
  EXPECT_EQ(drain(*make_exhaustive(configs(3), {2.0, 1.0})), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(Strategy, RandomIsASeededPermutation) {
  auto a = drain(*make_random(configs(50), 7));
  auto b = drain(*make_random(configs(50), 7));
  auto c = drain(*make_random(configs(50), 8));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), 50u);
  std::vector<std::int64_t> sorted(50);
  for (int i = 0; i < 50; ++i) sorted[static_cast<std::size_t>(i)] = i;
  EXPECT_NE(a, sorted);
}

TEST(Strategy, ByName) {
  EXPECT_NO_THROW(make_strategy("random", configs(2), 1));
  EXPECT_THROW(make_strategy("annealing", configs(2), 1), UsageError);
}

}  // namespace gemmtune

namespace gemmtune {
namespace {

TEST(StrategyPlan, AutoTimesSmallSpacesWholeAndBoundsLargeOnes) {
  // No budget: a space up to kAutoExhaustiveMax configs is searched whole, a larger one by
  // evolution within kAutoSeconds.
  StrategyPlan const small = plan_strategy("auto", Budget{}, kAutoExhaustiveMax);
  EXPECT_EQ(small.strategy, "exhaustive");
  EXPECT_TRUE(small.budget.unlimited());
  StrategyPlan const large = plan_strategy("auto", Budget{}, kAutoExhaustiveMax + 1);
  EXPECT_EQ(large.strategy, "evolution");
  EXPECT_EQ(large.budget.seconds, kAutoSeconds);
  EXPECT_EQ(large.budget.evaluations, 0);
  // A given budget is kept, whatever the size; a named strategy is kept, with or without one.
  Budget given;
  given.evaluations = 50;
  StrategyPlan const budgeted = plan_strategy("auto", given, 10);
  EXPECT_EQ(budgeted.strategy, "evolution");
  EXPECT_EQ(budgeted.budget.evaluations, 50);
  StrategyPlan const named = plan_strategy("exhaustive", Budget{}, 100000);
  EXPECT_EQ(named.strategy, "exhaustive");
  EXPECT_TRUE(named.budget.unlimited());
  EXPECT_THROW(plan_strategy("magic", Budget{}, 1), UsageError);
}

}  // namespace
}  // namespace gemmtune
