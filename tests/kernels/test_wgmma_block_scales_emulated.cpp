// Runs the wgmma family's block-scale reads and promotion (kernel_templates/wgmma/block_scales.cuh)
// on the CPU for every consumer thread of every tile of ragged problems: each K block's products
// (small integers) promoted with the scales the kernel reads must sum to the products scaled by
// the scales the host lays out (src/core/precision.hpp), for every element inside C, at tile
// widths whose tiles start inside a 128-wide N block of B's scales and span two of them.
#include "tests/kernels/cuda_emulation.hpp"

#include <cmath>

/// The read-only cache load: a plain load on the CPU.
template <class T>
T __ldg(T const* p) {
  return *p;
}

#include "kernel_templates/wgmma/block_scales.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "src/core/precision.hpp"

namespace gemmtune {
namespace {

/// Powers of two varying with row (N block) and K block, as the worker's own scales do.
float scale_of_a(std::int64_t i, std::int64_t kb) { return std::ldexp(1.0f, static_cast<int>((i + 2 * kb) % 5) - 2); }
float scale_of_b(std::int64_t nb, std::int64_t kb) { return std::ldexp(1.0f, static_cast<int>((3 * nb + kb) % 4) - 1); }
/// The K block kb's product of element (row, col): a small integer, exact in FP32.
float product(std::int64_t row, std::int64_t col, std::int64_t kb) {
  return static_cast<float>((row * 7 + col * 3 + kb * 5) % 9) - 4.0f;
}

template <int MI, int BN>
void check(std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr int ACC = BN / 2, BM = 64 * MI;
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
               " BM=" + std::to_string(BM) + " BN=" + std::to_string(BN));
  Precision const p = Precision::kE4M3Blk;
  std::int64_t const kblocks = scale_blocks(k);
  std::vector<float> sa(static_cast<std::size_t>(scale_a_count(p, m, k)), -1.0f);
  std::vector<float> sb(static_cast<std::size_t>(scale_b_count(p, n, k)), -1.0f);
  for (std::int64_t kb = 0; kb < kblocks; ++kb) {
    for (std::int64_t i = 0; i < m; ++i) sa[block_scale_a_index(m, i, kb)] = scale_of_a(i, kb);
    for (std::int64_t j = 0; j < n; j += kScaleBlock) {
      sb[block_scale_b_index(k, j, kb)] = scale_of_b(j / kScaleBlock, kb);
    }
  }
  GemmArgs args{};
  args.M = m;
  args.N = n;
  args.K = k;
  args.scale_a = sa.data();
  args.scale_b = sb.data();
  int checked = 0, bad = 0;
  for (std::int64_t tm = 0; tm * BM < m; ++tm) {
    for (std::int64_t tn = 0; tn * BN < n; ++tn) {
      wgmma_detail::BlockScaleTile const tile = wgmma_detail::block_scale_tile(args, tn * BN);
      for (int t = 0; t < 128; ++t) {  // one warpgroup's threads
        int const warp = t / 32, lane = t % 32;
        int const r = 16 * warp + lane / 4, c = 2 * (lane % 4);
        float d[MI][ACC] = {};
        for (std::int64_t kb = 0; kb < kblocks; ++kb) {
          float block[MI][ACC];
          for (int mi = 0; mi < MI; ++mi) {
            for (int j = 0; j < ACC; ++j) {
              std::int64_t const row = tm * BM + r + 64 * mi + 8 * ((j / 2) % 2);
              std::int64_t const col = tn * BN + c + 8 * (j / 4) + j % 2;
              block[mi][j] = product(row, col, kb);
            }
          }
          wgmma_detail::BlockScales<MI> bs;
          wgmma_detail::load_block_scales<MI>(args, tile, tm * BM + r, static_cast<int>(kb), bs);
          wgmma_detail::promote<MI, ACC>(d, block, bs, tile.split);
        }
        for (int mi = 0; mi < MI; ++mi) {
          for (int j = 0; j < ACC; ++j) {
            std::int64_t const row = tm * BM + r + 64 * mi + 8 * ((j / 2) % 2);
            std::int64_t const col = tn * BN + c + 8 * (j / 4) + j % 2;
            if (row >= m || col >= n) continue;  // never stored
            double want = 0.0;
            for (std::int64_t kb = 0; kb < kblocks; ++kb) {
              want += static_cast<double>(product(row, col, kb)) * scale_of_a(row, kb) *
                      scale_of_b(col / kScaleBlock, kb);
            }
            ++checked;
            if (d[mi][j] != want && ++bad <= 5) {
              ADD_FAILURE() << "C(" << row << "," << col << ") = " << d[mi][j] << ", expected "
                            << want;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, m * n);  // every element of C is some thread's accumulator
  EXPECT_EQ(bad, 0);
}

// BN = 160 and 96 start tiles inside an N block (offsets 32/64/96) and span two; BN = 128 and
// 64 stay inside one. Ragged M, N and K (a partial last K block, and K blocks whose B rows pad
// to 4 floats).
TEST(WgmmaBlockScalesEmulated, PromotionMatchesTheHostLayouts) {
  check<1, 160>(200, 1000, 1040);
  check<1, 96>(130, 424, 272);
  check<1, 128>(64, 384, 384);
  check<2, 64>(300, 200, 640);
  check<2, 80>(129, 336, 128);
}

}  // namespace
}  // namespace gemmtune
