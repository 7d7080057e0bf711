// Picking the GPU a cache or table query is about: --gpu NAME, or the only GPU there is.
#pragma once

#include <string>
#include <vector>

#include "src/core/gpu_identity.hpp"

namespace gemmtune {

/// The GPU among `gpus` whose description contains `wanted` (case-insensitive), or the only one
/// when `wanted` is empty. Throws Error (exit 3) naming the choices when none or several match.
GpuIdentity choose_gpu(std::vector<GpuIdentity> const& gpus, std::string const& wanted,
                       std::string const& where);

}  // namespace gemmtune
