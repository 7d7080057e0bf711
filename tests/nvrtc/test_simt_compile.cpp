// The simt family through NVRTC: samples of the valid space at the 4096³ benchmark shape and
// the small-M shape compile for sm_90 with no spills and no stack (so the FFMA loop keeps every
// accumulator in registers), the configs expected to be fastest among them; cp.async, split-K
// and scalar (unaligned) variants compile for sm_80, sm_86 and sm_90.
#include <gtest/gtest.h>

#include <cstdio>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/simt_family.hpp"
#include "src/nvrtc/compile_pool.hpp"

namespace gemmtune {
namespace {

struct Candidate {
  KernelConfig config;
  Problem problem;
};

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout = Layout::kNN,
             int align = 0) {
  Problem p{.m = m, .n = n, .k = k, .precision = Precision::kFP32, .layout = layout};
  p.align = align;
  return p.resolved();
}

std::vector<Candidate> spread(Problem const& p, std::size_t n) {
  Family const& f = simt_family();
  DeviceLimits const limits = *arch_limits("sm_90");
  std::vector<Candidate> all;
  for (KernelConfig const& cfg : f.enumerate()) {
    if (f.reject_reason(cfg, p, limits).empty()) all.push_back({cfg, p});
  }
  if (all.size() <= n) return all;
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(all[i * (all.size() - 1) / (n - 1)]);
  return out;
}

/// Compiles every candidate for `arch`; expects success, one resource line per launch, and
/// (when `no_spill`) no spill traffic and no stack frame in any kernel.
void compile_all(std::vector<Candidate> const& candidates, std::string const& arch,
                 bool no_spill) {
  Family const& f = simt_family();
  Compiler const compiler(CompilerSettings{});
  CompilePool pool(compiler, 2);
  std::vector<std::future<CompileResult>> futures;
  for (Candidate const& c : candidates) {
    ASSERT_EQ(f.reject_reason(c.config, c.problem, *arch_limits(arch)), "") << c.config.id();
    futures.push_back(pool.submit(f.compile_request(c.config, c.problem, arch)));
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Candidate const& c = candidates[i];
    CompileResult const r = futures[i].get();
    std::string const what = c.config.id() + " " + c.problem.describe() + " " + arch;
    ASSERT_TRUE(r.ok) << what << "\n" << r.log;
    std::size_t const kernels = f.launch_plan(c.config, c.problem).launches.size();
    ASSERT_EQ(r.resources.size(), kernels) << what;
    KernelResources const& k = r.resources[0];
    std::printf("%-80s %s regs=%3d spill=%d/%d stack=%d smem=%d\n", c.config.id().c_str(),
                arch.c_str(), k.registers, k.spill_stores, k.spill_loads, k.stack_bytes,
                k.static_smem);
    if (!no_spill) continue;
    for (KernelResources const& kr : r.resources) {
      EXPECT_EQ(kr.spill_stores, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.spill_loads, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.stack_bytes, 0) << what << " " << kr.lowered_name;
    }
  }
}

/// The configs expected to lead at 4096³ (NN) and at 16×4096×4096; benchmark these first.
std::vector<std::string> const& expected_leaders() {
  static std::vector<std::string> const ids = {
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0",
      "simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=3,CURE=2,ST=3,CP=1,SW=8,SK=1,RED=0",
      "simt:BM=128,BN=256,BK=8,TM=8,TN=16,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0",
      "simt:BM=256,BN=128,BK=8,TM=8,TN=16,LL=1,CURE=2,ST=2,CP=0,SW=8,SK=1,RED=0",
      "simt:BM=128,BN=128,BK=16,TM=8,TN=8,LL=3,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0",
  };
  return ids;
}

std::vector<std::string> const& expected_small_m_leaders() {
  static std::vector<std::string> const ids = {
      "simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=4,RED=0",
      "simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=0,CURE=1,ST=3,CP=1,SW=1,SK=8,RED=1",
      "simt:BM=16,BN=256,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=4,RED=0",
      "simt:BM=16,BN=64,BK=16,TM=4,TN=4,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=4,RED=1",
      "simt:BM=16,BN=128,BK=8,TM=4,TN=8,LL=2,CURE=2,ST=2,CP=0,SW=1,SK=8,RED=0",
  };
  return ids;
}

TEST(SimtCompile, SampleAtTheBenchmarkShapeDoesNotSpillOnSm90) {
  compile_all(spread(make(4096, 4096, 4096), 16), "sm_90", true);
}

TEST(SimtCompile, ExpectedLeadersAreValidAndDoNotSpillOnSm90) {
  std::vector<Candidate> c;
  for (std::string const& id : expected_leaders()) {
    c.push_back({parse_kernel_id(id), make(4096, 4096, 4096)});
  }
  for (std::string const& id : expected_small_m_leaders()) {
    c.push_back({parse_kernel_id(id), make(16, 4096, 4096)});
  }
  compile_all(c, "sm_90", true);
}

TEST(SimtCompile, SmallMSampleWithSplitKDoesNotSpillOnSm90) {
  compile_all(spread(make(16, 4096, 4096), 10), "sm_90", true);
}

TEST(SimtCompile, PipelinesSplitKAndScalarPathsCompileForEveryArch) {
  std::vector<Candidate> c = {
      {parse_kernel_id("simt:BM=128,BN=128,BK=16,TM=8,TN=8,LL=2,CURE=2,ST=4,CP=1,SW=8,SK=1,RED=0"),
       make(4096, 4096, 4096, Layout::kNT)},
      {parse_kernel_id("simt:BM=128,BN=64,BK=8,TM=8,TN=8,LL=0,CURE=1,ST=2,CP=1,SW=8,SK=4,RED=1"),
       make(1000, 1000, 16384, Layout::kTT, 4)},
      {parse_kernel_id("simt:BM=64,BN=128,BK=8,TM=4,TN=8,LL=1,CURE=0,ST=1,CP=0,SW=1,SK=2,RED=0"),
       make(500, 999, 777, Layout::kTN, 4)},
  };
  for (char const* arch : {"sm_80", "sm_86", "sm_90"}) compile_all(c, arch, false);
}

}  // namespace
}  // namespace gemmtune
