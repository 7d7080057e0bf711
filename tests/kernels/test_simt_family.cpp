// The simt descriptor: the size of its space, that every constraint can decide a rejection
// with a reason, the small-M and split-K paths, launch plans, name expressions and the
// NVRTC request (built, not compiled).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/simt_family.hpp"

namespace gemmtune {
namespace {

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout = Layout::kNN,
             int align = 0) {
  Problem p{.m = m, .n = n, .k = k, .precision = Precision::kFP32, .layout = layout};
  p.align = align;
  return p.resolved();
}

DeviceLimits sm90() { return *arch_limits("sm_90"); }

SimtFamily const& simt() { return dynamic_cast<SimtFamily const&>(*find_family("simt")); }

std::vector<KernelConfig> valid(Problem const& p, DeviceLimits const& limits = sm90()) {
  std::vector<KernelConfig> out;
  for (KernelConfig const& cfg : simt().enumerate()) {
    if (simt().reject_reason(cfg, p, limits).empty()) out.push_back(cfg);
  }
  return out;
}

TEST(SimtFamily, IsRegisteredAndSelectable) {
  EXPECT_EQ(find_family("simt"), &simt_family());
  auto const chosen = select_families("simt");
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0]->name(), "simt");
  EXPECT_TRUE(simt().supports(Precision::kFP32));
  EXPECT_FALSE(simt().supports(Precision::kTF32));
}

TEST(SimtFamily, DefaultSearchAtTheBenchmarkShapeIsAFewHundredConfigs) {
  for (Layout layout : kAllLayouts) {
    std::size_t const n = valid(make(4096, 4096, 4096, layout)).size();
    std::printf("simt valid at 4096^3 %s: %zu of %zu\n", std::string(to_string(layout)).c_str(),
                n, simt().enumerate().size());
    EXPECT_GE(n, 100u) << to_string(layout);
    EXPECT_LE(n, 800u) << to_string(layout);
  }
}

TEST(SimtFamily, SmallMShapeGetsSixteenRowTilesAndSplitK) {
  std::vector<KernelConfig> const all = valid(make(16, 4096, 4096));
  std::printf("simt valid at 16x4096x4096: %zu\n", all.size());
  ASSERT_FALSE(all.empty());
  std::set<std::int64_t> bm, sk, red;
  for (KernelConfig const& c : all) {
    bm.insert(c.at("BM"));
    sk.insert(c.at("SK"));
    red.insert(c.at("RED"));
  }
  EXPECT_EQ(bm, (std::set<std::int64_t>{16}));
  EXPECT_EQ(sk, (std::set<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(red, (std::set<std::int64_t>{0, 1}));
  EXPECT_LE(all.size(), 4000u);
}

TEST(SimtFamily, SplitKOnlyWhereTheTilesLeaveSmsIdle) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=4,RED=0");
  EXPECT_NE(simt().reject_reason(c, make(4096, 4096, 4096), sm90()).find("split_k"),
            std::string::npos);
  EXPECT_EQ(simt().reject_reason(c, make(1024, 1024, 16384), sm90()), "");
  // Too shallow: 512/8 = 64 steps, fewer than 4 per slice for SK=16.
  KernelConfig const deep = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=16,RED=1");
  EXPECT_EQ(simt().reject_reason(deep, make(1024, 1024, 512), sm90()), "");
  EXPECT_NE(simt().reject_reason(deep, make(1024, 1024, 504), sm90()).find("split_k"),
            std::string::npos);
}

TEST(SimtFamily, EveryConstraintRejectsSomethingWithANamedReason) {
  std::vector<Problem> const problems = {
      make(4096, 4096, 4096),         make(1000, 1000, 1000, Layout::kTN),
      make(16, 4096, 4096),           make(1, 1, 1, Layout::kTT),
      make(1024, 1024, 16384),        make(4096, 4096, 4096, Layout::kNT, 4),
      make(1 << 24, 1 << 24, 4),      make(64, 300, 40, Layout::kTN, 8)};
  DeviceLimits sm86 = *arch_limits("sm_86");
  sm86.arch = "sm_75";  // an arch without cp.async, for the pipeline constraint
  DeviceLimits few_registers = sm90();
  few_registers.max_regs_per_thread = 128;  // where the big thread tiles would spill
  std::map<std::string, int> first_failures;
  for (Constraint const& c : simt().constraints()) first_failures[c.name] = 0;
  for (DeviceLimits const& limits : {sm90(), sm86, few_registers}) {
    for (Problem const& p : problems) {
      for (KernelConfig const& cfg : simt().enumerate()) {
        std::string const why = simt().reject_reason(cfg, p, limits);
        for (Constraint const& c : simt().constraints()) {
          if (why.rfind(c.name + ": ", 0) == 0) {
            ++first_failures[c.name];
            std::string const own = c.check(cfg, p, limits);
            EXPECT_EQ(why, c.name + ": " + own);
            EXPECT_GT(own.size(), 10u) << "reason too terse: " << own;
          }
        }
      }
    }
  }
  for (auto const& [name, count] : first_failures) {
    EXPECT_GT(count, 0) << "constraint " << name << " never decided a rejection";
  }
}

TEST(SimtFamily, WarpTileAndThreadsFollowTheLaneLayout) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0");
  EXPECT_EQ(SimtFamily::warp_m(c), 64);  // 8 lanes × 8 rows
  EXPECT_EQ(SimtFamily::warp_n(c), 32);  // 4 lanes × 8 columns
  EXPECT_EQ(simt().threads(c), 256);
  KernelConfig const z = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=2,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0");
  EXPECT_EQ(SimtFamily::warp_m(z), 32);
  EXPECT_EQ(SimtFamily::warp_n(z), 64);
  EXPECT_EQ(simt().threads(z), 256);
}

TEST(SimtFamily, SharedMemoryCountsStagesAndPaddingOfTheTransposedOperand) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=128,BN=256,BK=16,TM=8,TN=8,LL=0,CURE=1,ST=3,CP=1,SW=1,SK=1,RED=0");
  // NN: A is transposed on the way in (padded), B is not.
  EXPECT_EQ(simt().smem_bytes(c, make(4096, 4096, 4096, Layout::kNN)), 3 * 16 * (132 + 256) * 4);
  // NT: both transposed.
  EXPECT_EQ(simt().smem_bytes(c, make(4096, 4096, 4096, Layout::kNT)), 3 * 16 * (132 + 260) * 4);
  // TN: neither.
  EXPECT_EQ(simt().smem_bytes(c, make(4096, 4096, 4096, Layout::kTN)), 3 * 16 * (128 + 256) * 4);
  LaunchPlan const plan = simt().launch_plan(c, make(4096, 4096, 4096, Layout::kNN));
  EXPECT_EQ(plan.launches[0].dynamic_smem, 3 * 16 * (132 + 256) * 4);
}

TEST(SimtFamily, LaunchPlanWithoutSplitKIsOneKernelOverTheTiles) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=128,BN=64,BK=8,TM=8,TN=4,LL=0,CURE=2,ST=2,CP=0,SW=8,SK=1,RED=0");
  Problem const p = make(1000, 1000, 1000);  // 4000-byte rows: alignment class 16
  LaunchPlan const plan = simt().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].grid, (Dim3{8 * 16, 1, 1}));
  EXPECT_EQ(plan.launches[0].block, (Dim3{simt().threads(c), 1, 1}));
  EXPECT_EQ(plan.launches[0].dynamic_smem, 0);
  EXPECT_EQ(plan.workspace_bytes, 0);
  EXPECT_EQ(plan.launches[0].name_expression,
            "gemmtune::simt<128,64,8,8,4,0,2,2,0,8,1,0,false,false,true>");
  CompileRequest const r = simt().compile_request(c, p, "sm_90");
  EXPECT_EQ(r.name_expressions, std::vector<std::string>{plan.launches[0].name_expression});
  EXPECT_EQ(r.source_name, "simt/simt.cuh");
  EXPECT_NE(r.source.find("simt_reduce"), std::string::npos);
}

TEST(SimtFamily, LaunchPlanWithSplitKSumsInTheLastSliceOrAddsTheReduceKernel) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=8,RED=0");
  Problem const p = make(16, 4096, 4096);
  ASSERT_EQ(simt().reject_reason(c, p, sm90()), "");
  LaunchPlan const plan = simt().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_EQ(plan.launches[0].grid, (Dim3{32, 1, 8}));
  EXPECT_EQ(plan.launches[0].name_expression,
            "gemmtune::simt<16,128,16,4,8,2,1,4,1,1,8,0,false,false,true>");
  EXPECT_EQ(plan.launches[1].name_expression, "gemmtune::simt_reduce<8,true>");
  EXPECT_EQ(plan.launches[1].block, (Dim3{256, 1, 1}));
  EXPECT_EQ(plan.launches[1].grid, (Dim3{16 * 1024 / 256, 1, 1}));
  EXPECT_EQ(plan.workspace_bytes, 8 * 16 * 4096 * 4);
  EXPECT_EQ(plan.counter_bytes, 0);
  EXPECT_FALSE(plan.zero_workspace);
  CompileRequest const r = simt().compile_request(c, p, "sm_90");
  ASSERT_EQ(r.name_expressions.size(), 2u);
  EXPECT_EQ(r.name_expressions[1], plan.launches[1].name_expression);

  // Two slices: the tile's last slice sums them in the same launch.
  KernelConfig const two = parse_kernel_id(
      "simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=2,RED=0");
  LaunchPlan const one = simt().launch_plan(two, p);
  ASSERT_EQ(one.launches.size(), 1u);
  EXPECT_EQ(one.workspace_bytes, 2 * 16 * 4096 * 4);
  EXPECT_EQ(one.counter_bytes, 32 * 4);  // one counter per tile
  EXPECT_EQ(simt().compile_request(two, p, "sm_90").name_expressions.size(), 1u);

  KernelConfig const atomics = parse_kernel_id(
      "simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=8,RED=1");
  Problem const ragged = make(13, 1001, 4096);  // N padded to 1004 in the workspace
  LaunchPlan const a = simt().launch_plan(atomics, ragged);
  ASSERT_EQ(a.launches.size(), 2u);
  EXPECT_EQ(a.launches[1].name_expression, "gemmtune::simt_reduce<1,false>");
  EXPECT_EQ(a.workspace_bytes, 13 * 1004 * 4);
  EXPECT_EQ(a.counter_bytes, 0);
  EXPECT_TRUE(a.zero_workspace);
  EXPECT_EQ(simt().compile_request(atomics, ragged, "sm_90").name_expressions.size(), 2u);
}

TEST(SimtFamily, CpAsyncNeedsAmpere) {
  KernelConfig const c = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=3,CP=1,SW=8,SK=1,RED=0");
  DeviceLimits old = sm90();
  old.arch = "sm_70";
  EXPECT_NE(simt().reject_reason(c, make(4096, 4096, 4096), old).find("sm_80"),
            std::string::npos);
  EXPECT_EQ(simt().reject_reason(c, make(4096, 4096, 4096), sm90()), "");
}

TEST(SimtFamily, PreferencesBindTheSearchButNotAnExplicitRun) {
  // A single buffer at 4096³ is slow but correct: the search skips it, a table entry or an
  // explicit bench may still run it.
  KernelConfig const single = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=0,CURE=0,ST=1,CP=0,SW=1,SK=1,RED=0");
  Problem const big = make(4096, 4096, 4096);
  EXPECT_NE(simt().reject_reason(single, big, sm90()).find("thread_tile"), std::string::npos);
  EXPECT_EQ(simt().reject_reason(single, big, sm90(), RejectScope::kRun), "");
  EXPECT_EQ(runnable_reason(single, big, sm90()), "");
  // Atomics with nothing to reduce would write through a null workspace: never runnable.
  KernelConfig const bad = parse_kernel_id(
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=0,CURE=0,ST=2,CP=0,SW=1,SK=1,RED=1");
  EXPECT_NE(runnable_reason(bad, big, sm90()).find("split_k_reduction"), std::string::npos);
}

TEST(SimtFamily, ValidConfigsStayWithinTheRegisterBudget) {
  for (KernelConfig const& c : valid(make(4096, 4096, 4096))) {
    int const t = simt().threads(c);
    EXPECT_LE(SimtFamily::register_estimate(c), std::min(255, 65536 / t / 8 * 8)) << c.id();
  }
}

}  // namespace
}  // namespace gemmtune
