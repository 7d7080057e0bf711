// Budget parsing.
#include <gtest/gtest.h>

#include "src/core/error.hpp"
#include "tuner/search/budget.hpp"

namespace gemmtune {

TEST(Budget, Parses) {
  EXPECT_EQ(parse_budget("200").evaluations, 200);
  EXPECT_DOUBLE_EQ(parse_budget("90s").seconds, 90.0);
  EXPECT_DOUBLE_EQ(parse_budget("5m").seconds, 300.0);
  EXPECT_DOUBLE_EQ(parse_budget("1h").seconds, 3600.0);
  EXPECT_TRUE(Budget{}.unlimited());
}

TEST(Budget, RejectsBadText) {
  for (char const* bad : {"", "0", "-5", "5x", "s", "1.5m", "999999999999", "10 s"}) {
    EXPECT_THROW(parse_budget(bad), UsageError) << bad;
  }
}

}  // namespace gemmtune
