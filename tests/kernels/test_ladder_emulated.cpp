// Runs the fp32 ladder templates on the CPU (cuda_emulation.hpp) through their descriptors'
// launch plans, for every layout, ragged and aligned shapes, padded leading dimensions, and
// beta = 0 (C poisoned with NaN) and beta ≠ 0, comparing exactly with a reference computed on
// small integers (every partial sum is exact in fp32).
#include "tests/kernels/cuda_emulation.hpp"

// The templates under test, compiled by the host compiler.
#include "kernel_templates/ladder/blocktile_1d.cuh"
#include "kernel_templates/ladder/blocktile_2d.cuh"
#include "kernel_templates/ladder/coalesced.cuh"
#include "kernel_templates/ladder/naive.cuh"
#include "kernel_templates/ladder/smem_tiled.cuh"
#include "kernel_templates/ladder/vectorized.cuh"
#include "kernel_templates/ladder/warptile.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune::fp32 {
// Backing store of `extern __shared__` dynamic shared memory (one block runs at a time).
float4 dynamic_smem[227 * 1024 / 16];
}  // namespace gemmtune::fp32

namespace gemmtune {
namespace {

using Kernel = void (*)(GemmArgs);

/// One instantiation per layout (NN, NT, TN, TT) of a template with fixed tile arguments.
struct Case {
  std::string id;    ///< kernel id of the config
  std::string args;  ///< the tile arguments as they appear in the name expression
  Kernel kernels[4];
};

#define LADDER_CASE(family, id, ...)                                                        \
  Case {                                                                                    \
    id, #__VA_ARGS__, {                                                                     \
      &family<__VA_ARGS__, false, false>, &family<__VA_ARGS__, false, true>,                \
          &family<__VA_ARGS__, true, false>, &family<__VA_ARGS__, true, true>               \
    }                                                                                       \
  }

std::vector<Case> const& cases() {
  static std::vector<Case> const all = {
      LADDER_CASE(naive, "naive:BM=32,BN=32", 32,32),
      LADDER_CASE(naive, "naive:BM=8,BN=16", 8,16),
      LADDER_CASE(coalesced, "coalesced:BM=32,BN=32", 32,32),
      LADDER_CASE(coalesced, "coalesced:BM=16,BN=8", 16,8),
      LADDER_CASE(smem_tiled, "smem_tiled:BM=32,BN=32,BK=32", 32,32,32),
      LADDER_CASE(smem_tiled, "smem_tiled:BM=8,BN=16,BK=64", 8,16,64),
      LADDER_CASE(blocktile_1d, "blocktile_1d:BM=64,BN=64,BK=8,TM=8", 64,64,8,8),
      LADDER_CASE(blocktile_1d, "blocktile_1d:BM=32,BN=128,BK=16,TM=16", 32,128,16,16),
      LADDER_CASE(blocktile_2d, "blocktile_2d:BM=128,BN=128,BK=8,TM=8,TN=8", 128,128,8,8,8),
      LADDER_CASE(blocktile_2d, "blocktile_2d:BM=32,BN=64,BK=16,TM=4,TN=4", 32,64,16,4,4),
      LADDER_CASE(vectorized, "vectorized:BM=128,BN=128,BK=8,TM=8,TN=8", 128,128,8,8,8),
      LADDER_CASE(vectorized, "vectorized:BM=32,BN=64,BK=16,TM=4,TN=8", 32,64,16,4,8),
      LADDER_CASE(vectorized, "vectorized:BM=64,BN=128,BK=16,TM=8,TN=4", 64,128,16,8,4),
      LADDER_CASE(warptile,
                  "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128",
                  128,128,16,64,64,4,8,4,128),
      LADDER_CASE(warptile,
                  "warptile:BM=64,BN=128,BK=32,WM=32,WN=64,WNITER=2,TM=4,TN=4,NUM_THREADS=128",
                  64,128,32,32,64,2,4,4,128),
      LADDER_CASE(warptile,
                  "warptile:BM=128,BN=64,BK=16,WM=32,WN=32,WNITER=1,TM=4,TN=4,NUM_THREADS=256",
                  128,64,16,32,32,1,4,4,256),
  };
  return all;
}

struct Storage {
  std::int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
};

std::int64_t round_up4(std::int64_t v) { return (v + 3) / 4 * 4; }

/// A, B and C in row-major storage whose leading dimensions are the contiguous extent plus
/// `extra`, rounded up to a multiple of 4 when `align16`. A and B hold small integers; C holds
/// NaN (beta = 0: it must not be read) or small integers; C's padding columns hold a sentinel.
Storage make_storage(Problem const& p, bool align16, std::int64_t extra, bool poison_c,
                     std::mt19937& rng) {
  bool const ta = a_transposed(p.layout), tb = b_transposed(p.layout);
  auto ld = [&](std::int64_t dim) { return align16 ? round_up4(dim + extra) : dim + extra; };
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
      if (j >= p.n) {
        v = 12345.0f;
      } else {
        v = poison_c ? std::nanf("") : static_cast<float>(small(rng));
      }
    }
  }
  return s;
}

constexpr float kSentinel = 12345.0f;

/// Runs one case on one problem through the family's launch plan and checks every element of C
/// (and C's padding) exactly.
void check(Family const& family, Case const& c, Problem problem, bool align16, std::int64_t extra,
           float alpha, float beta) {
  SCOPED_TRACE(c.id + " on " + problem.shape() + " " + std::string(to_string(problem.layout)) +
               (align16 ? " aligned" : " packed") + " extra=" + std::to_string(extra) +
               " beta=" + std::to_string(beta));
  auto const& ladder = dynamic_cast<LadderFamily const&>(family);
  KernelConfig const cfg = parse_kernel_id(c.id);
  std::mt19937 rng(static_cast<unsigned>(problem.m * 131 + problem.n * 7 + problem.k));
  Storage s = make_storage(problem, align16, extra, beta == 0.0f, rng);
  problem.align = 16;  // std::vector storage is 16-byte aligned; the leading dims decide
  for (std::int64_t ld : {s.lda, s.ldb, s.ldc}) {
    problem.align = std::min(problem.align, alignment_class(static_cast<std::uint64_t>(ld) * 4));
  }
  ASSERT_EQ(family.reject_reason(cfg, problem, *arch_limits("sm_90")), "");

  LaunchPlan const plan = family.launch_plan(cfg, problem);
  ASSERT_EQ(plan.launches.size(), 1u);
  KernelLaunch const& launch = plan.launches[0];
  std::string const layout_args =
      std::string(a_transposed(problem.layout) ? "true," : "false,") +
      (b_transposed(problem.layout) ? "true>" : "false>");
  ASSERT_EQ(launch.name_expression,
            "gemmtune::" + std::string(family.name()) + "<" + c.args + "," + layout_args);
  ASSERT_EQ(ladder.name_expression(cfg, problem), launch.name_expression);

  std::vector<float> const c_before = s.c;
  struct Call {
    Kernel kernel;
    GemmArgs args;
  } call{c.kernels[static_cast<int>(problem.layout)],
         GemmArgs{problem.m, problem.n, problem.k, s.lda, s.ldb, s.ldc, s.a.data(), s.b.data(),
                  s.c.data(), nullptr, nullptr, alpha, beta, nullptr, nullptr}};
  emu::run_grid(static_cast<unsigned>(launch.grid.x), static_cast<unsigned>(launch.block.x),
                [](void* p) {
                  auto* k = static_cast<Call*>(p);
                  k->kernel(k->args);
                },
                &call);

  bool const ta = a_transposed(problem.layout), tb = b_transposed(problem.layout);
  int mismatches = 0;
  for (std::int64_t i = 0; i < problem.m; ++i) {
    for (std::int64_t j = 0; j < s.ldc; ++j) {
      std::size_t const at = static_cast<std::size_t>(i * s.ldc + j);
      double want = kSentinel;  // C's padding must stay untouched
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

bool uses_float4(std::string const& family) {
  return family == "vectorized" || family == "warptile";
}

class LadderEmulated : public ::testing::TestWithParam<std::size_t> {};

TEST_P(LadderEmulated, AlignedShapesOnEveryLayout) {
  Case const& c = cases()[GetParam()];
  Family const& family = *find_family(parse_kernel_id(c.id).family);
  for (Layout layout : kAllLayouts) {
    // Packed, every dimension a multiple of 4; M and N ragged against the tiles, K against BK.
    Problem const p{.m = 132, .n = 72, .k = 44, .precision = Precision::kFP32, .layout = layout};
    check(family, c, p, true, 0, 1.0f, 0.0f);
    check(family, c, p, true, 0, 2.0f, -1.0f);
    // Odd M, N, K in 16-byte aligned padded storage: float4 reads and stores meet the ragged
    // edge with 1, 2 and 3 elements left over.
    Problem const q{.m = 39, .n = 31, .k = 21, .precision = Precision::kFP32, .layout = layout};
    check(family, c, q, true, 0, 1.0f, 0.0f);
    check(family, c, q, true, 5, 0.5f, 3.0f);
    Problem const r{.m = 37, .n = 30, .k = 23, .precision = Precision::kFP32, .layout = layout};
    check(family, c, r, true, 0, 1.0f, 0.0f);
    Problem const u{.m = 70, .n = 33, .k = 34, .precision = Precision::kFP32, .layout = layout};
    check(family, c, u, true, 2, 1.0f, 0.0f);
    // Smaller than one tile in every direction.
    Problem const t{.m = 3, .n = 5, .k = 2, .precision = Precision::kFP32, .layout = layout};
    check(family, c, t, true, 0, 1.0f, 0.0f);
  }
}

TEST_P(LadderEmulated, PackedRaggedShapesOrAlignmentRejection) {
  Case const& c = cases()[GetParam()];
  KernelConfig const cfg = parse_kernel_id(c.id);
  Family const& family = *find_family(cfg.family);
  for (Layout layout : kAllLayouts) {
    Problem p{.m = 37, .n = 29, .k = 23, .precision = Precision::kFP32, .layout = layout};
    if (uses_float4(cfg.family)) {
      p.align = p.packed_alignment();
      ASSERT_EQ(p.align, 4);
      EXPECT_NE(family.reject_reason(cfg, p, *arch_limits("sm_90")).find("alignment"),
                std::string::npos);
      continue;
    }
    check(family, c, p, false, 0, 1.0f, 0.0f);
    check(family, c, p, false, 1, -1.0f, 2.0f);
    Problem const one{.m = 1, .n = 1, .k = 1, .precision = Precision::kFP32, .layout = layout};
    check(family, c, one, false, 0, 1.0f, 0.0f);
    Problem const deep{.m = 5, .n = 3, .k = 150, .precision = Precision::kFP32, .layout = layout};
    check(family, c, deep, false, 0, 1.0f, 0.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Ladder, LadderEmulated, ::testing::Range<std::size_t>(0, 16),
                         [](::testing::TestParamInfo<std::size_t> const& info) {
                           std::string id = cases()[info.param].id;
                           std::string name = id.substr(0, id.find(':')) + "_" +
                                              std::to_string(info.param);
                           return name;
                         });

TEST(LadderEmulatedDynamicSmem, WarptileAbove48KiBUsesDynamicSharedMemory) {
  // 256×256×32 stages 64 KiB: beyond static shared memory, so the template takes the dynamic
  // buffer and the launch plan must ask for it. (It is rejected on a GPU for its register
  // footprint; on the CPU it still checks the dynamic path and the plan.)
  Family const& family = *find_family("warptile");
  KernelConfig const cfg = parse_kernel_id(
      "warptile:BM=256,BN=256,BK=32,WM=128,WN=64,WNITER=2,TM=8,TN=8,NUM_THREADS=256");
  Problem p{.m = 260, .n = 36, .k = 40, .precision = Precision::kFP32, .layout = Layout::kNN};
  p.align = 16;
  EXPECT_EQ(family.smem_bytes(cfg, p), 64 * 1024);
  LaunchPlan const plan = family.launch_plan(cfg, p);
  EXPECT_EQ(plan.launches[0].dynamic_smem, 64 * 1024);
  EXPECT_NE(family.reject_reason(cfg, p, *arch_limits("sm_90")).find("registers"),
            std::string::npos);

  std::mt19937 rng(3);
  Storage s = make_storage(p, true, 0, true, rng);
  GemmArgs args{p.m, p.n, p.k, s.lda, s.ldb, s.ldc, s.a.data(), s.b.data(), s.c.data(),
                nullptr, nullptr, 1.0f, 0.0f};
  struct Call {
    GemmArgs args;
  } call{args};
  emu::run_grid(static_cast<unsigned>(plan.launches[0].grid.x),
                static_cast<unsigned>(plan.launches[0].block.x),
                [](void* q) {
                  warptile<256, 256, 32, 128, 64, 2, 8, 8, 256, false, false>(
                      static_cast<Call*>(q)->args);
                },
                &call);
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (std::int64_t k = 0; k < p.k; ++k) {
        acc += double{s.a[static_cast<std::size_t>(i * s.lda + k)]} *
               s.b[static_cast<std::size_t>(k * s.ldb + j)];
      }
      ASSERT_EQ(s.c[static_cast<std::size_t>(i * s.ldc + j)], acc) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace gemmtune
