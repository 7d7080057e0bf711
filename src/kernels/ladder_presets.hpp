// The fixed configs `gemmtune ladder` runs: one representative of each seed stage (the
// worklog's own settings), in ladder order.
#pragma once

#include <string>
#include <vector>

#include "src/kernels/family.hpp"

namespace gemmtune {

/// One ladder stage.
struct LadderPreset {
  std::string display_name;  ///< "1 naive", "2 coalesced", ...
  Family const* family = nullptr;
  KernelConfig config;       ///< canonical
};

/// The seven stages, naive first.
std::vector<LadderPreset> ladder_presets();

}  // namespace gemmtune
