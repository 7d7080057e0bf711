// Which tile a block of a launch works on, as the kernel templates decide it
// (kernel_templates/common/tile_schedule.cuh), for host-side models of where blocks run: the
// roofline estimate's merging of L2 requests within a group of SMs.
#pragma once

#include <cstdint>

namespace gemmtune {

/// A tile's (or work unit's) place in its grid.
struct GridPosition {
  std::int64_t row = 0;
  std::int64_t col = 0;
};

/// Tile t of a rows × cols grid in grouped order, `group` tile rows at a time walked column by
/// column. The host's copy of tile_schedule::grouped.
GridPosition grouped_tile(std::int64_t t, std::int64_t rows, std::int64_t cols,
                          std::int64_t group);

/// Position of item c of n dealt round robin onto s columns laid end to end (a bijection of
/// [0, n); s ≤ 1 leaves c where it is). The host's copy of tile_schedule::dealt.
std::int64_t dealt_position(std::int64_t c, std::int64_t n, std::int64_t s);

}  // namespace gemmtune
