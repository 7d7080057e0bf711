// Split to fill: a warm-start config re-split along K so that its grid covers the GPU. The
// best tile moves slowly with the shape, but the split does not: a tile carried from a square
// shape to a skinny one (M = 128, or 1024² outputs over K = 16384) leaves most SMs idle at its
// own SK, and the evolution reaches a far SK only step by step.
#pragma once

#include <vector>

#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// For each config of `warm` that has an "SK" parameter and whose main launch has fewer than
/// `sm_count` blocks on `problem`: among the configs of `candidates` that differ from it only in
/// SK, the one whose main launch fills its waves of `sm_count` blocks best (blocks over waves ×
/// sm_count; the smaller SK on a tie). Configs already in `warm` and repeats are left out;
/// nothing when sm_count ≤ 0 (no device).
std::vector<KernelConfig> split_to_fill(std::vector<KernelConfig> const& warm,
                                        std::vector<KernelConfig> const& candidates,
                                        Problem const& problem, int sm_count);

}  // namespace gemmtune
