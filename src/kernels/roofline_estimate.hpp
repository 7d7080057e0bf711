// The roofline estimate: a config's time on a problem predicted from its tile grid, before
// anything is compiled or run. Good enough to rank configs of one problem (which to time
// first), not to stand in for a measurement.
#pragma once

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// SMs an estimate without a device assumes (the arch table knows none): an H100 or H200.
inline constexpr int kAssumedSmCount = 132;

/// Predicted time of `cfg` on `problem` on a device with `limits`, in SM clocks; 0 when there is
/// no estimate (a family without roofline traits, a config without BM and BN, an unknown SM
/// count). The work units (tiles × split-K slices) run in waves of as many as the SMs hold at
/// once; a wave lasts as long as the slowest of three: one SM's multiply-adds at the config's
/// rate (its peak, or what shared memory can feed), the bytes the L2 sends for the whole wave
/// (each group of SMs' distinct operand tiles once, where the family tells its launch order),
/// and one SM's own operand bytes through its L2 link. Split-K adds its partials' round trip
/// through L2 and the sum's launch, a K-split pair its hand-over through distributed shared
/// memory; every launch adds a fixed start-up, and each wave after the first what a fresh block
/// loses before its first k block where the family states it (RooflineTraits::refill_clocks).
double roofline_clocks(KernelConfig const& cfg, Problem const& problem, DeviceLimits const& limits);

/// The terms behind roofline_clocks(), to say what bounds a config on a problem. All in SM
/// clocks; `total` is 0 when there is no estimate (then the rest is 0 too).
struct RooflineBreakdown {
  double units = 0;     ///< work units: tiles (rounded up to whole clusters) × split-K slices
  double waves = 0;     ///< of as many units as the SMs hold at once
  double compute = 0;   ///< one wave: one SM's multiply-adds at the config's peak rate
  double l2 = 0;        ///< one wave: the operand bytes the L2 sends (merged within SM groups)
  double link = 0;      ///< one wave: one SM's operand bytes through its link
  double start_up = 0;  ///< once per launch, and the refills of later waves
  double split_k = 0;   ///< partials through L2 and the sum's launch, or a pair's hand-over
  double total = 0;     ///< waves · max(compute, l2, link) + start_up + split_k
  /// "compute", "L2" or "link": the largest of the three per-wave terms.
  char const* bound() const;
};
/// The terms of roofline_clocks() for `cfg` on `problem` (its family looked up by name).
RooflineBreakdown roofline_breakdown(KernelConfig const& cfg, Problem const& problem,
                                     DeviceLimits const& limits);

class Family;
/// The same for a config of `family`, which need not be in the registry.
RooflineBreakdown roofline_breakdown(Family const& family, KernelConfig const& cfg,
                                     Problem const& problem, DeviceLimits const& limits);

}  // namespace gemmtune
