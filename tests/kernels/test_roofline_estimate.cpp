// The roofline estimate: which families have one, and that it moves the way the hardware does
// (bytes through L2 for small tiles, requests merged within a group of SMs, multicast, waves and
// their refills, split-K filling idle SMs, shared-memory bound warp and wgmma tiles). How well it
// ranks measured configs is tested on the H200 data in tests/search/test_replay.cpp.
#include <gtest/gtest.h>

#include "src/kernels/family.hpp"
#include "src/kernels/roofline_estimate.hpp"

namespace gemmtune {
namespace {

DeviceLimits hopper() {
  DeviceLimits l = *arch_limits("sm_90a");
  l.sm_count = 132;
  return l;
}

Problem bf16(std::int64_t m, std::int64_t n, std::int64_t k) {
  return Problem{.m = m, .n = n, .k = k, .precision = Precision::kBF16, .layout = Layout::kNT}
      .resolved();
}

double clocks(std::string const& id, Problem const& p, DeviceLimits const& l = hopper()) {
  return roofline_clocks(parse_kernel_id(id), p, l);
}

std::string wgmma(int bm, int bn, int cw, int cl, int sk) {
  return "wgmma:BM=" + std::to_string(bm) + ",BN=" + std::to_string(bn) + ",ST=4,CW=" +
         std::to_string(cw) + ",CL=" + std::to_string(cl) + ",PE=0,GM=1,SK=" +
         std::to_string(sk) + ",EP=0";
}

}  // namespace

TEST(RooflineEstimate, OnlyFamiliesWithTraitsAndAKnownSmCountHaveOne) {
  Problem const p = bf16(1024, 1024, 1024);
  EXPECT_GT(clocks(wgmma(128, 128, 2, 1, 1), p), 0.0);
  EXPECT_GT(clocks("mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=3,SW=1,SK=1,CR=0", p), 0.0);
  Problem fp32 = p;
  fp32.precision = Precision::kFP32;
  EXPECT_GT(clocks("simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=0,CURE=0,ST=2,CP=0,SW=8,SK=1,RED=0",
                   fp32.resolved()),
            0.0);
  // The seed ladder's teaching kernels have no traits: their order is left to the search.
  EXPECT_EQ(clocks("naive:BM=32,BN=32", fp32.resolved()), 0.0);
  EXPECT_EQ(clocks("nosuchfamily:BM=1,BN=1", p), 0.0);
  DeviceLimits unknown = hopper();
  unknown.sm_count = 0;
  EXPECT_EQ(clocks(wgmma(128, 128, 2, 1, 1), p, unknown), 0.0);
}

TEST(RooflineEstimate, SmallTilesPayForTheirOperandTrafficOnALargeProblem) {
  // At 4096³ every tile shape has many waves; 64×64 tiles move four times the bytes per
  // multiply-add of 128×256 ones through L2.
  Problem const p = bf16(4096, 4096, 4096);
  EXPECT_LT(clocks(wgmma(128, 256, 2, 1, 1), p), 0.7 * clocks(wgmma(64, 64, 1, 1, 1), p));
}

TEST(RooflineEstimate, MulticastOfBCutsTheBytesOfAnL2BoundGrid) {
  Problem const p = bf16(1024, 1024, 1024);
  EXPECT_LT(clocks(wgmma(64, 128, 1, 2, 1), p), clocks(wgmma(64, 128, 1, 1, 1), p));
}

TEST(RooflineEstimate, BlocksOfOneSmGroupShareTheirTileRowOfA) {
  // 1537×1024×4096 in 128×128 tiles: 13 tile rows of 8 tiles, 104 blocks. A plain launch puts
  // 8 consecutive blocks on one group of SMs, here one tile row: the L2 sends its A tile once
  // and 8 B tiles, 9 of the 16 tiles the group receives, times the measured slack of 1.11.
  Problem const p = bf16(1537, 1024, 4096);
  RooflineBreakdown const r =
      roofline_breakdown(parse_kernel_id(wgmma(128, 128, 2, 1, 1)), p, hopper());
  double const received = 256.0 * 4096 * 2;  // one block's A and B bytes
  EXPECT_EQ(r.units, 104);
  EXPECT_NEAR(r.l2, 104 * received * 1.11 * 9.0 / 16.0 / (40.0 * 132), 1e-6);
  // Each SM's link still carries its own tiles whole.
  EXPECT_NEAR(r.link, received / 64.0, 1e-9);
}

TEST(RooflineEstimate, ClustersDealtOntoSmGroupsMergeWhatLaunchOrderScatters) {
  // Launch order puts clusters c, c + 8, ... on one group of SMs: over 9 unit columns, tiles
  // that share nothing. Dealt (PL=8), the clusters of a group take consecutive units, which
  // share tile rows of A. (Over 8 columns launch order would line a group up on one column.)
  Problem const p = bf16(1024, 1152, 1024);
  std::string const pair = wgmma(64, 128, 1, 2, 1);
  RooflineBreakdown const order = roofline_breakdown(parse_kernel_id(pair), p, hopper());
  RooflineBreakdown const dealt =
      roofline_breakdown(parse_kernel_id(pair + ",PL=8"), p, hopper());
  EXPECT_EQ(order.units, dealt.units);
  EXPECT_LT(dealt.l2, 0.9 * order.l2);
}

TEST(RooflineEstimate, SharedMemoryFeedCapsSmallWgmmaTiles) {
  // Per operand byte multiplied each wgmma reads 1/64 + 1/WN and TMA writes 1/BM + 1/BN, out
  // of 128 bytes a clock against 4096 multiplied: 128×256 keeps up, 128×128 needs 160 bytes.
  Problem const p = bf16(4096, 4096, 4096);
  Family const& w = *find_family("wgmma");
  auto rate = [&](std::string const& id) {
    return w.roofline_traits(parse_kernel_id(id), p).fma_per_clock;
  };
  EXPECT_DOUBLE_EQ(rate(wgmma(128, 256, 2, 1, 1)), 2048.0);
  EXPECT_DOUBLE_EQ(rate(wgmma(128, 128, 2, 1, 1)), 2048.0 * 128.0 / 160.0);
  EXPECT_DOUBLE_EQ(rate(wgmma(128, 64, 2, 1, 1)), 2048.0 * 128.0 / 224.0);
  // Two warpgroups splitting a 64-row tile's columns each read A for half the columns.
  EXPECT_LT(rate(wgmma(64, 256, 2, 1, 1)), rate(wgmma(64, 256, 1, 1, 1)));
}

TEST(RooflineEstimate, FreshBlocksPayForEveryWaveAfterTheFirst) {
  // 4096×4096×512 in 128×256 tiles: 512 tiles, 4 waves of 132. One tile per block (PE=0)
  // starts a fresh block for each, which a persistent grid's producer hides; pairs more so.
  Problem const p = bf16(4096, 4096, 512);
  std::string const plain = wgmma(128, 256, 2, 1, 1);
  std::string const pair = wgmma(128, 256, 2, 2, 1);
  auto persistent = [](std::string id) { return id.replace(id.find("PE=0"), 4, "PE=1"); };
  RooflineBreakdown const fresh = roofline_breakdown(parse_kernel_id(plain), p, hopper());
  RooflineBreakdown const kept =
      roofline_breakdown(parse_kernel_id(persistent(plain)), p, hopper());
  EXPECT_EQ(fresh.waves, 4);
  EXPECT_DOUBLE_EQ(fresh.start_up - kept.start_up, 3 * 2600.0);
  EXPECT_DOUBLE_EQ(roofline_breakdown(parse_kernel_id(pair), p, hopper()).start_up -
                       roofline_breakdown(parse_kernel_id(persistent(pair)), p, hopper()).start_up,
                   3 * 5600.0);
  // One wave has nothing to refill.
  Problem const one = bf16(1024, 1024, 4096);
  EXPECT_DOUBLE_EQ(roofline_breakdown(parse_kernel_id(plain), one, hopper()).start_up,
                   roofline_breakdown(parse_kernel_id(persistent(plain)), one, hopper()).start_up);
}

TEST(RooflineEstimate, OneMoreUnitThanTheSmsHoldStartsASecondWave) {
  // 128-row tiles over one 128-column tile row: 132 tiles are one wave, 133 two.
  std::string const id = wgmma(128, 128, 2, 1, 1);
  double const one = clocks(id, bf16(128 * 132, 128, 4096));
  double const two = clocks(id, bf16(128 * 133, 128, 4096));
  EXPECT_GT(two, 1.6 * one);
}

TEST(RooflineEstimate, SplitKFillsTheIdleSmsOfADeepNarrowProblem) {
  // 1024×1024 outputs over K = 16384: 32 tiles of 128×256 leave 100 SMs idle at SK = 1. At
  // SK = 4 the 128 slices keep every SM's tensor cores a quarter as long, but then move their
  // operands through L2 at its limit: about half the time.
  Problem const p = bf16(1024, 1024, 16384);
  double const whole = clocks(wgmma(128, 256, 2, 1, 1), p);
  EXPECT_LT(clocks(wgmma(128, 256, 2, 1, 4), p), 0.55 * whole);
  // Splitting past the SMs only adds partials and a reduce launch.
  EXPECT_GT(clocks(wgmma(128, 256, 2, 1, 8), p), clocks(wgmma(128, 256, 2, 1, 4), p));
}

TEST(RooflineEstimate, KSplitPairsCountAsSlicesThatSumOnChip) {
  // 1024×1024×16384 in 128×128 tiles: a pair per tile over half of K each is two slices of 64
  // tiles, as SK=2; instead of the partials' round trip through L2 one block's FP32 tile
  // crosses to the other at 16 bytes a clock.
  Problem const p = bf16(1024, 1024, 16384);
  RooflineBreakdown const pair = roofline_breakdown(
      parse_kernel_id(wgmma(128, 128, 2, 2, 1) + ",CA=2"), p, hopper());
  RooflineBreakdown const slices = roofline_breakdown(
      parse_kernel_id(wgmma(128, 128, 2, 1, 2)), p, hopper());
  EXPECT_EQ(pair.units, 128);
  EXPECT_EQ(pair.units, slices.units);
  EXPECT_DOUBLE_EQ(pair.compute, slices.compute);
  EXPECT_DOUBLE_EQ(pair.split_k, 4.0 * 128 * 128 / 16.0);
  EXPECT_GT(slices.split_k, pair.split_k);
}

TEST(RooflineEstimate, SmallWarpTilesAreBoundByTheirSharedMemoryReads) {
  Problem const p = bf16(4096, 4096, 4096);
  Family const& mma = *find_family("mma");
  double const small = mma.roofline_traits(
      parse_kernel_id("mma:BM=64,BN=64,BK=32,WM=16,WN=32,ST=3,SW=1,SK=1,CR=0"), p).fma_per_clock;
  double const large = mma.roofline_traits(
      parse_kernel_id("mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=3,SW=1,SK=1,CR=0"), p).fma_per_clock;
  EXPECT_LT(small, 0.6 * large);
  // wgmma's peak doubles for FP8 and halves for tf32.
  Family const& w = *find_family("wgmma");
  KernelConfig const cfg = parse_kernel_id(wgmma(128, 128, 2, 1, 1));
  Problem fp8 = p, tf32 = p;
  fp8.precision = Precision::kE4M3;
  tf32.precision = Precision::kTF32;
  double const base = w.roofline_traits(cfg, p).fma_per_clock;
  EXPECT_EQ(w.roofline_traits(cfg, fp8.resolved()).fma_per_clock, 2 * base);
  EXPECT_EQ(w.roofline_traits(cfg, tf32.resolved()).fma_per_clock, base / 2);
  EXPECT_EQ(w.roofline_traits(parse_kernel_id(wgmma(64, 128, 1, 2, 1)), p).b_shared_by, 2);
}

}  // namespace gemmtune
