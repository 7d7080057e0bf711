// Runs the simt template on the CPU (cuda_emulation.hpp) through the descriptor's launch plan
// (main kernel over tiles × split-K slices, summed by each tile's last slice in either order or
// by the reduce kernel, or atomics then the finalize kernel), for every layout, both
// vector and scalar paths, ragged shapes, padded leading dimensions, beta = 0 (C poisoned with
// NaN) and beta ≠ 0, comparing exactly with a reference on small integers. The cp.async
// configs run their multi-stage ring with synchronous copies (the template's non-sm_80 path).
#include "tests/kernels/cuda_emulation.hpp"

/// The atomics of split-K RED=1: emulated threads switch only at barriers, so a plain add is
/// atomic here.
inline float atomicAdd(float* p, float v) {
  float const old = *p;
  *p = old + v;
  return old;
}

#include "kernel_templates/simt/simt.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/simt_family.hpp"

namespace gemmtune::fp32 {
// Backing store of `extern __shared__` dynamic shared memory (one block runs at a time).
float4 dynamic_smem[227 * 1024 / 16];
}  // namespace gemmtune::fp32

namespace gemmtune {
namespace {

using Kernel = void (*)(GemmArgs);

/// One config: its main kernel for every (VEC, layout) and the tile arguments as they appear
/// in the name expression.
struct Case {
  std::string id;
  std::string args;
  Kernel kernels[8];  ///< [vec * 4 + layout]
};

#define SIMT_LAYOUTS(vec, ...)                                                         \
  &simt<__VA_ARGS__, false, false, vec>, &simt<__VA_ARGS__, false, true, vec>,         \
      &simt<__VA_ARGS__, true, false, vec>, &simt<__VA_ARGS__, true, true, vec>
#define SIMT_CASE(id, ...) \
  Case { id, #__VA_ARGS__, {SIMT_LAYOUTS(false, __VA_ARGS__), SIMT_LAYOUTS(true, __VA_ARGS__)} }

std::vector<Case> const& cases() {
  static std::vector<Case> const all = {
      SIMT_CASE("simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=1,ST=2,CP=0,SW=8,SK=1,RED=0",
                128,128,8,8,8,1,1,2,0,8,1,0),
      SIMT_CASE("simt:BM=64,BN=128,BK=16,TM=8,TN=4,LL=2,CURE=2,ST=3,CP=1,SW=1,SK=1,RED=0",
                64,128,16,8,4,2,2,3,1,1,1,0),
      SIMT_CASE("simt:BM=128,BN=64,BK=8,TM=4,TN=8,LL=3,CURE=0,ST=1,CP=0,SW=8,SK=2,RED=0",
                128,64,8,4,8,3,0,1,0,8,2,0),
      SIMT_CASE("simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=1,ST=4,CP=1,SW=1,SK=4,RED=1",
                16,128,16,4,8,2,1,4,1,1,4,1),
      SIMT_CASE("simt:BM=64,BN=64,BK=16,TM=8,TN=8,LL=0,CURE=2,ST=2,CP=1,SW=8,SK=16,RED=0",
                64,64,16,8,8,0,2,2,1,8,16,0),
      SIMT_CASE("simt:BM=128,BN=128,BK=8,TM=8,TN=8,LL=1,CURE=2,ST=3,CP=1,SW=8,SK=1,RED=0",
                128,128,8,8,8,1,2,3,1,8,1,0),
      SIMT_CASE("simt:BM=128,BN=256,BK=16,TM=8,TN=16,LL=2,CURE=1,ST=2,CP=0,SW=8,SK=8,RED=1",
                128,256,16,8,16,2,1,2,0,8,8,1),
      // Register-staged with the XOR cure: fixed-stride loads in the hot loop (the 4096³
      // winner), and a block too small for them under the cure (NN and NT: A's line step is
      // 16 columns, not a whole swizzle group), which keeps the per-item loop.
      SIMT_CASE("simt:BM=128,BN=256,BK=16,TM=8,TN=16,LL=0,CURE=2,ST=2,CP=0,SW=8,SK=1,RED=0",
                128,256,16,8,16,0,2,2,0,8,1,0),
      SIMT_CASE("simt:BM=16,BN=128,BK=16,TM=4,TN=8,LL=2,CURE=2,ST=2,CP=0,SW=1,SK=2,RED=0",
                16,128,16,4,8,2,2,2,0,1,2,0),
  };
  return all;
}

Kernel reduce_kernel(std::string const& expression) {
  static std::map<std::string, Kernel> const kernels = {
      {"gemmtune::simt_reduce<1,false>", &simt_reduce<1, false>},
      {"gemmtune::simt_reduce<1,true>", &simt_reduce<1, true>},
      {"gemmtune::simt_reduce<16,false>", &simt_reduce<16, false>},
      {"gemmtune::simt_reduce<16,true>", &simt_reduce<16, true>},
  };
  auto const it = kernels.find(expression);
  return it == kernels.end() ? nullptr : it->second;
}

struct Storage {
  std::int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
};

constexpr float kSentinel = 12345.0f;

/// Row-major A, B, C with leading dimension = contiguous extent + extra (rounded up to 4 when
/// align16). Small integers in A and B; C holds NaN (beta = 0) or small integers, its padding
/// a sentinel.
Storage make_storage(Problem const& p, bool align16, std::int64_t extra, bool poison_c,
                     std::mt19937& rng) {
  bool const ta = a_transposed(p.layout), tb = b_transposed(p.layout);
  auto ld = [&](std::int64_t dim) { return align16 ? (dim + extra + 3) / 4 * 4 : dim + extra; };
  Storage s;
  s.lda = ld(ta ? p.m : p.k);
  s.ldb = ld(tb ? p.k : p.n);
  s.ldc = ld(p.n);
  std::uniform_int_distribution<int> small(-3, 3);
  s.a.resize(static_cast<std::size_t>((ta ? p.k : p.m) * s.lda));
  s.b.resize(static_cast<std::size_t>((tb ? p.n : p.k) * s.ldb));
  s.c.resize(static_cast<std::size_t>(p.m * s.ldc));
  for (float& v : s.a) v = static_cast<float>(small(rng));
  for (float& v : s.b) v = static_cast<float>(small(rng));
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < s.ldc; ++j) {
      float& v = s.c[static_cast<std::size_t>(i * s.ldc + j)];
      v = j >= p.n ? kSentinel : (poison_c ? std::nanf("") : static_cast<float>(small(rng)));
    }
  }
  return s;
}

struct Call {
  Kernel kernel;
  GemmArgs args;
};

void run(KernelLaunch const& launch, Kernel kernel, GemmArgs const& args) {
  Call call{kernel, args};
  emu::run_grid(static_cast<unsigned>(launch.grid.x), static_cast<unsigned>(launch.block.x),
                [](void* p) {
                  auto* c = static_cast<Call*>(p);
                  c->kernel(c->args);
                },
                &call, static_cast<unsigned>(launch.grid.z));
}

/// Runs one case on one problem through the launch plan; checks C and its padding exactly.
/// Returns false (with a failure) when the descriptor rejects the problem.
void check(Case const& c, Problem problem, bool align16, std::int64_t extra, float alpha,
           float beta) {
  SCOPED_TRACE(c.id + " on " + problem.shape() + " " + std::string(to_string(problem.layout)) +
               (align16 ? " aligned" : " packed") + " extra=" + std::to_string(extra) +
               " beta=" + std::to_string(beta));
  auto const& family = dynamic_cast<SimtFamily const&>(*find_family("simt"));
  KernelConfig const cfg = parse_kernel_id(c.id);
  std::mt19937 rng(static_cast<unsigned>(problem.m * 131 + problem.n * 7 + problem.k));
  Storage s = make_storage(problem, align16, extra, beta == 0.0f, rng);
  problem.align = 16;  // std::vector storage is 16-byte aligned; the leading dims decide
  for (std::int64_t ld : {s.lda, s.ldb, s.ldc}) {
    problem.align = std::min(problem.align, alignment_class(static_cast<std::uint64_t>(ld) * 4));
  }
  bool const vec = problem.align >= 16;

  LaunchPlan const plan = family.launch_plan(cfg, problem);
  bool const split = cfg.at("SK") > 1;
  // Atomics, or partials beyond SK = 2, then a reduce kernel; else the last slice sums.
  bool const finalize = split && (cfg.at("RED") == 1 || !last_slice_sums(cfg.at("SK")));
  ASSERT_EQ(plan.launches.size(), finalize ? 2u : 1u);
  ASSERT_EQ(plan.counter_bytes, split && !finalize ? SimtFamily::tiles(cfg, problem) * 4 : 0);
  std::string const flags = std::string(a_transposed(problem.layout) ? "true," : "false,") +
                            (b_transposed(problem.layout) ? "true," : "false,") +
                            (vec ? "true>" : "false>");
  ASSERT_EQ(plan.launches[0].name_expression, "gemmtune::simt<" + c.args + "," + flags);
  ASSERT_EQ(plan.launches[0].block.x,
            (simt_detail::block_threads(static_cast<int>(cfg.at("BM")),
                                        static_cast<int>(cfg.at("BN")),
                                        static_cast<int>(cfg.at("TM")),
                                        static_cast<int>(cfg.at("TN")),
                                        static_cast<int>(cfg.at("LL")))));

  // Workspace: zeros when the plan asks (atomics), NaN otherwise (every partial read must
  // have been written).
  std::vector<float> workspace(static_cast<std::size_t>(plan.workspace_bytes / 4),
                               plan.zero_workspace ? 0.0f : std::nanf(""));
  std::vector<unsigned> counters(static_cast<std::size_t>(plan.counter_bytes / 4), 0u);
  GemmArgs const args{problem.m, problem.n, problem.k, s.lda,       s.ldb,
                      s.ldc,     s.a.data(), s.b.data(), s.c.data(),
                      workspace.empty() ? nullptr : workspace.data(),
                      counters.empty() ? nullptr : counters.data(), alpha, beta};
  std::vector<float> const c_before = s.c;
  static int calls = 0;
  emu::g_reverse_grid = split && ++calls % 2 == 0;  // either slice order may finish last
  run(plan.launches[0], c.kernels[(vec ? 4 : 0) + static_cast<int>(problem.layout)], args);
  emu::g_reverse_grid = false;
  if (finalize) {
    Kernel const reduce = reduce_kernel(plan.launches[1].name_expression);
    ASSERT_NE(reduce, nullptr) << plan.launches[1].name_expression;
    run(plan.launches[1], reduce, args);
  }
  for (unsigned v : counters) ASSERT_EQ(v, 0u) << "a split-K counter was not left at zero";

  bool const ta = a_transposed(problem.layout), tb = b_transposed(problem.layout);
  int mismatches = 0;
  for (std::int64_t i = 0; i < problem.m; ++i) {
    for (std::int64_t j = 0; j < s.ldc; ++j) {
      std::size_t const at = static_cast<std::size_t>(i * s.ldc + j);
      double want = kSentinel;
      if (j < problem.n) {
        double acc = 0.0;
        for (std::int64_t k = 0; k < problem.k; ++k) {
          double const a = s.a[static_cast<std::size_t>(ta ? k * s.lda + i : i * s.lda + k)];
          double const b = s.b[static_cast<std::size_t>(tb ? j * s.ldb + k : k * s.ldb + j)];
          acc += a * b;
        }
        want = alpha * acc + (beta == 0.0f ? 0.0 : beta * c_before[at]);
      }
      if (!(static_cast<double>(s.c[at]) == want) && ++mismatches <= 5) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << s.c[at] << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

class SimtEmulated : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SimtEmulated, AlignedShapesOnEveryLayout) {
  Case const& c = cases()[GetParam()];
  for (Layout layout : kAllLayouts) {
    auto shape = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
      return Problem{.m = m, .n = n, .k = k, .precision = Precision::kFP32, .layout = layout};
    };
    // Ragged against every tile; K deep enough for several steps per split-K slice.
    check(c, shape(132, 72, 136), true, 0, 1.0f, 0.0f);
    // Whole tiles inside the matrix beside edge tiles, K ragged: the hot loop's fixed-stride
    // steps, then the checked last steps; edge tiles check every step.
    check(c, shape(260, 520, 200), true, 0, 1.0f, 0.0f);
    check(c, shape(132, 72, 136), true, 0, 2.0f, -1.0f);
    // Odd M, N, K in 16-byte aligned padded storage: float4 paths meet 1, 2 and 3 leftovers.
    check(c, shape(39, 31, 77), true, 0, 1.0f, 0.0f);
    check(c, shape(37, 30, 45), true, 5, 0.5f, 3.0f);
    // Smaller than one tile in every direction, and K shorter than the split.
    check(c, shape(3, 5, 2), true, 0, 1.0f, 0.0f);
  }
}

TEST_P(SimtEmulated, PackedOddShapesTakeTheScalarPath) {
  Case const& c = cases()[GetParam()];
  for (Layout layout : kAllLayouts) {
    auto shape = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
      return Problem{.m = m, .n = n, .k = k, .precision = Precision::kFP32, .layout = layout};
    };
    check(c, shape(37, 29, 71), false, 0, 1.0f, 0.0f);
    check(c, shape(260, 520, 200), false, 1, 1.0f, 0.0f);
    check(c, shape(37, 29, 71), false, 1, -1.0f, 2.0f);
    check(c, shape(1, 1, 1), false, 0, 1.0f, 0.0f);
    check(c, shape(5, 3, 150), false, 0, 1.0f, 0.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Simt, SimtEmulated, ::testing::Range<std::size_t>(0, 9),
                         [](::testing::TestParamInfo<std::size_t> const& info) {
                           return "case_" + std::to_string(info.param);
                         });

TEST(SimtEmulatedCases, CoverBothRegisterStagedLoadPaths) {
  // Operand<BX, BK, THREADS, TRANS, VEC, CURE> of A in NN (transposed into shared memory).
  EXPECT_TRUE((simt_detail::Operand<128, 16, 256, true, true, 2>::kFixedStride));
  EXPECT_TRUE((simt_detail::Operand<256, 16, 256, false, true, 2>::kFixedStride));
  EXPECT_FALSE((simt_detail::Operand<16, 16, 64, true, true, 2>::kFixedStride));
  EXPECT_TRUE((simt_detail::Operand<16, 16, 64, false, true, 2>::kFixedStride));
}

TEST(SimtEmulatedCases, AreValidConfigsOfTheFamily) {
  Family const& family = *find_family("simt");
  Problem p{.m = 1024, .n = 1024, .k = 16384, .precision = Precision::kFP32,
            .layout = Layout::kNN};
  for (Case const& c : cases()) {
    KernelConfig const cfg = parse_kernel_id(c.id);
    EXPECT_EQ(family.canonical(cfg).id(), c.id);
    Problem q = p;
    if (cfg.at("BM") == 16) q.m = 16;
    std::string const why = family.reject_reason(cfg, q.resolved(), *arch_limits("sm_90"));
    // Emulated cases may include configs the default search prunes for speed, never ones
    // that break the template's own rules.
    for (char const* rule : {"pipeline", "warp_tiles", "block_size", "registers"}) {
      EXPECT_NE(why.rfind(rule, 0), 0u) << c.id << ": " << why;
    }
  }
}

}  // namespace
}  // namespace gemmtune
