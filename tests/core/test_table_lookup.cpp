// The lookup fallback chain: each rule hit, the alignment rule, and the explanations.
#include "src/core/table_lookup.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

GpuIdentity h200() { return {"NVIDIA H200", 9, 0, 132}; }
GpuIdentity h200_cut() { return {"NVIDIA H200", 9, 0, 114}; }
GpuIdentity h100() { return {"NVIDIA H100 80GB HBM3", 9, 0, 132}; }
GpuIdentity l4() { return {"NVIDIA L4", 8, 9, 58}; }

Problem shape(std::int64_t m, std::int64_t n, std::int64_t k, int align,
              Precision p = Precision::kFP32, Layout l = Layout::kNN) {
  Problem x;
  x.m = m;
  x.n = n;
  x.k = k;
  x.align = align;
  x.precision = p;
  x.layout = l;
  return x;
}

KernelConfig kernel(std::string const& id) { return parse_kernel_id(id); }

// H200: fp32 NN entries at 4096³ a16 (A), 1024³ a16 (B), 1000³ a4 (C), defaults a16 (D16) and
// a4 (D4); fp32 NT only defaults a4 (F) and a16 (G). H100: fp32 NN default (E) and tf32 NN
// default (T). Nothing for L4.
TuningTable table() {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  b.add_entry(h200(), shape(4096, 4096, 4096, 16), kernel("simt:V=1"), 2.5, 55, 3.0, 2.6);
  b.add_entry(h200(), shape(1024, 1024, 1024, 16), kernel("simt:V=2"), 0.05, 43, std::nullopt,
              std::nullopt);
  b.add_entry(h200(), shape(1000, 1000, 1000, 4), kernel("simt:V=3"), 0.06, 33, std::nullopt,
              std::nullopt);
  b.add_default(h200(), Precision::kFP32, Layout::kNN, 16, kernel("simt:D=16"), 0.95, 2);
  b.add_default(h200(), Precision::kFP32, Layout::kNN, 4, kernel("simt:D=4"), 0.9, 3);
  b.add_default(h200(), Precision::kFP32, Layout::kNT, 4, kernel("simt:F=4"), 0.8, 3);
  b.add_default(h200(), Precision::kFP32, Layout::kNT, 16, kernel("simt:G=16"), 0.85, 2);
  b.add_default(h100(), Precision::kFP32, Layout::kNN, 16, kernel("simt:E=1"), 0.9, 4);
  b.add_default(h100(), Precision::kTF32, Layout::kNN, 16, kernel("mma:T=1"), 0.9, 4);
  return b.build();
}

class Lookup : public testing::Test {
 protected:
  TableIndex index{table()};
};

// The nearest rule with a cost model: each kernel measured on the nearest tuned shapes (winner
// and alternatives) is priced on the asked shape, and the cheapest prediction wins.
TEST(LookupCostModel, PicksTheKernelPredictedFastestOnTheAskedShape) {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  // 4096³: the big-tile kernel W won (1.0 ms); the small-tile S was 0.8 as fast there.
  b.add_entry(h200(), shape(4096, 4096, 4096, 16), kernel("simt:T=256"), 1.0, 100, std::nullopt,
              std::nullopt, {{kernel("simt:T=64"), 0.8}});
  TableIndex const index{b.build()};
  // A made-up cost: on the asked 1024³ the big tile fills a tenth of the GPU, so its cost
  // barely drops, while the small tile's drops with the work (64×).
  KernelCost const cost = [](KernelConfig const& k, Problem const& q) {
    double const work = static_cast<double>(q.m) * static_cast<double>(q.n) * static_cast<double>(q.k);
    return k.at("T") == 256 ? (q.m == 4096 ? work : work * 16) : work;
  };
  LookupResult const r = index.lookup(h200(), shape(1024, 1024, 1024, 16), {}, cost);
  ASSERT_EQ(r.rule, LookupRule::kNearest);
  ASSERT_TRUE(r.kernel);
  EXPECT_EQ(r.kernel->id(), "simt:T=64");
  EXPECT_NEAR(r.predicted_ms, 1.0 / 0.8 / 64, 1e-12);
  EXPECT_NE(r.explanation.find("predicted fastest"), std::string::npos) << r.explanation;
  // Without a model: the nearest shape's winner, as before.
  EXPECT_EQ(index.lookup(h200(), shape(1024, 1024, 1024, 16)).kernel->id(), "simt:T=256");
  // A kernel the filter refuses is never offered; one the model cannot price is not compared.
  KernelFilter const no_small = [](KernelConfig const& k, Problem const&) {
    return k.at("T") == 64 ? std::string("refused") : std::string();
  };
  EXPECT_EQ(index.lookup(h200(), shape(1024, 1024, 1024, 16), no_small, cost).kernel->id(),
            "simt:T=256");
  KernelCost const unknown = [](KernelConfig const&, Problem const&) { return 0.0; };
  LookupResult const u = index.lookup(h200(), shape(1024, 1024, 1024, 16), {}, unknown);
  EXPECT_EQ(u.kernel->id(), "simt:T=256");
  EXPECT_EQ(u.predicted_ms, 0.0);
}


// The chain knows the vendor: an exact vendor pick is the answer; on an untuned shape our kernel
// is offered only when predicted (or measured, without a model) faster than cuBLAS by more than
// kVendorMargin, else cuBLAS.
TEST(LookupVendor, ExactVendorPickIsTheAnswer) {
  TuningTableBuilder b("2026-12-02T00:00:00Z");
  KernelConfig const lt = kernel(
      "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0");
  b.add_entry(h200(), shape(4096, 4096, 4096, 16), lt, 1.0, 100, 1.05, 1.0, {}, std::nullopt,
              std::nullopt, "13.1.0");
  TableIndex const index{b.build()};
  LookupResult const r = index.lookup(h200(), shape(4096, 4096, 4096, 16));
  EXPECT_EQ(r.rule, LookupRule::kExact);
  EXPECT_EQ(r.kernel->id(), lt.id());
  // Nearby, a neighbour's cuBLASLt algorithm is not carried over: cuBLAS.
  LookupResult const n = index.lookup(h200(), shape(4000, 4096, 4096, 16));
  EXPECT_EQ(n.rule, LookupRule::kNearest);
  EXPECT_EQ(n.kernel->id(), "cublas:default");
}

TEST(LookupVendor, NearestTakesOursOnlyBeyondTheMargin) {
  auto index_with = [](double ours_ms, double cublas_ms) {
    TuningTableBuilder b("2026-12-02T00:00:00Z");
    b.add_entry(h200(), shape(4096, 4096, 4096, 16), kernel("simt:T=256"), ours_ms, 100,
                cublas_ms, std::nullopt);
    return TableIndex{b.build()};
  };
  Problem const asked = shape(2048, 4096, 4096, 16);
  // Measured on the nearest shape, without a model.
  EXPECT_EQ(index_with(1.0, 1.01).lookup(h200(), asked).kernel->id(), "cublas:default");
  EXPECT_EQ(index_with(1.0, 1.10).lookup(h200(), asked).kernel->id(), "simt:T=256");
  // With a model that scales with the work, the prediction is compared with cuBLAS's figure
  // carried over by work.
  KernelCost const work = [](KernelConfig const&, Problem const& q) {
    return static_cast<double>(q.m) * static_cast<double>(q.n) * static_cast<double>(q.k);
  };
  LookupResult const tie = index_with(1.0, 1.01).lookup(h200(), asked, {}, work);
  EXPECT_EQ(tie.kernel->id(), "cublas:default");
  EXPECT_NEAR(tie.predicted_ms, 1.01 / 2, 1e-12);
  EXPECT_NE(tie.explanation.find("does not beat cuBLAS"), std::string::npos) << tie.explanation;
  EXPECT_EQ(index_with(1.0, 1.10).lookup(h200(), asked, {}, work).kernel->id(), "simt:T=256");
}

TEST(LookupVendor, NearestCarriesOverOurBestKernelOfAVendorPick) {
  KernelCost const work = [](KernelConfig const&, Problem const& q) {
    return static_cast<double>(q.m) * static_cast<double>(q.n) * static_cast<double>(q.k);
  };
  auto index_with = [](double own_ms) {
    TuningTableBuilder b("2026-12-02T00:00:00Z");
    b.add_entry(h200(), shape(4096, 4096, 4096, 16), cublas_default(), 1.0, 100, 1.0,
                std::nullopt, {}, std::nullopt, TableOwnFigure{kernel("simt:T=256"), own_ms});
    return TableIndex{b.build()};
  };
  Problem const asked = shape(2048, 4096, 4096, 16);
  // Our kernel lost to cuBLAS there, and the model carries the loss over: cuBLAS.
  EXPECT_EQ(index_with(1.2).lookup(h200(), asked, {}, work).kernel->id(), "cublas:default");
  // Faster than cuBLAS there by more than the margin: ours, carried over from its own figure.
  EXPECT_EQ(index_with(0.9).lookup(h200(), asked, {}, work).kernel->id(), "simt:T=256");
}

TEST_F(Lookup, ExactHit) {
  LookupResult const r = index.lookup(h200(), shape(4096, 4096, 4096, 16));
  EXPECT_EQ(r.rule, LookupRule::kExact);
  ASSERT_TRUE(r.kernel.has_value());
  EXPECT_EQ(r.kernel->id(), "simt:V=1");
  ASSERT_GE(r.entry_index, 0);
  EXPECT_EQ(index.table().entries[static_cast<std::size_t>(r.entry_index)].kernel.id(), "simt:V=1");
  EXPECT_EQ(r.default_index, -1);
  EXPECT_EQ(r.explanation.rfind("exact: ", 0), 0u) << r.explanation;
}

TEST_F(Lookup, NearestSkipsKernelsThatCannotRunTheProblem) {
  // The nearest entry (V=1, tuned at 4096³) is refused for this problem: the next nearest wins.
  auto const refuse_v1 = [](KernelConfig const& k, Problem const&) {
    return k.id() == "simt:V=1" ? std::string("split_k: too few K steps") : std::string();
  };
  LookupResult const r = index.lookup(h200(), shape(3000, 3000, 3000, 16), refuse_v1);
  EXPECT_EQ(r.rule, LookupRule::kNearest);
  ASSERT_TRUE(r.kernel.has_value());
  EXPECT_NE(r.kernel->id(), "simt:V=1");
  // An exact entry that cannot run falls through to the chain as well.
  LookupResult const e = index.lookup(h200(), shape(4096, 4096, 4096, 16), refuse_v1);
  EXPECT_NE(e.rule, LookupRule::kExact);
  if (e.kernel) EXPECT_NE(e.kernel->id(), "simt:V=1");
  // A filter that refuses everything leaves cuBLAS.
  LookupResult const none = index.lookup(h200(), shape(3000, 3000, 3000, 16),
                                         [](KernelConfig const&, Problem const&) {
                                           return std::string("no");
                                         });
  EXPECT_EQ(none.rule, LookupRule::kNone);
  EXPECT_FALSE(none.kernel.has_value());
}

TEST_F(Lookup, AlignZeroIsResolvedFromPackedStorage) {
  // 4096 fp32 rows are 16-byte multiples, so the packed problem is a16: an exact hit.
  EXPECT_EQ(index.lookup(h200(), shape(4096, 4096, 4096, 0)).rule, LookupRule::kExact);
}

TEST_F(Lookup, NearestInLogSpace) {
  LookupResult const r = index.lookup(h200(), shape(3000, 3000, 3000, 16));
  EXPECT_EQ(r.rule, LookupRule::kNearest);
  EXPECT_EQ(r.kernel->id(), "simt:V=1");  // log2(4096/3000) < log2(3000/1024)
  EXPECT_NEAR(r.distance, std::sqrt(3.0) * std::log2(4096.0 / 3000.0), 1e-12);
  EXPECT_NE(r.explanation.find("4096x4096x4096"), std::string::npos) << r.explanation;

  LookupResult const small = index.lookup(h200(), shape(1200, 900, 1100, 16));
  EXPECT_EQ(small.rule, LookupRule::kNearest);
  EXPECT_EQ(small.kernel->id(), "simt:V=2");
}

TEST_F(Lookup, NearestNeverOffersAMoreAlignedEntry) {
  // A 4-byte-aligned problem may not use configs tuned on 16-byte-aligned data, however close.
  LookupResult const r = index.lookup(h200(), shape(4096, 4096, 4096, 4));
  EXPECT_EQ(r.rule, LookupRule::kNearest);
  EXPECT_EQ(r.kernel->id(), "simt:V=3");
  EXPECT_EQ(index.table().entries[static_cast<std::size_t>(r.entry_index)].problem.align, 4);
}

TEST_F(Lookup, LessAlignedEntryOfTheSameShapeIsNearestAtDistanceZero) {
  LookupResult const r = index.lookup(h200(), shape(1000, 1000, 1000, 8));
  EXPECT_EQ(r.rule, LookupRule::kNearest);
  EXPECT_EQ(r.kernel->id(), "simt:V=3");
  EXPECT_EQ(r.distance, 0.0);
}

TEST_F(Lookup, GpuDefaultPicksTheWidestSafeAlignment) {
  LookupResult const a16 = index.lookup(h200(), shape(512, 512, 512, 16, Precision::kFP32, Layout::kNT));
  EXPECT_EQ(a16.rule, LookupRule::kGpuDefault);
  EXPECT_EQ(a16.kernel->id(), "simt:G=16");
  EXPECT_GE(a16.default_index, 0);
  EXPECT_EQ(a16.entry_index, -1);
  EXPECT_EQ(a16.explanation.rfind("gpu_default: ", 0), 0u) << a16.explanation;

  LookupResult const a8 = index.lookup(h200(), shape(512, 512, 512, 8, Precision::kFP32, Layout::kNT));
  EXPECT_EQ(a8.rule, LookupRule::kGpuDefault);
  EXPECT_EQ(a8.kernel->id(), "simt:F=4");
}

TEST_F(Lookup, ArchDefaultPrefersTheSameName) {
  // A cut-down H200 (114 SMs) is another GPU: the 132-SM H200's default beats the H100's.
  LookupResult const r = index.lookup(h200_cut(), shape(4096, 4096, 4096, 16));
  EXPECT_EQ(r.rule, LookupRule::kArchDefault);
  EXPECT_EQ(r.kernel->id(), "simt:D=16");
  EXPECT_NE(r.explanation.find("NVIDIA H200 / sm_90 / 132 SMs"), std::string::npos)
      << r.explanation;
}

TEST_F(Lookup, ArchDefaultFromAnotherGpuOfTheSameCc) {
  LookupResult const r = index.lookup(h200(), shape(256, 256, 256, 16, Precision::kTF32));
  EXPECT_EQ(r.rule, LookupRule::kArchDefault);
  EXPECT_EQ(r.kernel->id(), "mma:T=1");
}

TEST_F(Lookup, NoneForAnotherArch) {
  LookupResult const r = index.lookup(l4(), shape(4096, 4096, 4096, 16));
  EXPECT_EQ(r.rule, LookupRule::kNone);
  EXPECT_FALSE(r.kernel.has_value());
  EXPECT_EQ(r.entry_index, -1);
  EXPECT_EQ(r.default_index, -1);
  EXPECT_NE(r.explanation.find("cuBLAS"), std::string::npos) << r.explanation;
}

TEST_F(Lookup, NoneWhenNothingIsSafeForTheAlignment) {
  LookupResult const r = index.lookup(h200(), shape(4096, 4096, 4096, 2));
  EXPECT_EQ(r.rule, LookupRule::kNone);
}

TEST_F(Lookup, InvalidShapeIsNone) {
  EXPECT_EQ(index.lookup(h200(), shape(0, 4096, 4096, 16)).rule, LookupRule::kNone);
  EXPECT_EQ(index.lookup(h200(), shape(4096, kMaxDim + 1, 4096, 16)).rule, LookupRule::kNone);
}

TEST(LookupFunction, MatchesTheIndex) {
  TuningTable const t = table();
  TableIndex const idx(t);
  for (auto const& p : {shape(4096, 4096, 4096, 16), shape(3000, 3000, 3000, 16),
                        shape(8, 8, 8, 16, Precision::kFP32, Layout::kNT)}) {
    LookupResult const a = lookup(t, h200(), p);
    LookupResult const b = idx.lookup(h200(), p);
    EXPECT_EQ(a.rule, b.rule);
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.explanation, b.explanation);
  }
}

TEST(LookupRuleText, Names) {
  EXPECT_EQ(to_string(LookupRule::kExact), "exact");
  EXPECT_EQ(to_string(LookupRule::kRange), "range");
  EXPECT_EQ(to_string(LookupRule::kNearest), "nearest");
  EXPECT_EQ(to_string(LookupRule::kGpuDefault), "gpu_default");
  EXPECT_EQ(to_string(LookupRule::kArchDefault), "arch_default");
  EXPECT_EQ(to_string(LookupRule::kNone), "none");
}

// A sweep over M of one layer (4096x4096 bf16 NT at M = 16, 256, 4096) becomes a range: every M
// from 16 to 4096 takes the pick measured nearest in log space, exact points stay exact, and
// M outside the sweep, another N or K, or a less-aligned problem fall through to the rest of
// the chain.
TEST(LookupRange, EveryMOfTheSweepTakesItsBucket) {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  for (auto const& [m, id] : {std::pair{16, "mma:R=16"}, std::pair{256, "mma:R=256"},
                             std::pair{4096, "wgmma:R=4096"}}) {
    b.add_entry(h200(), shape(m, 4096, 4096, 16, Precision::kBF16, Layout::kNT), kernel(id), 0.1,
                10, 0.11, 0.105);
  }
  b.add_entry(h200(), shape(64, 4096, 1024, 16, Precision::kBF16, Layout::kNT),
              kernel("mma:O=1"), 0.1, 10, 0.2, 0.2);
  TuningTable const t = b.build();
  ASSERT_EQ(t.ranges.size(), 1u);  // 4096x1024 has one M: no range
  TableIndex const index(t);
  auto at = [&](std::int64_t m, int align = 16, std::int64_t k = 4096) {
    return index.lookup(h200(), shape(m, 4096, k, align, Precision::kBF16, Layout::kNT));
  };
  // Boundaries at the geometric means: sqrt(16·256) = 64, sqrt(256·4096) = 1024.
  for (auto const& [m, id] : {std::pair{17, "mma:R=16"}, std::pair{64, "mma:R=16"},
                             std::pair{65, "mma:R=256"}, std::pair{1024, "mma:R=256"},
                             std::pair{1025, "wgmma:R=4096"}, std::pair{4095, "wgmma:R=4096"}}) {
    LookupResult const r = at(m);
    SCOPED_TRACE(m);
    EXPECT_EQ(r.rule, LookupRule::kRange);
    EXPECT_EQ(r.kernel->id(), id);
    EXPECT_EQ(r.range_index, 0);
    EXPECT_EQ(t.entries[static_cast<std::size_t>(r.entry_index)].kernel.id(), id);
    EXPECT_NE(r.explanation.find("range: M=" + std::to_string(m)), std::string::npos)
        << r.explanation;
  }
  EXPECT_EQ(at(256).rule, LookupRule::kExact);
  EXPECT_EQ(at(15).rule, LookupRule::kNearest);
  EXPECT_EQ(at(4097).rule, LookupRule::kNearest);
  EXPECT_EQ(at(300, 16, 4000).rule, LookupRule::kNearest);
  EXPECT_NE(at(300, 8).rule, LookupRule::kRange);  // tuned on 16-byte-aligned data only
  // A bucket whose kernel cannot run the problem gives way to the rest of the chain.
  LookupResult const refused = index.lookup(
      h200(), shape(300, 4096, 4096, 16, Precision::kBF16, Layout::kNT),
      [](KernelConfig const& k, Problem const&) {
        return k.id() == "mma:R=256" ? std::string("no") : std::string();
      });
  EXPECT_EQ(refused.rule, LookupRule::kNearest);
  EXPECT_NE(refused.kernel->id(), "mma:R=256");
}

TEST(LookupEmptyTable, IsNone) {
  TuningTable empty;
  EXPECT_EQ(lookup(empty, h200(), shape(1, 1, 1, 16)).rule, LookupRule::kNone);
}

}  // namespace
}  // namespace gemmtune
