// The dry run's sample of a family's configs.
#include <gtest/gtest.h>

#include <algorithm>

#include "tuner/search/dry_run.hpp"

namespace gemmtune::test {

TEST(DryRun, TheSampleIsSpreadOverTheWholeSpaceInOrder) {
  std::vector<std::size_t> const s = spread_indices(1000, 10);
  ASSERT_EQ(s.size(), 10u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());  // distinct
  EXPECT_LT(s.front(), 100u);  // the first tenth and the last are both sampled
  EXPECT_GE(s.back(), 900u);
  EXPECT_LT(s.back(), 1000u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i] - s[i - 1], 100u);
}

TEST(DryRun, ASampleAsLargeAsTheSpaceIsAllOfIt) {
  EXPECT_EQ(spread_indices(3, 3), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(spread_indices(3, 7), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(spread_indices(0, 4).empty());
  EXPECT_TRUE(spread_indices(5, 0).empty());
}

TEST(DryRun, SmallSamplesOfSmallSpacesStayDistinct) {
  for (std::size_t size = 1; size < 40; ++size) {
    for (std::size_t count = 1; count <= size; ++count) {
      std::vector<std::size_t> const s = spread_indices(size, count);
      ASSERT_EQ(s.size(), count);
      EXPECT_EQ(std::adjacent_find(s.begin(), s.end(), std::greater_equal<>()), s.end())
          << size << " " << count;
      EXPECT_LT(s.back(), size);
    }
  }
}

}  // namespace gemmtune::test
