// Warm start: a new shape begins with the best configs of the nearest shapes already tuned on
// the same GPU and precision, because the best tiling moves slowly with the shape.
#pragma once

#include <vector>

#include "src/core/problem.hpp"
#include "src/core/trial_store.hpp"

namespace gemmtune {

/// A tuned problem and its fastest configs, fastest first.
struct TunedProblem {
  Problem problem;
  std::vector<KernelConfig> best;
};

struct WarmStartOptions {
  int neighbours = 3;     ///< nearest tuned problems used
  int per_neighbour = 3;  ///< best configs taken from each
};

/// Distance between shapes in log space (|log2 m − log2 m'| + … for n and k), plus 1 when the
/// layouts differ: a 2× change of one dimension weighs as much as a layout change.
double shape_distance(Problem const& a, Problem const& b);

/// The best configs of the problems nearest to `target` (same precision; `target` itself is
/// skipped), nearest problem first, each config once.
std::vector<KernelConfig> warm_start_from(Problem const& target,
                                          std::vector<TunedProblem> const& tuned,
                                          WarmStartOptions const& options = {});

/// Valid stand-ins for a warm-start config that is not valid for the new problem: the configs of
/// `candidates` that differ from it in exactly one parameter, in candidate order, at most
/// `limit`. A neighbour's best often fails on a new shape by one knob only (raster groups on a
/// grid of one tile row, a split the new K cannot take), and its other choices still carry.
std::vector<KernelConfig> one_step_valid(KernelConfig const& config,
                                         std::vector<KernelConfig> const& candidates, int limit);

/// The same over a cache: problems of `gpu` in `target`'s precision with a verified trial
/// (TrialStore::tuned_problems), their fastest configs from the newest trial of each config.
std::vector<KernelConfig> warm_start_configs(TrialStore& store, GpuIdentity const& gpu,
                                             Problem const& target,
                                             WarmStartOptions const& options = {});

}  // namespace gemmtune
