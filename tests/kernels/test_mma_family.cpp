// The mma descriptor: registration and precisions, ids that round-trip, the size of its valid
// space per shape class, that every constraint can decide a rejection with a reason, shared
// memory and registers against per-arch limits, launch plans (tiles, split-K workspace and counters and
// workspace), and name expressions for every layout and alignment class.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/mma_family.hpp"

namespace gemmtune {
namespace {

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Precision p = Precision::kBF16,
             Layout layout = Layout::kNN, int align = 0) {
  Problem q{.m = m, .n = n, .k = k, .precision = p, .layout = layout};
  q.align = align;
  return q.resolved();
}

DeviceLimits limits(char const* arch = "sm_90") { return *arch_limits(arch); }

MmaFamily const& mma() { return dynamic_cast<MmaFamily const&>(*find_family("mma")); }

std::vector<KernelConfig> valid(Problem const& p, DeviceLimits const& l = limits()) {
  std::vector<KernelConfig> out;
  for (KernelConfig const& cfg : mma().enumerate()) {
    if (mma().reject_reason(cfg, p, l).empty()) out.push_back(cfg);
  }
  return out;
}

KernelConfig cfg(char const* id) { return parse_kernel_id(id); }

TEST(MmaFamily, IsRegisteredAfterSimtForTensorCorePrecisionsOnly) {
  EXPECT_EQ(find_family("mma"), &mma_family());
  std::vector<Family const*> const all = all_families();
  auto const at = [&](std::string_view name) {
    return std::find_if(all.begin(), all.end(), [&](Family const* f) { return f->name() == name; });
  };
  ASSERT_NE(at("mma"), all.end());
  EXPECT_EQ(at("mma") - at("simt"), 1);
  EXPECT_TRUE(mma().supports(Precision::kTF32));
  EXPECT_TRUE(mma().supports(Precision::kFP16));
  EXPECT_TRUE(mma().supports(Precision::kBF16));
  EXPECT_FALSE(mma().supports(Precision::kFP32));
  EXPECT_EQ(mma().min_arch(), 80);
  KernelConfig const c = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1");
  std::string const fp32 = mma().reject_reason(c, make(4096, 4096, 4096, Precision::kFP32), limits());
  EXPECT_NE(fp32.find("does not compute fp32"), std::string::npos) << fp32;
  std::string const volta = mma().reject_reason(c, make(4096, 4096, 4096), *arch_limits("sm_80"));
  EXPECT_EQ(volta, "");
}

TEST(MmaFamily, IdsRoundTripInCanonicalOrder) {
  for (KernelConfig const& c : valid(make(4096, 4096, 4096))) {
    KernelConfig const back = parse_kernel_id(c.id());
    EXPECT_EQ(back, c);
    EXPECT_EQ(mma().canonical(back).id(), c.id());
  }
  KernelConfig shuffled = cfg("mma:SK=1,BM=128,BN=128,ST=3,BK=32,WM=64,WN=64,SW=8");
  EXPECT_EQ(mma().canonical(shuffled).id(),
            "mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=3,SW=8,SK=1,CR=0");
  EXPECT_THROW(mma().canonical(cfg("mma:BM=96,BN=128,BK=32,WM=64,WN=64,ST=3,SW=8,SK=1")),
               UsageError);
}

TEST(MmaFamily, ValidSpaceSizesPerShapeClassAreSearchable) {
  struct Row {
    Problem p;
    std::size_t lo, hi;
  };
  std::vector<Row> const rows = {
      {make(4096, 4096, 4096, Precision::kBF16), 50, 300},
      {make(4096, 4096, 4096, Precision::kFP16, Layout::kTT), 50, 300},
      {make(4096, 4096, 4096, Precision::kTF32), 30, 300},
      {make(4096, 4096, 4096, Precision::kTF32, Layout::kNT), 50, 300},
      {make(1024, 1024, 1024), 50, 500},
      {make(16, 4096, 4096), 20, 500},
      {make(127, 131, 67), 10, 300},
      {make(1, 1, 1), 1, 50},
  };
  for (Row const& r : rows) {
    std::size_t const n = valid(r.p).size();
    std::printf("mma valid at %s: %zu of %zu\n", r.p.describe().c_str(), n,
                mma().enumerate().size());
    EXPECT_GE(n, r.lo) << r.p.describe();
    EXPECT_LE(n, r.hi) << r.p.describe();
  }
}

TEST(MmaFamily, EveryShapeAndAlignmentKeepsACandidate) {
  for (Precision p : {Precision::kFP16, Precision::kBF16, Precision::kTF32}) {
    for (Layout l : kAllLayouts) {
      for (int align : {input_bytes(p), 8, 16}) {
        for (auto [m, n, k] : {std::array<std::int64_t, 3>{1, 1, 1}, {3, 4097, 5}, {4097, 17, 9000},
                               {8192, 8192, 8192}, {16, 16, 65536}}) {
          for (char const* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
            EXPECT_FALSE(valid(make(m, n, k, p, l, align), limits(arch)).empty())
                << m << "x" << n << "x" << k << " " << to_string(p) << " " << to_string(l)
                << " a" << align << " " << arch;
          }
        }
      }
    }
  }
}

TEST(MmaFamily, EveryConstraintRejectsSomethingWithANamedReason) {
  std::map<std::string, std::string> seen;
  std::vector<Problem> const problems = {
      make(4096, 4096, 4096),          make(4096, 4096, 4096, Precision::kTF32),
      make(16, 4096, 4096),            make(64, 64, 64),
      make(4096, 64, 8192),            make(256, 256, 65536),
      make(8, 8, 8, Precision::kTF32, Layout::kNN, 2), make(16, 4096, 4096, Precision::kTF32, Layout::kTN)};
  for (Problem const& p : problems) {
    for (KernelConfig const& c : mma().enumerate()) {
      DeviceLimits half = limits();
      half.regs_per_sm = 32768;  // the registers constraint rejects nothing on real budgets
      for (DeviceLimits const& l : {limits("sm_86"), limits("sm_90"), half}) {
        std::string const why = mma().reject_reason(c, p, l);
        if (why.empty()) continue;
        std::string const name = why.substr(0, why.find(':'));
        seen.emplace(name, why);
        EXPECT_GT(why.size(), name.size() + 10) << why;  // a reason, not just a name
      }
    }
  }
  for (Constraint const& c : mma().constraints()) {
    // grid_size needs more than 2^31 tiles; warp_tiles guards the template's rule, which the
    // value lists (blocks of 64..256, warps of 32 or 64) always satisfy.
    if (c.name == "grid_size" || c.name == "warp_tiles") continue;
    EXPECT_TRUE(seen.count(c.name)) << c.name << " never rejected anything";
  }
  for (auto const& [name, why] : seen) std::printf("  %s\n", why.c_str());
}

TEST(MmaFamily, ShortTilesAreSearchedOnlyWhereOneTileRowCoversM) {
  auto heights = [](Problem const& p) {
    std::set<std::int64_t> bm;
    for (KernelConfig const& c : valid(p)) bm.insert(c.at("BM"));
    return bm;
  };
  // 16 rows: only 16-row tiles (a 64-row tile would stage 48 rows of nothing).
  EXPECT_EQ(heights(make(16, 4096, 4096)), (std::set<std::int64_t>{16}));
  // tf32 with A stored K×M cannot go below 32 rows, so 32 it is.
  EXPECT_EQ(heights(make(16, 4096, 4096, Precision::kTF32, Layout::kTN)), (std::set<std::int64_t>{32}));
  EXPECT_EQ(heights(make(32, 4096, 4096)), (std::set<std::int64_t>{32}));
  // Taller problems keep 64 rows and up.
  for (std::int64_t const bm : heights(make(128, 4096, 4096))) EXPECT_GE(bm, 64);
  // A 16-row tile still runs on a taller problem when asked for by id.
  KernelConfig const c = cfg("mma:BM=16,BN=64,BK=64,WM=16,WN=32,ST=4,SW=1,SK=4,CR=0");
  Problem const tall = make(128, 4096, 4096);
  EXPECT_EQ(mma().reject_reason(c, tall, limits()).rfind("short_tile", 0), 0u);
  EXPECT_EQ(mma().reject_reason(c, tall, limits(), RejectScope::kRun), "");
}

TEST(MmaFamily, StageDepthFollowsTheElementSize) {
  KernelConfig const c16 = cfg("mma:BM=128,BN=128,BK=16,WM=64,WN=64,ST=3,SW=1,SK=1");
  KernelConfig const c64 = cfg("mma:BM=128,BN=128,BK=64,WM=64,WN=64,ST=3,SW=1,SK=1");
  Problem const bf = make(1024, 1024, 1024), tf = make(1024, 1024, 1024, Precision::kTF32);
  EXPECT_EQ(mma().reject_reason(c16, bf, limits()).rfind("stage_depth", 0), 0u);
  EXPECT_EQ(mma().reject_reason(c64, tf, limits()).rfind("stage_depth", 0), 0u);
  EXPECT_NE(mma().reject_reason(c16, tf, limits()).rfind("stage_depth", 0), 0u);
  EXPECT_NE(mma().reject_reason(c64, bf, limits()).rfind("stage_depth", 0), 0u);
}

TEST(MmaFamily, SharedMemoryIsStagesTimesBothTilesAndRespectsTheArch) {
  KernelConfig const c = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1");
  EXPECT_EQ(mma().smem_bytes(c, make(4096, 4096, 4096)), 4 * 32 * (128 + 256) * 2);
  EXPECT_EQ(mma().smem_bytes(c, make(4096, 4096, 4096, Precision::kTF32)), 4 * 32 * 384 * 4);
  KernelConfig const deep = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=5,SW=8,SK=1");
  Problem const p = make(4096, 4096, 4096);
  EXPECT_EQ(mma().reject_reason(deep, p, limits("sm_90")), "");
  EXPECT_EQ(mma().reject_reason(deep, p, limits("sm_86")).rfind("shared_memory", 0), 0u);
  for (char const* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    for (KernelConfig const& v : valid(p, limits(arch))) {
      EXPECT_LE(mma().smem_bytes(v, p), limits(arch).max_smem_per_block_optin) << v.id();
    }
  }
}

TEST(MmaFamily, RegisterEstimateKeepsTheLeadersAndFollowsTheBudget) {
  // 64×64 warp tiles in 8 warps fit the 255-register budget for every precision and layout
  // (ptxas: 226..255, no spills; tests/nvrtc/test_mma_compile.cpp).
  KernelConfig const big = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1");
  KernelConfig const big32 = cfg("mma:BM=128,BN=256,BK=16,WM=64,WN=64,ST=4,SW=8,SK=1");
  for (Layout l : kAllLayouts) {
    EXPECT_EQ(mma().reject_reason(big, make(4096, 4096, 4096, Precision::kBF16, l), limits()), "");
    EXPECT_EQ(mma().reject_reason(big32, make(4096, 4096, 4096, Precision::kTF32, l), limits()), "");
  }
  Problem const p = make(4096, 4096, 4096);
  int const est = MmaFamily::register_estimate(big, p);
  EXPECT_GE(est, 64 * 64 / 32 + 64);  // accumulators and two fragment sets at least
  EXPECT_LE(est, 255);
  // Half the register file: 128 per thread of 256; the same tile would spill.
  DeviceLimits half = limits();
  half.regs_per_sm = 32768;
  std::string const why = mma().reject_reason(big, p, half);
  EXPECT_EQ(why.rfind("registers", 0), 0u) << why;
  KernelConfig const small = cfg("mma:BM=64,BN=64,BK=32,WM=32,WN=32,ST=3,SW=1,SK=1");
  EXPECT_EQ(mma().reject_reason(small, make(64, 64, 128), half), "");
}

TEST(MmaFamily, SplitKOnlyWhereTheTilesLeaveSmsIdle) {
  for (KernelConfig const& c : valid(make(4096, 4096, 4096))) EXPECT_EQ(c.at("SK"), 1) << c.id();
  std::set<std::int64_t> sk;
  for (KernelConfig const& c : valid(make(256, 256, 65536))) sk.insert(c.at("SK"));
  EXPECT_EQ(sk, (std::set<std::int64_t>{1, 2, 4, 8}));
  KernelConfig const c = cfg("mma:BM=64,BN=64,BK=32,WM=32,WN=32,ST=3,SW=1,SK=8");
  std::string const why = mma().reject_reason(c, make(64, 64, 512), limits());
  EXPECT_EQ(why.rfind("split_k", 0), 0u) << why;
}

TEST(MmaFamily, LaunchPlanCoversTheTilesWithDynamicSharedMemory) {
  KernelConfig const c = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1");
  Problem const p = make(1000, 3000, 77, Precision::kFP16, Layout::kTN);  // packed: lda=1000, ldb=ldc=3000
  LaunchPlan const plan = mma().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 1u);
  KernelLaunch const& l = plan.launches[0];
  EXPECT_EQ(l.grid.x, 8 * 12);  // ceil(1000/128) · ceil(3000/256)
  EXPECT_EQ(l.grid.z, 1);
  EXPECT_EQ(l.block.x, 256);
  EXPECT_EQ(l.dynamic_smem, mma().smem_bytes(c, p));
  EXPECT_EQ(plan.workspace_bytes, 0);
  EXPECT_EQ(l.name_expression, "gemmtune::mma_gemm<128,256,32,64,64,4,8,1,0,0,true,false,16>");
}

TEST(MmaFamily, LaunchPlanWithSplitKAddsTheReduceKernelOrSumsInTheLastSlice) {
  KernelConfig const c = cfg("mma:BM=64,BN=64,BK=16,WM=32,WN=32,ST=3,SW=1,SK=4");
  Problem const p = make(100, 200, 5000, Precision::kTF32, Layout::kNT);
  LaunchPlan const plan = mma().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_EQ(plan.launches[0].grid.x, 2 * 4);
  EXPECT_EQ(plan.launches[0].grid.z, 4);
  EXPECT_EQ(plan.launches[0].block.x, 128);
  EXPECT_EQ(plan.launches[1].name_expression, "gemmtune::mma_reduce<4,2>");
  EXPECT_EQ(plan.launches[1].block.x, 256);
  EXPECT_GE(plan.launches[1].grid.x * 256, std::int64_t{1});
  EXPECT_EQ(plan.workspace_bytes, 4 * 100 * 200 * 4);
  EXPECT_EQ(plan.counter_bytes, 0);
  EXPECT_FALSE(plan.zero_workspace);  // every partial is written, no atomics
  LaunchPlan const two = mma().launch_plan(cfg("mma:BM=64,BN=64,BK=16,WM=32,WN=32,ST=3,SW=1,SK=2"), p);
  ASSERT_EQ(two.launches.size(), 1u);  // the tile's last slice sums
  EXPECT_EQ(two.counter_bytes, 2 * 4 * 4);  // one counter per tile
  CompileRequest const r = mma().compile_request(c, p, "sm_86");
  ASSERT_EQ(r.name_expressions.size(), 2u);
  EXPECT_EQ(r.name_expressions[0], plan.launches[0].name_expression);
  EXPECT_EQ(r.name_expressions[1], plan.launches[1].name_expression);
  EXPECT_EQ(r.arch, "sm_86");
  EXPECT_NE(r.source.find("mma_gemm"), std::string::npos);
}

TEST(MmaFamily, ClusterReducedSplitKIsOneClusteredLaunchWithoutPartials) {
  KernelConfig const c = cfg("mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=8,CR=1");
  Problem const p = make(64, 4096, 4096, Precision::kBF16, Layout::kNN, 16);
  ASSERT_EQ(mma().reject_reason(c, p, limits()), "");
  LaunchPlan const plan = mma().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 1u);  // no reduce kernel
  EXPECT_EQ(plan.launches[0].name_expression,
            "gemmtune::mma_gemm_cluster<64,64,64,32,32,3,1,8,1,1,false,false,16>");
  EXPECT_EQ(plan.launches[0].grid.x, 64);
  EXPECT_EQ(plan.launches[0].grid.z, 8);  // the cluster's blocks
  EXPECT_EQ(plan.workspace_bytes, 0);
  EXPECT_EQ(plan.counter_bytes, 0);
  // The ring (3 · 64 · 128 · 2 bytes) holds the staged 64 × (64 + 8) FP32 tile.
  EXPECT_EQ(plan.launches[0].dynamic_smem, 3 * 64 * 128 * 2);
  EXPECT_EQ(mma().smem_bytes(cfg("mma:BM=128,BN=128,BK=16,WM=64,WN=64,ST=2,SW=1,SK=4,CR=1"), p),
            128 * 136 * 4);
  EXPECT_EQ(mma().compile_request(c, p, "sm_90").name_expressions,
            std::vector<std::string>{plan.launches[0].name_expression});
  auto rule = [&](char const* id, Problem const& q, DeviceLimits const& l) {
    std::string const why = mma().reject_reason(cfg(id), q, l);
    return why.substr(0, why.find(':'));
  };
  EXPECT_EQ(rule("mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=8,CR=1", p,
                 *arch_limits("sm_80")),
            "cluster_reduce");
  EXPECT_EQ(rule("mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=1,CR=1", p, limits()),
            "cluster_reduce");
  // Searched where one tile row covers M; still runnable elsewhere.
  Problem const taller = make(128, 4096, 4096, Precision::kBF16, Layout::kNN, 16);
  KernelConfig const two_rows = cfg("mma:BM=64,BN=64,BK=32,WM=32,WN=64,ST=2,SW=1,SK=4,CR=1");
  EXPECT_EQ(rule("mma:BM=64,BN=64,BK=32,WM=32,WN=64,ST=2,SW=1,SK=4,CR=1", taller, limits()),
            "cluster_reduce_shape");
  EXPECT_EQ(rule("mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=2,CR=1", p, limits()),
            "cluster_reduce_shape");
  EXPECT_EQ(mma().reject_reason(two_rows, taller, limits(), RejectScope::kRun), "");
}

TEST(MmaFamily, NameExpressionsCarryPrecisionLayoutAndAlignment) {
  KernelConfig const c = cfg("mma:BM=64,BN=128,BK=32,WM=32,WN=64,ST=3,SW=1,SK=1");
  std::map<Precision, char const*> const code = {
      {Precision::kFP16, "0"}, {Precision::kBF16, "1"}, {Precision::kTF32, "2"}};
  for (auto const& [p, digit] : code) {
    for (Layout l : kAllLayouts) {
      for (int align : {2, 4, 8, 16}) {
        if (align < input_bytes(p)) continue;
        std::string const e = mma().main_expression(c, make(64, 128, 64, p, l, align));
        std::string const want = std::string("gemmtune::mma_gemm<64,128,32,32,64,3,1,1,0,") + digit +
                                 "," + (a_transposed(l) ? "true" : "false") + "," +
                                 (b_transposed(l) ? "true" : "false") + "," +
                                 std::to_string(align) + ">";
        EXPECT_EQ(e, want);
      }
    }
  }
  std::string const why =
      mma().reject_reason(c, make(64, 128, 64, Precision::kTF32, Layout::kNN, 2), limits());
  EXPECT_EQ(why.rfind("alignment", 0), 0u) << why;
}

TEST(MmaFamily, RunnableIgnoresSearchPreferencesButNotCorrectness) {
  // A small tile on a compute-bound grid is a preference of the search, not a reason the
  // kernel cannot run it (an explicit --kernel, a table entry for a nearby shape).
  KernelConfig const small = cfg("mma:BM=64,BN=64,BK=32,WM=32,WN=32,ST=2,SW=1,SK=2");
  Problem const p = make(4096, 4096, 4096);
  EXPECT_NE(mma().reject_reason(small, p, limits()), "");
  EXPECT_EQ(runnable_reason(small, p, limits()), "");
  std::string const why =
      runnable_reason(small, make(64, 64, 64, Precision::kTF32, Layout::kNN, 2), limits());
  EXPECT_EQ(why.rfind("alignment", 0), 0u) << why;
  KernelConfig const deep = cfg("mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=5,SW=8,SK=1");
  EXPECT_EQ(runnable_reason(deep, p, limits("sm_86")).rfind("shared_memory", 0), 0u);
}

}  // namespace
}  // namespace gemmtune
