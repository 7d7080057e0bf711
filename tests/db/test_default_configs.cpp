// Default selection: best mean relative performance, missing shapes count 0, alignment-safe.
#include "src/core/default_configs.hpp"

#include <gtest/gtest.h>

#include "tests/db/db_test_support.hpp"

namespace gemmtune {
namespace {

using testing_support::problem;

TEST(DefaultConfigs, EmptyInputHasNoDefaults) { EXPECT_TRUE(choose_defaults({}).empty()); }

TEST(DefaultConfigs, BestAverageBeatsMostWins) {
  // "fast" wins two shapes but is very slow on the third; "steady" is close everywhere.
  Problem const a = problem(4096, 4096, 4096), b = problem(2048, 2048, 2048),
                c = problem(64, 64, 8192);
  std::vector<ShapeTiming> t = {
      {a, "simt:V=1", 1.00}, {b, "simt:V=1", 1.00}, {c, "simt:V=1", 10.0},
      {a, "simt:V=2", 1.10}, {b, "simt:V=2", 1.10}, {c, "simt:V=2", 1.00},
  };
  auto const d = choose_defaults(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel_id, "simt:V=2");
  EXPECT_EQ(d[0].align, 16);
  EXPECT_NEAR(d[0].mean_relative, (1 / 1.1 + 1 / 1.1 + 1.0) / 3, 1e-12);
  EXPECT_EQ(d[0].shapes, 3);
}

TEST(DefaultConfigs, MissingShapesCountZero) {
  Problem const a = problem(4096, 4096, 4096), b = problem(2048, 2048, 2048);
  // V=1 is fastest where it ran but never ran on b.
  std::vector<ShapeTiming> t = {{a, "simt:V=1", 1.0}, {a, "simt:V=2", 1.5}, {b, "simt:V=2", 1.0}};
  auto const d = choose_defaults(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel_id, "simt:V=2");
  EXPECT_NEAR(d[0].mean_relative, (1 / 1.5 + 1.0) / 2, 1e-12);
}

TEST(DefaultConfigs, RepeatedTimesCountTheFastest) {
  Problem const a = problem(4096, 4096, 4096);
  std::vector<ShapeTiming> t = {{a, "simt:V=1", 2.0}, {a, "simt:V=1", 1.0}, {a, "simt:V=2", 1.5}};
  auto const d = choose_defaults(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel_id, "simt:V=1");
  EXPECT_EQ(d[0].mean_relative, 1.0);
}

TEST(DefaultConfigs, OnePerAlignmentClassAndOnlySafeConfigs) {
  Problem const a16 = problem(4096, 4096, 4096, 16), a4 = problem(1000, 1000, 1000, 4);
  std::vector<ShapeTiming> t = {
      {a16, "simt:VEC=4", 1.0}, {a16, "simt:VEC=1", 2.0}, {a4, "simt:VEC=1", 1.0}};
  auto const d = choose_defaults(t);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].align, 4);
  EXPECT_EQ(d[0].kernel_id, "simt:VEC=1");  // the only config verified on 4-byte-aligned data
  EXPECT_EQ(d[1].align, 16);
  // VEC=4: (1 + 0) / 2 = 0.5; VEC=1: (0.5 + 1) / 2 = 0.75.
  EXPECT_EQ(d[1].kernel_id, "simt:VEC=1");
  EXPECT_NEAR(d[1].mean_relative, 0.75, 1e-12);
}

TEST(DefaultConfigs, TiesAreBrokenIndependentlyOfInputOrder) {
  Problem const a = problem(4096, 4096, 4096);
  std::vector<ShapeTiming> t1 = {{a, "simt:V=2", 1.0}, {a, "simt:V=1", 1.0}};
  std::vector<ShapeTiming> t2 = {{a, "simt:V=1", 1.0}, {a, "simt:V=2", 1.0}};
  EXPECT_EQ(choose_defaults(t1), choose_defaults(t2));
  EXPECT_EQ(choose_defaults(t1)[0].kernel_id, "simt:V=1");
}

}  // namespace
}  // namespace gemmtune
