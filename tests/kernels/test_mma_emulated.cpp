// Runs the mma template on the CPU (cuda_emulation.hpp) with the warp-collective instructions
// emulated from the PTX ISA's fragment layouts (ldmatrix with and without .trans, mma.sync
// m16n8k16 and m16n8k8), through the descriptor's launch plan (split-K summed in each tile's last slice in both slice orders, or by the reduce kernel), for
// fp16, bf16 and tf32, every layout, cp.async and scalar-fill paths, ragged shapes, padded
// leading dimensions, beta = 0 (C poisoned with NaN) and beta ≠ 0. Inputs are small integers, so
// the FP32 sums are exact and C must match the reference bit for bit after rounding.
#include "tests/kernels/cuda_emulation.hpp"

#include <array>
#include <cstdint>
#include <cstring>

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct alignas(8) float2 {
  float x, y;
};
inline float2 make_float2(float x, float y) { return {x, y}; }

namespace gemmtune {
// Backing store of the template's `extern __shared__` ring (one block runs at a time).
alignas(128) unsigned char smem[232448];
}  // namespace gemmtune

namespace emu_mma {

inline float bits_to_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned float_to_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float fp16_to_float(unsigned short h) {
  _Float16 x;
  std::memcpy(&x, &h, 2);
  return static_cast<float>(x);
}
inline unsigned short float_to_fp16(float f) {
  _Float16 const x = static_cast<_Float16>(f);  // round to nearest even
  unsigned short h;
  std::memcpy(&h, &x, 2);
  return h;
}
inline unsigned short float_to_bf16(float f) {
  unsigned const u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/// Per-thread mailboxes of the emulated warp collectives.
inline std::array<unsigned, 8> g_slot[1024];

/// Every lane of the block posts `in`, then (after a barrier) reads its warp's posts; a second
/// barrier keeps the mailboxes until all lanes have read. Valid because the template issues
/// its collectives uniformly across the block.
template <typename Read>
void collective(std::array<unsigned, 8> const& in, Read&& read) {
  unsigned const tid = threadIdx.x;
  g_slot[tid] = in;
  __syncthreads();
  read(&g_slot[tid & ~31u], tid & 31u);
  __syncthreads();
}

}  // namespace emu_mma

#define GEMMTUNE_MMA_EMULATED 1
namespace gemmtune::mma_detail {

inline unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(static_cast<const unsigned char*>(p) - smem);
}
inline unsigned load32(unsigned addr) {
  unsigned v;
  std::memcpy(&v, smem + addr, 4);
  return v;
}
inline unsigned load16(unsigned addr) {
  unsigned short v;
  std::memcpy(&v, smem + addr, 2);
  return v;
}

/// Matrix j's row r is the 16 bytes at the address lane 8j + r posted; lane l receives row
/// l/4, 32-bit word l%4 (non-trans), or the b16 pair (rows 2(l%4), 2(l%4)+1; column l/4).
inline void ldmatrix_any(unsigned (&r)[4], unsigned addr, bool trans) {
  emu_mma::collective({addr}, [&](std::array<unsigned, 8> const* warp, unsigned lane) {
    for (unsigned j = 0; j < 4; ++j) {
      if (!trans) {
        r[j] = load32(warp[8 * j + lane / 4][0] + (lane % 4) * 4);
      } else {
        unsigned const lo = load16(warp[8 * j + 2 * (lane % 4)][0] + (lane / 4) * 2);
        unsigned const hi = load16(warp[8 * j + 2 * (lane % 4) + 1][0] + (lane / 4) * 2);
        r[j] = lo | (hi << 16);
      }
    }
  });
}
inline void ldmatrix_x4(unsigned (&r)[4], unsigned addr) { ldmatrix_any(r, addr, false); }
inline void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) { ldmatrix_any(r, addr, true); }
inline unsigned lds32(unsigned addr) { return load32(addr); }

/// d += A·B with A (16×K) and B (K×8) gathered from the warp's fragments as the PTX ISA lays
/// them out: lane 4g + t holds A rows g and g+8 and B column g; D rows g, g+8, columns 2t, 2t+1.
template <int PREC>
inline void mma(float (&d)[4], unsigned const (&a)[4], unsigned const (&b)[2]) {
  std::array<unsigned, 8> const in = {a[0], a[1], a[2], a[3], b[0], b[1], 0u, 0u};
  emu_mma::collective(in, [&](std::array<unsigned, 8> const* warp, unsigned lane) {
    auto elem = [](unsigned word, unsigned half) -> float {
      if constexpr (PREC == 2) {
        return emu_mma::bits_to_float(word & ~0x1fffu);  // the tensor core reads 19 bits
      } else {
        unsigned short const h = static_cast<unsigned short>(half ? word >> 16 : word & 0xffffu);
        return PREC == 0 ? emu_mma::fp16_to_float(h) : emu_mma::bits_to_float(unsigned{h} << 16);
      }
    };
    auto A = [&](unsigned row, unsigned k) {
      if constexpr (PREC == 2) {
        return elem(warp[(row % 8) * 4 + k % 4][(row < 8 ? 0 : 1) + (k < 4 ? 0 : 2)], 0);
      } else {
        return elem(warp[(row % 8) * 4 + (k % 8) / 2][(row < 8 ? 0 : 1) + (k < 8 ? 0 : 2)], k % 2);
      }
    };
    auto B = [&](unsigned k, unsigned col) {
      if constexpr (PREC == 2) {
        return elem(warp[col * 4 + k % 4][4 + (k < 4 ? 0 : 1)], 0);
      } else {
        return elem(warp[col * 4 + (k % 8) / 2][4 + (k < 8 ? 0 : 1)], k % 2);
      }
    };
    unsigned const kk = PREC == 2 ? 8 : 16, g = lane / 4, t = lane % 4;
    for (unsigned q = 0; q < 4; ++q) {
      unsigned const row = g + (q / 2) * 8, col = 2 * t + q % 2;
      float s = d[q];
      for (unsigned k = 0; k < kk; ++k) s += A(row, k) * B(k, col);
      d[q] = s;
    }
  });
}

inline void cp_async16(unsigned dst, const void* src, int bytes) {
  std::memset(smem + dst, 0, 16);
  if (bytes > 0) std::memcpy(smem + dst, src, static_cast<std::size_t>(bytes));
}
inline void cp_async_commit() {}
template <int PENDING>
inline void cp_async_wait() {}

template <int PREC>
inline float half_bits_to_float(unsigned short h) {
  return PREC == 0 ? emu_mma::fp16_to_float(h) : emu_mma::bits_to_float(unsigned{h} << 16);
}
template <int PREC>
inline unsigned short to_half_bits(float f) {
  return PREC == 0 ? emu_mma::float_to_fp16(f) : emu_mma::float_to_bf16(f);
}

}  // namespace gemmtune::mma_detail

#include "kernel_templates/mma/mma.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/mma_family.hpp"

namespace gemmtune {
namespace {

using Kernel = void (*)(GemmArgs);

/// Registry of instantiated kernels by the name expression the descriptor produces.
std::map<std::string, Kernel>& kernels() {
  static std::map<std::string, Kernel> all;
  return all;
}

template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK, int PREC, bool TA,
          bool TB, int ALIGN>
void add_one() {
  std::string name = "gemmtune::mma_gemm<";
  for (int v : {BM, BN, BK, WM, WN, ST, SW, SK, 0, PREC}) name += std::to_string(v) + ",";
  name += std::string(TA ? "true," : "false,") + (TB ? "true," : "false,") +
          std::to_string(ALIGN) + ">";
  kernels()[name] = &mma_gemm<BM, BN, BK, WM, WN, ST, SW, SK, 0, PREC, TA, TB, ALIGN>;
}

template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK, int PREC, int ALIGN>
void add_layouts() {
  add_one<BM, BN, BK, WM, WN, ST, SW, SK, PREC, false, false, ALIGN>();
  add_one<BM, BN, BK, WM, WN, ST, SW, SK, PREC, false, true, ALIGN>();
  add_one<BM, BN, BK, WM, WN, ST, SW, SK, PREC, true, false, ALIGN>();
  add_one<BM, BN, BK, WM, WN, ST, SW, SK, PREC, true, true, ALIGN>();
}

/// One config for fp16 and bf16 (BK elements), every layout and the alignment classes the tests
/// produce.
template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK>
void add_config16() {
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 0, 16>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 0, 2>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 1, 16>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 1, 2>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 1, 4>();
  if constexpr (SK > 1 && !split_k::last_slice_sums(SK)) {
    kernels()["gemmtune::mma_reduce<" + std::to_string(SK) + ",0>"] = &mma_reduce<SK, 0>;
    kernels()["gemmtune::mma_reduce<" + std::to_string(SK) + ",1>"] = &mma_reduce<SK, 1>;
  }
}

/// The same for tf32.
template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK>
void add_config32() {
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 2, 16>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 2, 8>();
  add_layouts<BM, BN, BK, WM, WN, ST, SW, SK, 2, 4>();
  if constexpr (SK > 1 && !split_k::last_slice_sums(SK)) {
    kernels()["gemmtune::mma_reduce<" + std::to_string(SK) + ",2>"] = &mma_reduce<SK, 2>;
  }
}

/// One config for fp16 and bf16 (BK16 elements) and for tf32 (BK32).
template <int BM, int BN, int BK16, int BK32, int WM, int WN, int ST, int SW, int SK>
void add_config() {
  add_config16<BM, BN, BK16, WM, WN, ST, SW, SK>();
  add_config32<BM, BN, BK32, WM, WN, ST, SW, SK>();
}

struct Case {
  std::string id16;  ///< fp16/bf16 id
  std::string id32;  ///< tf32 id
};

std::vector<Case> const& cases() {
  static std::vector<Case> const all = [] {
    add_config<64, 64, 32, 16, 32, 32, 3, 1, 1>();
    add_config<128, 64, 64, 32, 64, 32, 2, 8, 2>();
    add_config<64, 128, 32, 16, 32, 64, 4, 8, 1>();
    add_config<128, 128, 32, 16, 64, 64, 5, 1, 4>();
    // Short tiles: 16 rows for 16-bit types; tf32 with A stored K×M needs 32 (its fragment
    // reads take 8 chunks of a row).
    add_config16<16, 64, 64, 16, 32, 4, 1, 4>();
    add_config32<32, 64, 32, 16, 32, 4, 1, 4>();
    return std::vector<Case>{
        {"mma:BM=64,BN=64,BK=32,WM=32,WN=32,ST=3,SW=1,SK=1",
         "mma:BM=64,BN=64,BK=16,WM=32,WN=32,ST=3,SW=1,SK=1"},
        {"mma:BM=128,BN=64,BK=64,WM=64,WN=32,ST=2,SW=8,SK=2",
         "mma:BM=128,BN=64,BK=32,WM=64,WN=32,ST=2,SW=8,SK=2"},
        {"mma:BM=64,BN=128,BK=32,WM=32,WN=64,ST=4,SW=8,SK=1",
         "mma:BM=64,BN=128,BK=16,WM=32,WN=64,ST=4,SW=8,SK=1"},
        {"mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=5,SW=1,SK=4",
         "mma:BM=128,BN=128,BK=16,WM=64,WN=64,ST=5,SW=1,SK=4"},
        {"mma:BM=16,BN=64,BK=64,WM=16,WN=32,ST=4,SW=1,SK=4",
         "mma:BM=32,BN=64,BK=32,WM=16,WN=32,ST=4,SW=1,SK=4"},
    };
  }();
  return all;
}

/// Elements as stored in memory: 16-bit patterns, or FP32 bits for tf32.
struct Matrix {
  std::int64_t ld = 0;
  std::vector<std::uint16_t> h;
  std::vector<float> f;
  void* data() { return h.empty() ? static_cast<void*>(f.data()) : h.data(); }
};

float value(Precision p, Matrix const& x, std::size_t i) {
  if (p == Precision::kTF32) return x.f[i];
  return p == Precision::kFP16 ? emu_mma::fp16_to_float(x.h[i])
                               : emu_mma::bits_to_float(unsigned{x.h[i]} << 16);
}
void set(Precision p, Matrix& x, std::size_t i, float v) {
  if (p == Precision::kTF32) {
    x.f[i] = v;
  } else {
    x.h[i] = p == Precision::kFP16 ? emu_mma::float_to_fp16(v) : emu_mma::float_to_bf16(v);
  }
}
Matrix make_matrix(Precision p, std::int64_t rows, std::int64_t ld) {
  Matrix m;
  m.ld = ld;
  if (p == Precision::kTF32) {
    m.f.assign(static_cast<std::size_t>(rows * ld), 0.0f);
  } else {
    m.h.assign(static_cast<std::size_t>(rows * ld), 0);
  }
  return m;
}

constexpr float kSentinel = 77.0f;

void run(KernelLaunch const& launch, Kernel kernel, GemmArgs const& args) {
  struct Call {
    Kernel kernel;
    GemmArgs args;
  } call{kernel, args};
  emu::run_grid(static_cast<unsigned>(launch.grid.x), static_cast<unsigned>(launch.block.x),
                [](void* p) {
                  auto* c = static_cast<Call*>(p);
                  c->kernel(c->args);
                },
                &call, static_cast<unsigned>(launch.grid.z));
}

/// Runs a config on one problem through the launch plan; checks C and its padding exactly.
/// Every leading dimension is the contiguous extent plus `pad` elements, rounded up to 16 bytes
/// when `align16` (the leading dimensions set the alignment class).
void check(std::string const& id, Problem problem, bool align16, std::int64_t pad, float alpha,
           float beta) {
  SCOPED_TRACE(id + " on " + problem.shape() + " " + std::string(to_string(problem.precision)) +
               " " + std::string(to_string(problem.layout)) + " pad=" + std::to_string(pad) +
               " beta=" + std::to_string(beta));
  Family const& family = *find_family("mma");
  KernelConfig const cfg = parse_kernel_id(id);
  Precision const prec = problem.precision;
  int const eb = input_bytes(prec);
  bool const ta = a_transposed(problem.layout), tb = b_transposed(problem.layout);
  std::int64_t const per16 = 16 / eb;
  auto ld = [&](std::int64_t dim) {
    return align16 ? (dim + pad + per16 - 1) / per16 * per16 : dim + pad;
  };
  Matrix a = make_matrix(prec, ta ? problem.k : problem.m, ld(ta ? problem.m : problem.k));
  Matrix b = make_matrix(prec, tb ? problem.n : problem.k, ld(tb ? problem.k : problem.n));
  Matrix c = make_matrix(prec, problem.m, ld(problem.n));
  problem.align = 16;  // vector storage is 16-byte aligned; the leading dimensions decide
  for (std::int64_t ld : {a.ld, b.ld, c.ld}) {
    problem.align = std::min(problem.align, alignment_class(static_cast<std::uint64_t>(ld * eb)));
  }
  ASSERT_EQ(family.reject_reason(cfg, problem, *arch_limits("sm_80")).rfind("alignment", 0),
            std::string::npos);

  std::mt19937 rng(static_cast<unsigned>(problem.m * 131 + problem.n * 7 + problem.k));
  std::uniform_int_distribution<int> small(-3, 3);
  for (std::size_t i = 0; i < (a.h.empty() ? a.f.size() : a.h.size()); ++i) {
    set(prec, a, i, static_cast<float>(small(rng)));
  }
  for (std::size_t i = 0; i < (b.h.empty() ? b.f.size() : b.h.size()); ++i) {
    set(prec, b, i, static_cast<float>(small(rng)));
  }
  for (std::int64_t i = 0; i < problem.m; ++i) {
    for (std::int64_t j = 0; j < c.ld; ++j) {
      float const v = j >= problem.n ? kSentinel
                                     : (beta == 0.0f ? std::nanf("") : static_cast<float>(small(rng)));
      set(prec, c, static_cast<std::size_t>(i * c.ld + j), v);
    }
  }
  Matrix const c_before = c;

  LaunchPlan const plan = family.launch_plan(cfg, problem);
  bool const split = cfg.at("SK") > 1;
  bool const in_kernel = split && last_slice_sums(cfg.at("SK"));
  ASSERT_EQ(plan.launches.size(), split && !in_kernel ? 2u : 1u);
  ASSERT_EQ(plan.counter_bytes, in_kernel ? MmaFamily::tiles(cfg, problem) * 4 : 0);
  std::vector<float> workspace(static_cast<std::size_t>(plan.workspace_bytes / 4), std::nanf(""));
  std::vector<unsigned> counters(static_cast<std::size_t>(plan.counter_bytes / 4), 0u);
  GemmArgs const args{problem.m, problem.n, problem.k, a.ld,     b.ld,
                      c.ld,      a.data(),  b.data(),  c.data(),
                      workspace.empty() ? nullptr : workspace.data(),
                      counters.empty() ? nullptr : counters.data(), alpha, beta};
  static int calls = 0;
  emu::g_reverse_grid = split && ++calls % 2 == 0;  // either slice order may finish last
  for (KernelLaunch const& launch : plan.launches) {
    auto const it = kernels().find(launch.name_expression);
    ASSERT_NE(it, kernels().end()) << launch.name_expression << " is not instantiated here";
    run(launch, it->second, args);
  }
  emu::g_reverse_grid = false;
  for (unsigned v : counters) ASSERT_EQ(v, 0u) << "a split-K counter was not left at zero";

  int mismatches = 0;
  for (std::int64_t i = 0; i < problem.m; ++i) {
    for (std::int64_t j = 0; j < c.ld; ++j) {
      std::size_t const at = static_cast<std::size_t>(i * c.ld + j);
      float want = kSentinel;
      if (j < problem.n) {
        double acc = 0.0;
        for (std::int64_t k = 0; k < problem.k; ++k) {
          acc += static_cast<double>(value(prec, a, static_cast<std::size_t>(ta ? k * a.ld + i : i * a.ld + k))) *
                 value(prec, b, static_cast<std::size_t>(tb ? j * b.ld + k : k * b.ld + j));
        }
        float v = alpha * static_cast<float>(acc);
        if (beta != 0.0f) v += beta * value(prec, c_before, at);
        Matrix one = make_matrix(prec, 1, 1);
        set(prec, one, 0, v);  // rounded to the output type
        want = value(prec, one, 0);
      }
      float const got = value(prec, c, at);
      if (!(got == want) && ++mismatches <= 5) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

Problem shape(std::int64_t m, std::int64_t n, std::int64_t k, Precision p, Layout l) {
  return Problem{.m = m, .n = n, .k = k, .precision = p, .layout = l};
}

class MmaEmulated : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MmaEmulated, AlignedRaggedShapesOnEveryLayoutAndPrecision) {
  Case const& c = cases()[GetParam()];
  for (Precision p : {Precision::kFP16, Precision::kBF16, Precision::kTF32}) {
    std::string const& id = p == Precision::kTF32 ? c.id32 : c.id16;
    for (Layout layout : kAllLayouts) {
      // Ragged against every tile; K deep enough for several steps per split-K slice.
      check(id, shape(136, 72, 200, p, layout), true, 0, 1.0f, 0.0f);
      // Odd extents in padded 16-byte aligned storage: chunks with 1..7 valid elements.
      check(id, shape(70, 131, 141, p, layout), true, 3, 2.0f, -1.0f);
      // Smaller than one tile everywhere.
      check(id, shape(3, 5, 2, p, layout), true, 0, 1.0f, 0.0f);
    }
  }
}

TEST_P(MmaEmulated, UnalignedShapesTakeTheScalarFill) {
  Case const& c = cases()[GetParam()];
  for (Precision p : {Precision::kBF16, Precision::kTF32}) {
    std::string const& id = p == Precision::kTF32 ? c.id32 : c.id16;
    for (Layout layout : kAllLayouts) {
      check(id, shape(37, 29, 71, p, layout), false, 0, 1.0f, 0.0f);   // 2 bytes (4 for tf32)
      check(id, shape(38, 30, 70, p, layout), false, 0, -1.0f, 2.0f);  // 4 bytes (8): pairs
      check(id, shape(1, 1, 1, p, layout), false, 0, 1.0f, 0.0f);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Mma, MmaEmulated, ::testing::Range<std::size_t>(0, 5),
                         [](::testing::TestParamInfo<std::size_t> const& info) {
                           return "case_" + std::to_string(info.param);
                         });

TEST(MmaEmulatedCases, AreConfigsOfTheFamilyWithinItsOwnRules) {
  Family const& family = *find_family("mma");
  for (Case const& c : cases()) {
    for (auto const& [id, p] : {std::pair{c.id16, Precision::kBF16}, std::pair{c.id32, Precision::kTF32}}) {
      KernelConfig const cfg = parse_kernel_id(id);
      // The cases' ids predate CR; they name the workspace-partials kernel (CR=0).
      EXPECT_EQ(family.canonical(cfg).id(), std::string(id) + ",CR=0");
      Problem const q = shape(1024, 1024, 16384, p, Layout::kNN).resolved();
      std::string const why = family.reject_reason(cfg, q, *arch_limits("sm_80"));
      for (char const* rule : {"stage_depth", "warp_tiles", "block_size", "registers",
                               "shared_memory"}) {
        EXPECT_NE(why.rfind(rule, 0), 0u) << id << ": " << why;
      }
    }
  }
}

}  // namespace
}  // namespace gemmtune
