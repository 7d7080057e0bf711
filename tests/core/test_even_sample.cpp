// Even samples of an ordered list: the dry run's sample of a family's configs, the report's
// sampled landscape.
#include <gtest/gtest.h>

#include <algorithm>

#include "src/core/even_sample.hpp"

namespace gemmtune::test {

TEST(EvenSample, TheSampleIsSpreadOverTheWholeSpaceInOrder) {
  std::vector<std::size_t> const s = even_sample(1000, 10);
  ASSERT_EQ(s.size(), 10u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());  // distinct
  EXPECT_LT(s.front(), 100u);  // the first tenth and the last are both sampled
  EXPECT_GE(s.back(), 900u);
  EXPECT_LT(s.back(), 1000u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i] - s[i - 1], 100u);
}

TEST(EvenSample, ASampleAsLargeAsTheSpaceIsAllOfIt) {
  EXPECT_EQ(even_sample(3, 3), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(even_sample(3, 7), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(even_sample(0, 4).empty());
  EXPECT_TRUE(even_sample(5, 0).empty());
}

TEST(EvenSample, SmallSamplesOfSmallSpacesStayDistinct) {
  for (std::size_t size = 1; size < 40; ++size) {
    for (std::size_t count = 1; count <= size; ++count) {
      std::vector<std::size_t> const s = even_sample(size, count);
      ASSERT_EQ(s.size(), count);
      EXPECT_EQ(std::adjacent_find(s.begin(), s.end(), std::greater_equal<>()), s.end())
          << size << " " << count;
      EXPECT_LT(s.back(), size);
    }
  }
}

}  // namespace gemmtune::test
