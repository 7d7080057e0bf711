// Runs wgmma's K-major copy (the tf32 transpose of operands stored MN-major) on the CPU through
// the family's launch plan, for every tf32 layout that needs one, split-K offsets included, on
// ragged shapes and padded leading dimensions, and checks every element of the copies and that
// nothing else of the workspace is written.
// The emulation first: the template is CUDA source and needs its definitions.
#include "tests/kernels/cuda_emulation.hpp"
#include "kernel_templates/wgmma/kmajor_copy.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "src/core/kernel_config.hpp"
#include "src/core/tensor_map_geometry.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/wgmma_family.hpp"

namespace gemmtune {
// Backing store of the kernel's `extern __shared__` tiles (one block runs at a time).
float copy_smem[wgmma_detail::copy_smem_bytes(4) / 4];

namespace {

using Kernel = void (*)(GemmArgs);

template <int SK, int BATCH, int EB = 4>
Kernel copy_kernel(bool ta, bool tb) {
  if (ta) {
    return tb ? &wgmma_kmajor_copy<SK, true, true, BATCH, EB>
              : &wgmma_kmajor_copy<SK, true, false, BATCH, EB>;
  }
  return &wgmma_kmajor_copy<SK, false, false, BATCH, EB>;
}

template <int SK, int EB = 4>
Kernel copy_kernel(bool ta, bool tb, int batch) {
  return batch == 4 ? copy_kernel<SK, 4, EB>(ta, tb) : copy_kernel<SK, 1, EB>(ta, tb);
}

struct Call {
  Kernel kernel;
  GemmArgs args;
};

/// One copy through the plan of a `precision` problem in `layout` (tf32 moves floats, FP8
/// bytes; E is that element type): every element of the copies, rows of K in whole 16 bytes,
/// and nothing else of the workspace written. `pad` widens the stored leading dimensions.
template <class E>
void check_copy(Precision precision, Layout layout, std::int64_t m, std::int64_t n,
                std::int64_t k, std::int64_t pad, int sk, int batch) {
  SCOPED_TRACE(std::string(to_string(precision)) + " " + std::string(to_string(layout)) + " " +
               std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
               " pad=" + std::to_string(pad) + " SK=" + std::to_string(sk));
  constexpr bool kBytes = sizeof(E) == 1;
  Problem p{.m = m, .n = n, .k = k, .precision = precision, .layout = layout};
  if (!kBytes) p.align = 4;
  p = p.resolved();
  ASSERT_EQ(p.unsupported_reason(), "");
  bool const ta = a_transposed(layout), tb = b_transposed(layout);
  KernelConfig const cfg =
      parse_kernel_id("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=" + std::to_string(sk));
  Family const& family = *find_family("wgmma");
  LaunchPlan const plan = family.launch_plan(cfg, p);
  ASSERT_FALSE(plan.launches.empty());
  KernelLaunch const& copy = plan.launches.front();
  ASSERT_EQ(copy.name_expression, "gemmtune::wgmma_kmajor_copy<" + std::to_string(sk) + "," +
                                       (ta ? "true," : "false,") + (tb ? "true," : "false,") +
                                       std::to_string(batch) + (kBytes ? ",1>" : ">"));
  ASSERT_EQ(copy.block.y, 1);
  ASSERT_LE(copy.dynamic_smem, static_cast<int>(sizeof(copy_smem)));

  // Stored operands: A is K×M when ta (else M×K), B is K×N unless tb; leading dims padded.
  // Their values are never the workspace's marker of an unwritten element (NaN, or byte 0).
  std::int64_t const lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad;
  std::vector<E> a(static_cast<std::size_t>((ta ? k : m) * lda));
  std::vector<E> b(static_cast<std::size_t>((tb ? n : k) * ldb));
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = kBytes ? static_cast<E>(1 + i % 251) : static_cast<E>(static_cast<float>(i % 1000003) + 0.25f);
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = kBytes ? static_cast<E>(1 + i % 241) : static_cast<E>(-static_cast<float>(i % 999983) - 0.5f);
  }
  E const unwritten = kBytes ? E(0) : static_cast<E>(std::nanf(""));
  auto const is_unwritten = [&](E v) { return kBytes ? v == unwritten : std::isnan(static_cast<float>(v)); };
  std::vector<E> ws(static_cast<std::size_t>(plan.workspace_bytes) / sizeof(E), unwritten);
  GemmArgs const args{m,        n,        k,         lda,     ldb,  n,   a.data(),
                      b.data(), nullptr, ws.data(), nullptr, 1.0f, 0.0f};
  constexpr int EB = static_cast<int>(sizeof(E));
  Call call{sk == 4 ? copy_kernel<4, EB>(ta, tb, batch) : copy_kernel<1, EB>(ta, tb, batch), args};
  emu::run_grid(static_cast<unsigned>(copy.grid.x), static_cast<unsigned>(copy.block.x),
                [](void* c) {
                  auto* call = static_cast<Call*>(c);
                  call->kernel(call->args);
                },
                &call);

  std::int64_t const ldk = kmajor_copy_ld(p);
  EXPECT_EQ(ldk * EB % 16, 0);
  std::vector<bool> written(ws.size(), false);
  int mismatches = 0;
  for (TensorMapSpec const& map : plan.tensor_maps) {
    if (map.workspace_offset < 0) continue;
    EXPECT_EQ(map.workspace_offset % 128, 0);
    bool const is_a = map.operand == TmaOperand::kA;
    std::int64_t const rows = is_a ? m : n;
    std::size_t const base = static_cast<std::size_t>(map.workspace_offset / EB);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t kk = 0; kk < k; ++kk) {
        std::size_t const at = base + static_cast<std::size_t>(r * ldk + kk);
        E const want = is_a ? a[static_cast<std::size_t>(kk * lda + r)]
                            : b[static_cast<std::size_t>(kk * ldb + r)];
        written[at] = true;
        if (!(ws[at] == want) && ++mismatches <= 5) {
          ADD_FAILURE() << (is_a ? "A" : "B") << " copy (" << r << "," << kk
                        << ") = " << +ws[at] << ", expected " << +want;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  int stray = 0;
  for (std::size_t i = 0; i < ws.size(); ++i) {
    if (!written[i] && !is_unwritten(ws[i])) ++stray;
  }
  EXPECT_EQ(stray, 0) << "workspace elements written outside the copies";
}

void check(Layout layout, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t pad,
           int sk, int batch) {
  check_copy<float>(Precision::kTF32, layout, m, n, k, pad, sk, batch);
}

void check_fp8(Layout layout, std::int64_t m, std::int64_t n, std::int64_t k, int sk, int batch) {
  check_copy<unsigned char>(Precision::kE4M3, layout, m, n, k, 0, sk, batch);
}

// FP8 moves bytes: K a multiple of 16 (rows of the copy whole 16-byte units without padding
// when K is, and 32-wide blocks ragged in K otherwise), M or N of a stored-MN operand a
// multiple of 16, after split-K partials, and four blocks to a thread block on big copies.
TEST(WgmmaCopyEmulated, Fp8BytesInEveryLayoutWithACopy) {
  for (Layout layout : {Layout::kNN, Layout::kTN, Layout::kTT}) {
    check_fp8(layout, 304, 208, 80, 1, 1);
    check_fp8(layout, 144, 272, 48, 4, 1);
    check_fp8(layout, 16, 16, 16, 1, 1);
  }
  check_fp8(Layout::kTN, 1040, 1056, 1072, 1, 4);
}

TEST(WgmmaCopyEmulated, EveryLayoutWithACopyOnRaggedShapes) {
  for (Layout layout : {Layout::kNN, Layout::kTN, Layout::kTT}) {
    check(layout, 300, 200, 77, 0, 1, 1);    // rows and K ragged against 32
    check(layout, 130, 260, 33, 3, 1, 1);    // padded leading dimensions
    check(layout, 129, 127, 64, 1, 4, 1);    // after split-K partials
    check(layout, 5, 3, 2, 0, 1, 1);         // smaller than one block
  }
  // Copies of at least 4·4·132 blocks of 32×32 go four to a thread block; rows ragged against
  // 128, K against 32, after split-K partials.
  check(Layout::kNN, 40, 2050, 1040, 1, 1, 4);
  check(Layout::kTN, 1030, 1030, 1050, 0, 4, 4);
}

}  // namespace
}  // namespace gemmtune
