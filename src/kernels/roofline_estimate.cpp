// roofline_breakdown() and roofline_clocks() (see roofline_estimate.hpp).
#include "src/kernels/roofline_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "src/kernels/family.hpp"
#include "src/kernels/launch_order.hpp"

namespace gemmtune {
namespace {

// Hopper's figures per SM and clock, so that the estimate needs no clock rate. They set the
// balance between the three limits, which is what ranks configs.
/// What the L2 sends, after merging (kSmGroups), shared by all SMs: 40 bytes per SM and clock,
/// 9.3 TB/s over 132 SMs at 1.755 GHz. ncu on an H100 put the peak of the L2's path to the
/// request coalescer at about 8.8 TB/s (13.3 M sectors at 67.8% of peak in 71.6 µs,
/// bench/results/2026-12-06-h100-k-split-pairs.md).
constexpr double kL2BytesPerSmClock = 40.0;
/// Split-K partials' round trip (written by every slice, read back by the sum): 12 bytes per SM
/// and clock, 2.8 TB/s. They are written after the operands have filled L2 and are read once,
/// so they move at about memory's rate, not L2's: on an H100 (bench/results/2026-12-07-h100-
/// swapped-operands-reduce-and-search.md) 200x8192x28672 with 13 MB of partials, each written
/// and read once, ran 12.9 µs behind the same tiles summed on chip.
constexpr double kPartialBytesPerSmClock = 12.0;
/// A K-split pair's hand-over of FP32 partials through distributed shared memory: 16 bytes a
/// clock, fitted to two H100 pairs against the whole tile half as wide on as many blocks
/// (bench/results/2026-12-06-h100-k-split-pairs.md, 2026-12-07-h100-slice-sum-and-suites.md):
/// 1024^3 128x128 pair 8.7 us against 128x64 7.5 us; 1537x1024x4096 128x256 pair 29.6 us in a
/// search against 128x128 25.5 us under ncu. Without the hand-over the estimate put the pairs
/// 2-4k clocks ahead; the fit charges 4.1k and 8.2k clocks for their 64 and 128 KB.
constexpr double kHandOverBytesPerClock = 16.0;
/// What one SM's link takes from L2 at most.
constexpr double kSmLinkBytesPerClock = 64.0;
/// The L2 serves a sector once to the SMs of one group that ask for it at about the same
/// time. On an H100 (bench/results/2026-12-06-h100-k-split-pairs.md, placement probe) a plain
/// launch puts 8 consecutive blocks on one group of SMs, and a clustered one deals its
/// clusters round robin over 8 groups.
constexpr int kSmGroups = 8;
constexpr int kBlocksPerSmGroup = 8;
/// Measured sends over the ideal of perfect merging within each group, over eight wgmma
/// layouts at 1024x1024x16384 (same write-up): 0.92-1.26, mean 1.11.
constexpr double kMergeSlack = 1.11;
/// A launch's start-up and the last wave's drain, about 2 µs.
constexpr double kLaunchClocks = 3500.0;
/// Split-K summed by the tile's last slice (a counter and a read-back), about 0.8 µs.
constexpr double kLastSliceSumClocks = 1400.0;
/// Split-K summed by a second kernel, about 1.5 µs.
constexpr double kReduceKernelClocks = 2600.0;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The bytes the L2 sends for one wave over the bytes its SMs receive, when each group of SMs'
/// requests for the same operand tile (rows of A or columns of B, same part of K) merge:
/// `blocks` blocks in launch order over a grid of units_m × units_n units × `slices`, A and B
/// tiles weighing `a_weight` and `b_weight`.
double merged_share(RooflineTraits const& t, std::int64_t units_m, std::int64_t units_n,
                    std::int64_t slices, std::int64_t blocks, double a_weight,
                    double b_weight) {
  std::int64_t const cl = std::max({1, t.a_shared_by, t.b_shared_by, t.k_split});
  std::int64_t const per_slice = units_m * units_n;
  std::int64_t const clusters = std::min(blocks / cl, per_slice * slices);
  if (clusters < 1) return 1.0;
  std::int64_t const run = t.dealt_run > 0 ? t.dealt_run : clusters;
  // A key per requested tile: operand, index along its dimension, part of K.
  std::map<std::int64_t, std::set<std::tuple<int, std::int64_t, std::int64_t>>> groups;
  for (std::int64_t c = 0; c < clusters; ++c) {
    std::int64_t const base = c - c % run;
    std::int64_t const u =
        base + dealt_position(c - base, std::min(run, clusters - base), t.dealt_groups);
    GridPosition const unit =
        grouped_tile(u % per_slice, units_m, units_n, std::max(1, t.raster_group));
    std::int64_t const slice = u / per_slice;
    for (std::int64_t r = 0; r < cl; ++r) {
      std::int64_t const tm = t.b_shared_by > 1 ? unit.row * cl + r : unit.row;
      std::int64_t const tn = t.a_shared_by > 1 ? unit.col * cl + r : unit.col;
      std::int64_t const part = slice * cl + (t.k_split > 1 ? r : 0);
      auto& keys = groups[cl > 1 ? c % kSmGroups : c / kBlocksPerSmGroup];
      keys.insert({0, tm, part});
      keys.insert({1, tn, part});
    }
  }
  double sent = 0.0;
  for (auto const& [group, keys] : groups) {
    for (auto const& key : keys) sent += std::get<0>(key) == 0 ? a_weight : b_weight;
  }
  double const received = static_cast<double>(clusters * cl) * (a_weight + b_weight);
  return std::min(1.0, kMergeSlack * sent / received);
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
  // What one block's SM receives: its whole tiles, multicast or not.
  double const received = static_cast<double>(*bm + *bn) * k_slice * bytes;
  r.compute = per_sm * static_cast<double>(*bm) * static_cast<double>(*bn) * k_slice /
              traits.fma_per_clock;
  // What the L2 sends: each group of SMs' distinct tiles once where the launch order is known,
  // else every block's own.
  double const share =
      traits.raster_group > 0
          ? merged_share(traits, tiles_m / share_b, tiles_n / share_a, split,
                         static_cast<std::int64_t>(running), static_cast<double>(*bm),
                         static_cast<double>(*bn))
          : 1.0;
  r.l2 = running * received * share / (kL2BytesPerSmClock * sms);
  r.link = per_sm * received / kSmLinkBytesPerClock;
  r.start_up = kLaunchClocks + (r.waves - 1) * traits.refill_clocks;
  if (split > 1 && !traits.split_sums_on_chip) {
    // Every slice writes its FP32 partials and the sum reads them back.
    double const partials = 2.0 * 4.0 * static_cast<double>(problem.m) *
                            static_cast<double>(problem.n) * static_cast<double>(split);
    r.split_k = partials / (kPartialBytesPerSmClock * sms) +
                (last_slice_sums(split) ? kLastSliceSumClocks : kReduceKernelClocks);
  }
  if (traits.k_split > 1) {
    // The pair's hand-over: after both main loops, one block's FP32 tile crosses to the other
    // through distributed shared memory, once per wave of units.
    r.split_k += r.waves * 4.0 * static_cast<double>(*bm) * static_cast<double>(*bn) *
                 static_cast<double>(traits.k_split - 1) / kHandOverBytesPerClock;
  }
  r.total = r.waves * std::max({r.compute, r.l2, r.link}) + r.start_up + r.split_k;
  return r;
}

double roofline_clocks(KernelConfig const& cfg, Problem const& problem,
                       DeviceLimits const& limits) {
  return roofline_breakdown(cfg, problem, limits).total;
}

}  // namespace gemmtune
