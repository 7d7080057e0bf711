// The tie rule: the fastest figure wins unless figures timed side by side lie within the noise
// band (kTieBand of the fastest); ties go to a vendor baseline first, then the smallest
// canonical id.
#include "src/core/tie_rule.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

namespace gemmtune {
namespace {

RankedFigure fig(std::string id, double ms, double lo = 0.0, double hi = 0.0,
                 bool side_by_side = true, bool vendor = false) {
  return RankedFigure{std::move(id), ms, lo, hi, vendor, side_by_side};
}

TEST(TieRule, BandIsOnePercentWhateverTheSpread) {
  // 0.9 % slower ties, 1.1 % slower does not, with a tight or a wide spread recorded.
  for (auto const [lo, hi] : {std::pair{0.0, 0.0}, {0.999, 1.001}, {0.80, 1.20}}) {
    std::vector<RankedFigure> const tie = {fig("z", 1.000, lo, hi), fig("a", 1.009)};
    EXPECT_EQ(tie[pick_with_ties(tie)].id, "a") << lo;
    std::vector<RankedFigure> const no = {fig("z", 1.000, lo, hi), fig("a", 1.011)};
    EXPECT_EQ(no[pick_with_ties(no)].id, "z") << lo;
  }
}

TEST(TieRule, ATieNeverCostsTheNeverLoseBound) {
  // cuBLAS 0.9 % behind the fastest cuBLASLt algorithm: the tie goes to cuBLAS, at ≥ 0.99×.
  std::vector<RankedFigure> const f = {
      fig("cublaslt:ALGO=66", 0.5251, 0.5242, 0.5303, true, true),
      fig("cublas:default", 0.5295, 0.5290, 0.5330, true, true)};
  std::size_t const pick = pick_with_ties(f);
  EXPECT_EQ(f[pick].id, "cublas:default");
  EXPECT_GE(f[0].time_ms / f[pick].time_ms, 0.99);
}

TEST(TieRule, ClearlyFastestWins) {
  std::vector<RankedFigure> const f = {fig("b", 1.00, 0.99, 1.01), fig("a", 1.05, 1.04, 1.06)};
  EXPECT_EQ(pick_with_ties(f), 0u);
}

TEST(TieRule, WithinTheBandTheSmallestIdWinsWhateverTheOrder) {
  std::vector<RankedFigure> f = {fig("mma:BM=128", 1.000, 0.99, 1.01),
                                 fig("mma:BM=064", 1.008, 1.00, 1.02),
                                 fig("wgmma:BM=128", 1.004, 0.99, 1.02)};
  EXPECT_EQ(f[pick_with_ties(f)].id, "mma:BM=064");
  // The noise falls the other way in a second search: the same winner.
  f[0].time_ms = 1.009;
  f[1].time_ms = 1.000;
  EXPECT_EQ(f[pick_with_ties(f)].id, "mma:BM=064");
}

TEST(TieRule, OutsideTheBandNoTie) {
  // 1.2% slower is not a tie.
  std::vector<RankedFigure> const f = {fig("z", 1.000), fig("a", 1.012)};
  EXPECT_EQ(f[pick_with_ties(f)].id, "z");
}

TEST(TieRule, VendorFirstAmongTies) {
  std::vector<RankedFigure> const f = {fig("a:BM=1", 1.000, 0.99, 1.01),
                                       fig("cublas:default", 1.005, 1.0, 1.01, true, true)};
  EXPECT_EQ(f[pick_with_ties(f)].id, "cublas:default");
}

TEST(TieRule, OnlyFiguresTimedSideBySideWinATie) {
  // An imported alternative (timed on its own) within the band does not displace the winner.
  std::vector<RankedFigure> const f = {fig("z", 1.000, 0.99, 1.01), fig("a", 1.002, 0, 0, false)};
  EXPECT_EQ(f[pick_with_ties(f)].id, "z");
  // It still wins by being the fastest.
  std::vector<RankedFigure> const g = {fig("z", 1.000, 0.99, 1.01), fig("a", 0.90, 0, 0, false)};
  EXPECT_EQ(g[pick_with_ties(g)].id, "a");
}

Trial trial(std::string const& id, double ms, int rounds) {
  Trial t;
  t.config = parse_kernel_id(id);
  t.time_ms = ms;
  t.spread_lo_ms = rounds > 0 ? ms * 0.99 : 0.0;
  t.spread_hi_ms = rounds > 0 ? ms * 1.01 : 0.0;
  t.spread_rounds = rounds;
  return t;
}

TEST(TieRule, PickTrialPrefersTheFinalReTime) {
  // A quick figure (one timing) reads faster than the re-timed ones; it does not decide.
  std::vector<Trial> const t = {trial("simt:V=5", 1.5, 1), trial("simt:V=9", 2.0, 6),
                                trial("simt:V=1", 2.01, 6), trial("simt:V=0", 2.1, 6)};
  EXPECT_EQ(t[pick_trial(t)].config.id(), "simt:V=1");  // V=9 and V=1 tie; the smaller id
  // Without any re-time the quick figures decide, by speed alone.
  std::vector<Trial> const q = {trial("simt:V=5", 1.5, 1), trial("simt:V=2", 1.501, 1)};
  EXPECT_EQ(q[pick_trial(q)].config.id(), "simt:V=5");
  EXPECT_THROW(pick_trial(std::vector<Trial>{}), std::invalid_argument);
}

TEST(TieRule, EmptyIsAnError) {
  EXPECT_THROW(pick_with_ties({}), std::invalid_argument);
}

}  // namespace
}  // namespace gemmtune
