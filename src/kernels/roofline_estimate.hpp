// The roofline estimate: a config's time on a problem predicted from its tile grid, before
// anything is compiled or run. Good enough to rank configs of one problem (which to time
// first), not to stand in for a measurement.
#pragma once

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// Predicted time of `cfg` on `problem` on a device with `limits`, in SM clocks; 0 when there is
/// no estimate (a family without roofline traits, a config without BM and BN, an unknown SM
/// count). The work units (tiles × split-K slices) run in waves of as many as the SMs hold at
/// once; a wave lasts as long as the slowest of three: one SM's multiply-adds at the config's
/// peak rate, the operand bytes of the whole wave through L2, and one SM's own operand bytes
/// through its L2 link. Split-K adds its partials' round trip through L2 and the sum's launch
/// or hand-over; every launch adds a fixed start-up.
double roofline_clocks(KernelConfig const& cfg, Problem const& problem, DeviceLimits const& limits);

}  // namespace gemmtune
