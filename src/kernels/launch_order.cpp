// grouped_tile() and dealt_position() (see launch_order.hpp). tests/kernels/
// test_launch_order_emulated.cpp holds them to the templates' own arithmetic.
#include "src/kernels/launch_order.hpp"

#include <algorithm>

namespace gemmtune {

GridPosition grouped_tile(std::int64_t t, std::int64_t rows, std::int64_t cols,
                          std::int64_t group) {
  std::int64_t const per_group = group * cols;
  std::int64_t const first = t / per_group * group;
  std::int64_t const n = std::min(group, rows - first);
  std::int64_t const in = t % per_group;
  return {first + in % n, in / n};
}

std::int64_t dealt_position(std::int64_t c, std::int64_t n, std::int64_t s) {
  if (s <= 1) return c;
  std::int64_t const rows = n / s, longer = n % s, g = c % s;
  return g * rows + std::min(g, longer) + c / s;
}

}  // namespace gemmtune
