// Range search planning: the first points, when neighbours agree, and where the next pass
// measures.
#include "tuner/search/range_plan.hpp"

#include "src/core/tie_rule.hpp"
#include "src/core/tuning_table.hpp"

#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

TEST(RangePlan, FirstPointsArePowersOfTwoBetweenTheEnds) {
  EXPECT_EQ(initial_range_points(1, 16), (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(initial_range_points(3, 40), (std::vector<std::int64_t>{3, 4, 8, 16, 32, 40}));
  EXPECT_EQ(initial_range_points(100, 120), (std::vector<std::int64_t>{100, 120}));
}

RangePoint point(std::int64_t m, std::string pick, std::map<std::string, double> times) {
  return RangePoint{m, std::move(pick), std::move(times)};
}

TEST(RangePlan, NeighboursAgreeOnOnePickOrWhenEitherServesBoth) {
  double const band = 0.01;
  EXPECT_TRUE(neighbours_agree(point(64, "a", {{"a", 1.0}}), point(128, "a", {{"a", 2.0}}), band));
  // b at 128 is within 1% of a there, and a at 64 within 1% of b: either serves both.
  EXPECT_TRUE(neighbours_agree(point(64, "a", {{"a", 1.0}, {"b", 1.005}}),
                               point(128, "b", {{"a", 2.01}, {"b", 2.0}}), band));
  // a is 5% slower at 128: they disagree.
  EXPECT_FALSE(neighbours_agree(point(64, "a", {{"a", 1.0}, {"b", 1.005}}),
                                point(128, "b", {{"a", 2.1}, {"b", 2.0}}), band));
  // Never measured at the other's M: they disagree.
  EXPECT_FALSE(neighbours_agree(point(64, "a", {{"a", 1.0}}), point(128, "b", {{"b", 2.0}}), band));
  // A point with nothing verified gives no reason to measure more.
  EXPECT_TRUE(neighbours_agree(point(64, "", {}), point(128, "b", {{"b", 2.0}}), band));
}

TEST(RangePlan, RefinesBetweenDisagreeingNeighboursWidestFirst) {
  std::vector<RangePoint> const points{
      point(1024, "d", {{"d", 4.0}}), point(1, "a", {{"a", 1.0}}), point(16, "a", {{"a", 1.0}}),
      point(256, "b", {{"b", 2.0}}), point(257, "c", {{"c", 2.0}})};
  // Sorted by M: 1-16 agree; 16-256 and 257-1024 disagree (ratios 16 and 3.98: midpoints 64
  // and 513); 256-257 disagree but are closer than the minimum ratio.
  EXPECT_EQ(refine_range_points(points, 0.01, 1.25, 8), (std::vector<std::int64_t>{64, 513}));
  // With room for one, the widest gap.
  EXPECT_EQ(refine_range_points(points, 0.01, 1.25, 1), (std::vector<std::int64_t>{64}));
  EXPECT_TRUE(refine_range_points(points, 0.01, 1.25, 0).empty());
  // Neighbours one apart hold no integer between them.
  EXPECT_TRUE(refine_range_points({point(1, "a", {{"a", 1.0}}), point(2, "b", {{"b", 1.0}})},
                                  0.01, 1.25, 8)
                  .empty());
}

TEST(RangePlan, PointOfTrialsTakesTheNewestOfEachConfigAndTheTieRulePick) {
  auto trial = [](std::string const& id, double ms, Disposition d) {
    Trial t;
    t.config = parse_kernel_id(id);
    t.time_ms = ms;
    t.disposition = d;
    t.spread_rounds = 6;
    return t;
  };
  // Newest first: simt:A's newest trial failed, so its older 0.5 ms does not count.
  RangePoint const p = range_point(
      512, {trial("simt:A=1", 0.0, Disposition::kWrongResult), trial("simt:B=1", 1.0, Disposition::kOk),
            trial("simt:A=1", 0.5, Disposition::kOk), trial("simt:C=1", 2.0, Disposition::kOk)});
  EXPECT_EQ(p.m, 512);
  EXPECT_EQ(p.pick, "simt:B=1");
  EXPECT_EQ(p.times, (std::map<std::string, double>{{"simt:B=1", 1.0}, {"simt:C=1", 2.0}}));
}

TEST(RangePlan, PointsTakeFewerRoundsAndRefinedOnesHalfTheTime) {
  SearchOptions o;
  o.retime_rounds = 6;
  o.budget.seconds = 4.0;
  o.retime_top = 3;
  SearchOptions const first = range_point_options(o);
  EXPECT_EQ(first.retime_rounds, kRangeRetimeRounds);
  EXPECT_EQ(first.budget.seconds, 4.0);
  EXPECT_EQ(first.retime_top, 3);
  SearchOptions const refined = refined_point_options(o);
  EXPECT_EQ(refined.retime_rounds, kRangeRetimeRounds);
  EXPECT_EQ(refined.budget.seconds, 2.0);
  o.budget.seconds = 1.5;
  EXPECT_EQ(refined_point_options(o).budget.seconds, 1.0);  // never under a second
  o.retime_rounds = 2;  // fewer asked for: kept
  EXPECT_EQ(range_point_options(o).retime_rounds, 2);
  o.budget = Budget{200, 0.0};  // an evaluation budget is kept as it is
  EXPECT_EQ(refined_point_options(o).budget.evaluations, 200);
  EXPECT_EQ(refined_point_options(o).budget.seconds, 0.0);
}

/// A measured point whose pick is `pick` (no other figures).
RangePoint point(std::int64_t m, std::string pick) {
  RangePoint p;
  p.m = m;
  p.pick = std::move(pick);
  return p;
}

TEST(RangePlan, TheMapGivesEachMTheNearestPointsPickAndMergesEqualNeighbours) {
  EXPECT_TRUE(range_map({}).empty());
  EXPECT_EQ(range_map({point(64, "a")}), (std::vector<RangeSpan>{{64, 64, "a"}}));
  // Given out of order; 16 and 64 agree, so their buckets join; the boundaries are geometric
  // means (16·64 → 32, 64·1024 → 256), as the exported buckets draw them.
  std::vector<RangeSpan> const map =
      range_map({point(1024, "b"), point(16, "a"), point(64, "a"), point(4096, "")});
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map[0].m_lo, 16);
  EXPECT_EQ(map[0].pick, "a");
  EXPECT_EQ(map[1].m_lo, map[0].m_hi + 1);
  EXPECT_EQ(map[1].pick, "b");
  EXPECT_EQ(map[2].pick, "");
  EXPECT_EQ(map[2].m_hi, 4096);
  EXPECT_EQ(map[1].m_hi + 1, map[2].m_lo);
  std::vector<TableRangeBucket> const b = range_buckets({16, 64, 1024, 4096});
  EXPECT_EQ(map[0].m_hi, b[1].m_hi);  // two buckets merged
  EXPECT_EQ(range_map_text({{1, 45, "cublas:default"}, {46, 16384, "wgmma:BM=128,BN=256"}, {16385, 20000, ""}}, 9),
            "1-45 cublas:de… | 46-16384 wgmma:BM=… | 16385-20000 -");
}

TEST(RangePlan, VendorPicksGetProbedBetweenPointsThatAgree) {
  std::string const lt = "cublaslt:ALGO=66,TILE=10,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=3,INNER=0,CLUSTER=5,COMPUTE=0";
  // Ours on both sides: no probe. Ours beside a vendor call: the vendor's pick alone. cuBLAS
  // on both sides: one pick. cuBLAS and cuBLASLt: both picks. Closer than 1.25× in M: none.
  std::vector<RangePoint> const points = {point(1, "wgmma:BM=64"),    point(4, "wgmma:BM=128"),
                                          point(64, "cublas:default"), point(128, "cublas:default"),
                                          point(512, lt),              point(1024, "wgmma:BM=128"),
                                          point(1100, "cublas:default")};
  std::vector<VendorProbe> const probes = vendor_probe_points(points, kRangeMinRatio, 10);
  ASSERT_EQ(probes.size(), 4u);
  EXPECT_EQ(probes[0].m, 16);  // √(4·64)
  EXPECT_EQ(probes[0].picks, std::vector<std::string>{"cublas:default"});
  EXPECT_EQ(probes[1].m, 91);  // √(64·128) = 90.5
  EXPECT_EQ(probes[1].picks, std::vector<std::string>{"cublas:default"});
  EXPECT_EQ(probes[2].m, 256);
  EXPECT_EQ(probes[2].picks, (std::vector<std::string>{"cublas:default", lt}));
  EXPECT_EQ(probes[3].m, 724);
  EXPECT_EQ(probes[3].picks, std::vector<std::string>{lt});
  // The widest gaps first when the room is short: 4 → 64 is 16×, 128 → 512 4×.
  std::vector<VendorProbe> const two = vendor_probe_points(points, kRangeMinRatio, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].m, 16);
  EXPECT_EQ(two[1].m, 256);

  EXPECT_TRUE(probe_needs_point(14.0, 13.0, kTieBand));    // M = 96 of the regret run: 7% slower
  EXPECT_FALSE(probe_needs_point(13.1, 13.0, kTieBand));   // inside the band
  EXPECT_FALSE(probe_needs_point(14.0, 0.0, kTieBand));    // no vendor figure: nothing to judge
  EXPECT_TRUE(probe_needs_point(std::numeric_limits<double>::infinity(), 13.0, kTieBand));
}

}  // namespace
}  // namespace gemmtune
