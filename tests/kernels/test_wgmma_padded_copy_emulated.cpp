// Runs wgmma's padded copy (16-bit operands TMA cannot read in place, and with RP = 128 those
// whose rows straddle 128-byte lines) on the CPU through the family's launch plan: every layout,
// odd and ragged sizes, leading dimensions and base pointers off 16 bytes, split-K offsets;
// checks every copied element, that an operand read in place is not copied, and that nothing
// else of the workspace is written.
// The emulation first: the template is CUDA source and needs its definitions.
#include "tests/kernels/cuda_emulation.hpp"
#include "kernel_templates/wgmma/padded_copy.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "src/core/kernel_config.hpp"
#include "src/core/tensor_map_geometry.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/wgmma_family.hpp"

namespace gemmtune {
namespace {

using Kernel = void (*)(GemmArgs);

template <int SK, int RP>
Kernel copy_kernel(bool ta, bool tb) {
  if (ta) {
    return tb ? &wgmma_padded_copy<SK, true, true, RP> : &wgmma_padded_copy<SK, true, false, RP>;
  }
  return tb ? &wgmma_padded_copy<SK, false, true, RP> : &wgmma_padded_copy<SK, false, false, RP>;
}

struct Call {
  Kernel kernel;
  GemmArgs args;
};

constexpr std::uint16_t kUnwritten = 0xFFFF;  // a NaN pattern in fp16 and bf16

/// `a_shift`, `b_shift`: elements the operand's base lies past a 16-byte boundary; `a_pad`,
/// `b_pad`: elements added to its packed leading dimension; `rp`: the RP knob. RP = 16 plans
/// for the 2-byte alignment class; RP = 128 for the class the operands have.
void check(Layout layout, std::int64_t m, std::int64_t n, std::int64_t k, int a_shift,
           int a_pad, int b_shift, int b_pad, int sk, int rp = 16) {
  SCOPED_TRACE(std::string(to_string(layout)) + " " + std::to_string(m) + "x" +
               std::to_string(n) + "x" + std::to_string(k) + " A+" + std::to_string(a_shift) +
               " lda+" + std::to_string(a_pad) + " B+" + std::to_string(b_shift) + " ldb+" +
               std::to_string(b_pad) + " SK=" + std::to_string(sk) + " RP=" +
               std::to_string(rp));
  bool const ta = a_transposed(layout), tb = b_transposed(layout);
  std::int64_t const a_rows = ta ? k : m, a_cols = ta ? m : k;
  std::int64_t const b_rows = tb ? n : k, b_cols = tb ? k : n;
  std::int64_t const lda = a_cols + a_pad, ldb = b_cols + b_pad;
  Problem p{.m = m, .n = n, .k = k, .precision = Precision::kBF16, .layout = layout};
  bool const aligned = a_shift == 0 && b_shift == 0 && lda % 8 == 0 && ldb % 8 == 0;
  p.align = rp == 128 && aligned ? 16 : 2;
  p = p.resolved();
  KernelConfig const cfg =
      parse_kernel_id("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=" + std::to_string(sk) +
                      ",EP=0,RP=" + std::to_string(rp));
  Family const& family = *find_family("wgmma");
  ASSERT_EQ(family.reject_reason(cfg, p, *arch_limits("sm_90"), RejectScope::kRun), "");
  LaunchPlan const plan = family.launch_plan(cfg, p);
  ASSERT_EQ(plan.launches.size(), sk == 1 || WgmmaFamily::sums_in_last_slice(cfg) ? 2u : 3u);
  KernelLaunch const& copy = plan.launches.front();
  ASSERT_EQ(copy.name_expression, "gemmtune::wgmma_padded_copy<" + std::to_string(sk) + "," +
                                       (ta ? "true," : "false,") + (tb ? "true," : "false,") +
                                       std::to_string(rp) + ">");
  ASSERT_EQ(copy.block.y, 1);
  ASSERT_EQ(plan.tensor_maps.size(), 2u);

  // Storage with room for the shift: 8 spare elements before each operand, 16-byte aligned.
  std::vector<std::uint16_t> a_store(static_cast<std::size_t>(a_rows * lda + 16));
  std::vector<std::uint16_t> b_store(static_cast<std::size_t>(b_rows * ldb + 16));
  auto aligned16 = [](std::vector<std::uint16_t>& v) {
    auto const at = reinterpret_cast<std::uintptr_t>(v.data());
    return v.data() + (16 - at % 16) % 16 / 2;
  };
  std::uint16_t* const a = aligned16(a_store) + a_shift;
  std::uint16_t* const b = aligned16(b_store) + b_shift;
  for (std::int64_t i = 0; i < a_rows * lda; ++i) a[i] = static_cast<std::uint16_t>(i * 7 % 60000);
  for (std::int64_t i = 0; i < b_rows * ldb; ++i) b[i] = static_cast<std::uint16_t>(i * 13 % 60001 + 3);
  std::vector<std::uint16_t> ws_store(static_cast<std::size_t>(plan.workspace_bytes / 2 + 8),
                                      kUnwritten);
  std::uint16_t* const ws = aligned16(ws_store);
  std::size_t const ws_elems = static_cast<std::size_t>(plan.workspace_bytes / 2);
  GemmArgs const args{m, n, k, lda, ldb, n, a, b, nullptr, ws, nullptr, 1.0f, 0.0f, nullptr, nullptr};
  Kernel const kernel = rp == 128 ? (sk == 4 ? copy_kernel<4, 128>(ta, tb)
                                              : copy_kernel<1, 128>(ta, tb))
                                   : (sk == 4 ? copy_kernel<4, 16>(ta, tb)
                                              : copy_kernel<1, 16>(ta, tb));
  Call call{kernel, args};
  emu::run_grid(static_cast<unsigned>(copy.grid.x), static_cast<unsigned>(copy.block.x),
                [](void* c) {
                  auto* call = static_cast<Call*>(c);
                  call->kernel(call->args);
                },
                &call);

  std::vector<bool> written(ws_elems, false);
  int mismatches = 0;
  for (TensorMapSpec const& map : plan.tensor_maps) {
    ASSERT_TRUE(map.padded_copy);
    ASSERT_GE(map.workspace_offset, 0);
    ASSERT_EQ(map.workspace_offset % 128, 0);
    bool const is_a = map.operand == TmaOperand::kA;
    std::uint16_t const* const src = is_a ? a : b;
    std::int64_t const ld = is_a ? lda : ldb;
    std::int64_t const rows = is_a ? a_rows : b_rows, cols = is_a ? a_cols : b_cols;
    // The host's rule and the device's agree on which operands are copied.
    ASSERT_EQ(map.in_place_pitch, rp);
    bool const copied = needs_padded_copy(reinterpret_cast<std::uintptr_t>(src), ld, 2, rp);
    EXPECT_EQ(copied, wgmma_detail::needs_padded_copy(src, ld * 2, rp));
    if (!copied) continue;
    std::int64_t const pld = padded_copy_ld(map.operand, p);
    EXPECT_EQ(pld % 8, 0);
    EXPECT_GE(pld, cols);
    std::size_t const base = static_cast<std::size_t>(map.workspace_offset / 2);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c) {
        std::size_t const at = base + static_cast<std::size_t>(r * pld + c);
        ASSERT_LT(at, ws_elems);
        written[at] = true;
        std::uint16_t const want = src[r * ld + c];
        if (ws[at] != want && ++mismatches <= 5) {
          ADD_FAILURE() << (is_a ? "A" : "B") << " copy (" << r << "," << c << ") = " << ws[at]
                        << ", expected " << want;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  int stray = 0;
  for (std::size_t i = 0; i < ws_elems; ++i) {
    if (!written[i] && ws[i] != kUnwritten) ++stray;
  }
  EXPECT_EQ(stray, 0) << "workspace elements written outside the copies";
}

TEST(WgmmaPaddedCopyEmulated, EveryLayoutOddSizesAndOffsets) {
  for (Layout layout : {Layout::kNN, Layout::kNT, Layout::kTN, Layout::kTT}) {
    check(layout, 37, 45, 2051, 0, 0, 0, 0, 1);   // odd M, N, K: packed rows off 16 bytes
    check(layout, 64, 130, 96, 1, 0, 0, 0, 1);   // A's base 2 bytes off, B aligned: A only
    check(layout, 64, 128, 64, 0, 0, 0, 3, 1);   // B's rows padded to an odd stride: B only
    check(layout, 129, 131, 77, 4, 2, 3, 1, 4);  // both, after split-K partials
    check(layout, 3, 5, 2, 0, 0, 0, 0, 1);       // smaller than one chunk
  }
  // Rows longer than one block's chunk of 2048 elements, ragged against it.
  check(Layout::kNN, 5, 4099, 2300, 0, 0, 0, 0, 1);
}

TEST(WgmmaPaddedCopyEmulated, RowsThatStraddleLinesAreCopiedAtRp128) {
  for (Layout layout : {Layout::kNN, Layout::kNT, Layout::kTN, Layout::kTT}) {
    check(layout, 40, 104, 72, 0, 0, 0, 0, 1, 128);  // every stored row 16·k but not 128 bytes
    check(layout, 64, 128, 200, 0, 0, 0, 0, 1, 128);  // K = 200 straddles, M, N = 64·k do not
    check(layout, 37, 45, 2051, 0, 0, 0, 0, 4, 128);  // unaligned too, after split-K partials
  }
  // A base off 16 bytes is copied at either pitch; B's rows padded to 1024 + 8 straddle.
  check(Layout::kNN, 128, 1024, 1024, 1, 0, 0, 8, 1, 128);
}

TEST(WgmmaPaddedCopyEmulated, AlignedOperandsAreLeftInPlace) {
  // Every base and stride 16-byte aligned: the copy launch writes nothing.
  check(Layout::kNN, 64, 128, 64, 0, 0, 0, 0, 1);
  check(Layout::kTT, 32, 16, 24, 8, 0, 0, 8, 1);
  // Rows a multiple of 128 bytes apart stay in place at RP = 128 too.
  check(Layout::kNN, 64, 128, 64, 0, 0, 0, 0, 1, 128);
  check(Layout::kTN, 128, 64, 192, 0, 64, 0, 0, 1, 128);
}

}  // namespace
}  // namespace gemmtune
