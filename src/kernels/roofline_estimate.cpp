// roofline_breakdown() and roofline_clocks() (see roofline_estimate.hpp).
#include "src/kernels/roofline_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "src/kernels/family.hpp"

namespace gemmtune {
namespace {

// Hopper's figures per SM and clock, so that the estimate needs no clock rate. They set the
// balance between the three limits, which is what ranks configs.
/// L2 to SM bandwidth shared by all SMs: 40 bytes per SM and clock, 9.3 TB/s over 132 SMs at
/// 1.755 GHz. Measured kernels drew at least that much: our 128×64 tiles at 1024³ bf16 on the
/// H200 moved 50 MB of operands in 8.5 µs (7.7 TB/s after 2 µs of start-up,
/// tests/data/replay), and cuBLASLt at 256×4096×4096, its TILE and CLUSTER ids read as 64×128
/// tiles in 2-block clusters, about 134 MB in 16.4 µs (9.3 TB/s;
/// bench/results/2026-12-03-h200-bf16-gen-all.md).
constexpr double kL2BytesPerSmClock = 40.0;
/// Split-K partials' round trip (written by every slice, read back by the sum): 12 bytes per SM
/// and clock, 2.8 TB/s. They are written after the operands have filled L2 and are read once,
/// so they move at about memory's rate, not L2's: on an H100 (bench/results/2026-12-07-h100-
/// swapped-operands-reduce-and-search.md) 200x8192x28672 with 13 MB of partials, each written
/// and read once, ran 12.9 µs behind the same tiles summed on chip.
constexpr double kPartialBytesPerSmClock = 12.0;
/// The share of a multicast's ideal saving of L2 traffic the estimate credits: half. ncu on an
/// H100 (bench/results/2026-12-06-h100-multicast-feed.md) found our pairs' L2 sending no fewer
/// sectors than without multicast, and the vendor's pairs about 30% faster than its unclustered
/// tiles; half the ideal credit also ranked the stored bf16 searches better in replay
/// (2026-12-07-replay-partials-rate.md), where no credit ranked them worse.
constexpr double kMulticastCredit = 0.5;
/// What one SM's link takes from L2 at most.
constexpr double kSmLinkBytesPerClock = 64.0;
/// A launch's start-up and the last wave's drain, about 2 µs.
constexpr double kLaunchClocks = 3500.0;
/// Split-K summed by the tile's last slice (a counter and a read-back), about 0.8 µs.
constexpr double kLastSliceSumClocks = 1400.0;
/// Split-K summed by a second kernel, about 1.5 µs.
constexpr double kReduceKernelClocks = 2600.0;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// How many times fewer bytes of an operand the L2 sends when `shared_by` blocks share its tile.
double multicast_saving(std::int64_t shared_by) {
  return 1.0 + kMulticastCredit * static_cast<double>(shared_by - 1);
}

}  // namespace

char const* RooflineBreakdown::bound() const {
  if (compute >= l2 && compute >= link) return "compute";
  return l2 >= link ? "L2" : "link";
}

RooflineBreakdown roofline_breakdown(KernelConfig const& cfg, Problem const& problem,
                                     DeviceLimits const& limits) {
  Family const* family = find_family(cfg.family);
  return family ? roofline_breakdown(*family, cfg, problem, limits) : RooflineBreakdown{};
}

RooflineBreakdown roofline_breakdown(Family const& family, KernelConfig const& cfg,
                                     Problem const& problem, DeviceLimits const& limits) {
  RooflineBreakdown r;
  Problem const tiled = family.tile_problem(cfg, problem);  // M and N as the tiles walk them
  int const sms = limits.sm_count;
  if (sms < 1 || problem.m < 1 || problem.n < 1 || problem.k < 1) return r;
  auto const bm = cfg.get("BM"), bn = cfg.get("BN");
  if (!bm || !bn || *bm < 1 || *bn < 1 || family.threads(cfg) < 1) return r;
  RooflineTraits const traits = family.roofline_traits(cfg, problem);
  if (!(traits.fma_per_clock > 0)) return r;
  std::int64_t const share_a = std::max(1, traits.a_shared_by);
  std::int64_t const share_b = std::max(1, traits.b_shared_by);
  std::int64_t const split = std::max<std::int64_t>(1, cfg.get("SK").value_or(1));
  std::int64_t const sk = split * std::max(1, traits.k_split);  // slices of K in all
  // Blocks sharing B come in groups along M, blocks sharing A along N: a group's last tiles may
  // lie past the matrix.
  std::int64_t const tiles_m = ceil_div(ceil_div(tiled.m, *bm), share_b) * share_b;
  std::int64_t const tiles_n = ceil_div(ceil_div(tiled.n, *bn), share_a) * share_a;
  r.units = static_cast<double>(tiles_m * tiles_n * sk);
  double const slots =
      static_cast<double>(sms) * resident_blocks(family, cfg, problem, limits);
  r.waves = std::ceil(r.units / slots);
  double const running = std::min(r.units, slots);  // units of one full wave
  double const per_sm = std::ceil(running / sms);   // of them on one SM
  double const k_slice = static_cast<double>(ceil_div(problem.k, sk));
  double const bytes = input_bytes(problem.precision);
  double const unit_bytes =
      (static_cast<double>(*bm) / multicast_saving(share_a) +
       static_cast<double>(*bn) / multicast_saving(share_b)) *
      k_slice * bytes;
  r.compute = per_sm * static_cast<double>(*bm) * static_cast<double>(*bn) * k_slice /
              traits.fma_per_clock;
  r.l2 = running * unit_bytes / (kL2BytesPerSmClock * sms);
  r.link = per_sm * unit_bytes / kSmLinkBytesPerClock;
  r.start_up = kLaunchClocks;
  if (split > 1 && !traits.split_sums_on_chip) {
    // Every slice writes its FP32 partials and the sum reads them back.
    double const partials = 2.0 * 4.0 * static_cast<double>(problem.m) *
                            static_cast<double>(problem.n) * static_cast<double>(split);
    r.split_k = partials / (kPartialBytesPerSmClock * sms) +
                (last_slice_sums(split) ? kLastSliceSumClocks : kReduceKernelClocks);
  }
  r.total = r.waves * std::max({r.compute, r.l2, r.link}) + r.start_up + r.split_k;
  return r;
}

double roofline_clocks(KernelConfig const& cfg, Problem const& problem,
                       DeviceLimits const& limits) {
  return roofline_breakdown(cfg, problem, limits).total;
}

}  // namespace gemmtune
