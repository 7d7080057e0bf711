// The host's copies of the templates' launch order (src/kernels/launch_order.hpp) against the
// templates' own arithmetic (tile_schedule.cuh compiled on the CPU): the roofline estimate
// models where blocks run from them, so they must not drift apart.
// The emulation first: the template is CUDA source and needs its definitions.
#include "tests/kernels/cuda_emulation.hpp"
#include "kernel_templates/common/tile_schedule.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "src/kernels/launch_order.hpp"

namespace gemmtune {

TEST(LaunchOrder, GroupedTileIsTheTemplatesGroupedOrder) {
  for (std::int64_t rows : {1, 3, 8, 13, 17}) {
    for (std::int64_t cols : {1, 5, 8, 9}) {
      for (std::int64_t t = 0; t < rows * cols; ++t) {
        long long r1 = 0, c1 = 0, r8 = 0, c8 = 0;
        tile_schedule::grouped<1>(t, rows, cols, r1, c1);
        tile_schedule::grouped<8>(t, rows, cols, r8, c8);
        GridPosition const one = grouped_tile(t, rows, cols, 1);
        GridPosition const eight = grouped_tile(t, rows, cols, 8);
        EXPECT_EQ(one.row, r1);
        EXPECT_EQ(one.col, c1);
        EXPECT_EQ(eight.row, r8);
        EXPECT_EQ(eight.col, c8);
      }
    }
  }
}

TEST(LaunchOrder, DealtPositionIsTheTemplatesBijection) {
  for (std::int64_t n : {1, 7, 8, 9, 64, 66}) {
    std::set<std::int64_t> seen;
    for (std::int64_t c = 0; c < n; ++c) {
      EXPECT_EQ(dealt_position(c, n, 8), tile_schedule::dealt<8>(c, n));
      EXPECT_EQ(dealt_position(c, n, 1), c);
      seen.insert(dealt_position(c, n, 8));
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), n);
    EXPECT_EQ(*seen.rbegin(), n - 1);
  }
}

}  // namespace gemmtune
