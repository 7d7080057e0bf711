// The mma family through NVRTC: a deterministic sample of the valid space for fp16, bf16 and
// tf32, all four layouts, the 4096³ benchmark shape and a ragged unaligned shape, compiles for
// sm_80, sm_86, sm_89 and sm_90 with no spills and no stack (the accumulators and both fragment
// sets stay in registers, so the "registers" constraint prunes what would spill); the
// configs expected to lead at 4096³ compile on every arch; split-K plans compile both kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/mma_family.hpp"
#include "src/nvrtc/compile_pool.hpp"

namespace gemmtune {
namespace {

struct Candidate {
  KernelConfig config;
  Problem problem;
};

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Precision p, Layout layout,
             int align = 0) {
  Problem q{.m = m, .n = n, .k = k, .precision = p, .layout = layout};
  q.align = align;
  return q.resolved();
}

/// `n` valid configs of `p` on `arch`, spread evenly over the valid space (first and last
/// included).
std::vector<Candidate> spread(Problem const& p, std::string const& arch, std::size_t n) {
  Family const& f = mma_family();
  DeviceLimits const limits = *arch_limits(arch);
  std::vector<Candidate> all;
  for (KernelConfig const& cfg : f.enumerate()) {
    if (f.reject_reason(cfg, p, limits).empty()) all.push_back({cfg, p});
  }
  if (all.size() <= n) return all;
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(all[i * (all.size() - 1) / (n - 1)]);
  return out;
}

/// Compiles every candidate for `arch`; expects success, one resource line per launch, and no
/// spill traffic and no stack frame in any kernel.
void compile_all(std::vector<Candidate> const& candidates, std::string const& arch) {
  Family const& f = mma_family();
  Compiler const compiler(CompilerSettings{});
  // As many compiles as cores: the whole-space run is hours on two and minutes on sixteen.
  CompilePool pool(compiler, std::max(2u, std::thread::hardware_concurrency()));
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
    ASSERT_EQ(r.resources.size(), f.launch_plan(c.config, c.problem).launches.size()) << what;
    KernelResources const& k = r.resources[0];
    std::printf("%-56s %-28s %s regs=%3d spill=%d/%d stack=%d est=%d\n", c.config.id().c_str(),
                c.problem.describe().c_str(), arch.c_str(), k.registers, k.spill_stores,
                k.spill_loads, k.stack_bytes, MmaFamily::register_estimate(c.config, c.problem));
    for (KernelResources const& kr : r.resources) {
      EXPECT_EQ(kr.spill_stores, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.spill_loads, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.stack_bytes, 0) << what << " " << kr.lowered_name;
    }
  }
}

/// The configs expected to lead at 4096³ for 16-bit types; benchmark these first.
std::vector<std::string> const& expected_leaders() {
  static std::vector<std::string> const ids = {
      "mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1",
      "mma:BM=128,BN=256,BK=32,WM=64,WN=64,ST=3,SW=8,SK=1",
      "mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1",
      "mma:BM=128,BN=128,BK=64,WM=64,WN=32,ST=3,SW=8,SK=1",
      "mma:BM=256,BN=128,BK=32,WM=64,WN=64,ST=4,SW=8,SK=1",
  };
  return ids;
}

class MmaCompile : public ::testing::TestWithParam<char const*> {};

TEST_P(MmaCompile, SampleOfEveryPrecisionAndLayoutDoesNotSpill) {
  std::string const arch = GetParam();
  std::vector<Candidate> picked;
  std::size_t rotate = 0;
  for (Precision p : {Precision::kFP16, Precision::kBF16, Precision::kTF32}) {
    for (Layout l : kAllLayouts) {
      // Two configs per (precision, layout) at 4096³, offset so the archs see different ones.
      std::vector<Candidate> const s = spread(make(4096, 4096, 4096, p, l), arch, 7);
      ASSERT_FALSE(s.empty()) << to_string(p) << " " << to_string(l);
      picked.push_back(s[(rotate + std::string(arch).back()) % s.size()]);
      picked.push_back(s[(rotate + 3 + std::string(arch).back()) % s.size()]);
      ++rotate;
    }
    // A ragged, 2-byte (4 for tf32) aligned shape: the scalar-fill path, split-K allowed.
    std::vector<Candidate> const r = spread(make(333, 517, 1999, p, Layout::kTN, input_bytes(p)), arch, 5);
    ASSERT_FALSE(r.empty());
    picked.push_back(r[std::string(arch).back() % r.size()]);
  }
  compile_all(picked, arch);
}

TEST_P(MmaCompile, ExpectedLeadersAndSplitKCompile) {
  std::string const arch = GetParam();
  std::vector<Candidate> picked;
  DeviceLimits const limits = *arch_limits(arch);
  for (std::string const& id : expected_leaders()) {
    Problem const p = make(4096, 4096, 4096, Precision::kBF16, Layout::kNN);
    KernelConfig const c = parse_kernel_id(id);
    // The biggest ones need more shared memory than sm_86/sm_89 can give a block.
    if (mma_family().reject_reason(c, p, limits).empty()) picked.push_back({c, p});
  }
  EXPECT_GE(picked.size(), 2u);
  picked.push_back({parse_kernel_id("mma:BM=64,BN=64,BK=32,WM=32,WN=64,ST=3,SW=1,SK=8"),
                    make(128, 256, 8192, Precision::kFP16, Layout::kNT)});
  picked.push_back({parse_kernel_id("mma:BM=64,BN=128,BK=16,WM=32,WN=64,ST=4,SW=1,SK=4"),
                    make(256, 256, 4096, Precision::kTF32, Layout::kTT)});
  // Short tiles: the 16×4096×4096 winner, and tf32 at its 32-row minimum with A stored K×M.
  picked.push_back({parse_kernel_id("mma:BM=16,BN=128,BK=64,WM=16,WN=32,ST=5,SW=1,SK=4"),
                    make(16, 4096, 4096, Precision::kBF16, Layout::kNN)});
  picked.push_back({parse_kernel_id("mma:BM=32,BN=64,BK=32,WM=16,WN=32,ST=4,SW=1,SK=8"),
                    make(16, 4096, 4096, Precision::kTF32, Layout::kTN)});
  if (arch == "sm_90") {  // split-K summed across a cluster: clusters exist from sm_90
    picked.push_back({parse_kernel_id("mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=8,CR=1"),
                      make(64, 4096, 4096, Precision::kBF16, Layout::kNN)});
    picked.push_back({parse_kernel_id("mma:BM=128,BN=64,BK=32,WM=64,WN=32,ST=3,SW=1,SK=4,CR=1"),
                      make(72, 520, 1032, Precision::kTF32, Layout::kTT)});
  }
  compile_all(picked, arch);
}

// Compiles every distinct kernel of the valid spaces of every precision and layout at 4096³
// and at a ragged unaligned shape (the code depends on the config, precision, layout and
// alignment path, not on the shape) for GEMMTUNE_SPACE_ARCH (default sm_90), one line per
// kernel, and fails on any spill. GEMMTUNE_SPACE_FILTER keeps only ids containing that text
// (e.g. "WM=64,WN=64", the tiles nearest the register limit). Slow: ~1 compile per second per
// core; run it through compile_mma_space.sh.
TEST(MmaCompileWholeSpace, DISABLED_WholeSpace) {
  char const* arch_env = std::getenv("GEMMTUNE_SPACE_ARCH");
  char const* filter_env = std::getenv("GEMMTUNE_SPACE_FILTER");
  char const* precision_env = std::getenv("GEMMTUNE_SPACE_PRECISION");
  std::string const only = precision_env ? precision_env : "";
  std::string const arch = arch_env && *arch_env ? arch_env : "sm_90";
  std::string const filter = filter_env ? filter_env : "";
  std::set<std::string> seen;
  std::vector<Candidate> picked;
  for (Precision p : {Precision::kFP16, Precision::kBF16, Precision::kTF32}) {
    if (!only.empty() && only != to_string(p)) continue;
    for (Layout l : kAllLayouts) {
      for (Problem const& q :
           {make(4096, 4096, 4096, p, l), make(333, 517, 1999, p, l, input_bytes(p))}) {
        for (Candidate const& c : spread(q, arch, std::size_t{1} << 20)) {
          if (c.config.id().find(filter) == std::string::npos) continue;
          if (seen.insert(mma_family().compile_request(c.config, c.problem, arch).name_expressions[0]).second) {
            picked.push_back(c);
          }
        }
      }
    }
  }
  compile_all(picked, arch);
  std::printf("== mma on %s: %zu distinct kernels compiled\n", arch.c_str(), picked.size());
}

INSTANTIATE_TEST_SUITE_P(Archs, MmaCompile, ::testing::Values("sm_80", "sm_86", "sm_89", "sm_90"),
                         [](::testing::TestParamInfo<char const*> const& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace gemmtune
