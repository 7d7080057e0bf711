// The seven seed-ladder families, one descriptor each (naive.cpp ... warptile.cpp), in ladder
// order. The registry (family.cpp) lists them; nothing else needs these accessors.
#pragma once

#include "src/kernels/family.hpp"

namespace gemmtune {

Family const& naive_family();
Family const& coalesced_family();
Family const& smem_tiled_family();
Family const& blocktile_1d_family();
Family const& blocktile_2d_family();
Family const& vectorized_family();
Family const& warptile_family();

}  // namespace gemmtune
