// The seed's settings per stage: 32×32 blocks for stages 1-3, 64×64×8 with TM=8 for stage 4,
// 128×128×8 with 8×8 thread tiles for stages 5-6, and the worklog's warptile configuration.
#include "src/kernels/ladder_presets.hpp"

#include "src/core/kernel_config.hpp"
#include "src/kernels/ladder_families.hpp"

namespace gemmtune {

std::vector<LadderPreset> ladder_presets() {
  struct Row {
    char const* display;
    Family const& family;
    char const* id;
  };
  Row const rows[] = {
      {"1 naive", naive_family(), "naive:BM=32,BN=32"},
      {"2 coalesced", coalesced_family(), "coalesced:BM=32,BN=32"},
      {"3 smem_tiled", smem_tiled_family(), "smem_tiled:BM=32,BN=32,BK=32"},
      {"4 blocktile_1d", blocktile_1d_family(), "blocktile_1d:BM=64,BN=64,BK=8,TM=8"},
      {"5 blocktile_2d", blocktile_2d_family(), "blocktile_2d:BM=128,BN=128,BK=8,TM=8,TN=8"},
      {"6 vectorized", vectorized_family(), "vectorized:BM=128,BN=128,BK=8,TM=8,TN=8"},
      {"7 warptile", warptile_family(),
       "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128"},
  };
  std::vector<LadderPreset> out;
  for (Row const& r : rows) {
    out.push_back({r.display, &r.family, r.family.canonical(parse_kernel_id(r.id))});
  }
  return out;
}

}  // namespace gemmtune
