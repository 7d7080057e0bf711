// Block-scaled FP8 (e4m3-blk, e5m2-blk) in the wgmma family: reading one 128-deep K block's
// scales for a consumer thread's rows and its tile's N blocks, and the promotion that adds the
// block's products, scaled, into the FP32 sums. Plain CUDA (no sm_90 instruction), so the host
// emulation runs it; the layouts are those of src/core/precision.hpp.
#ifndef GEMMTUNE_WGMMA_BLOCK_SCALES_CUH
#define GEMMTUNE_WGMMA_BLOCK_SCALES_CUH

#include "common/gemm_args.cuh"

namespace gemmtune {
namespace wgmma_detail {

/// Block-scaled FP8: the scales of one 128-deep K block for a thread's rows (r + 64·mi + 8·h)
/// and for the two 128-wide N blocks its tile can touch (the tile's first column's, and the
/// next: the family keeps BN within two).
template <int MI>
struct BlockScales {
  float a[MI][2];
  float b0, b1;
};
/// What a work unit's tile reads of B's scales, worked out once per unit: the rows of K blocks
/// of its first 128-wide N block and of the next (null past the matrix), and `split`, its
/// columns in the first (a multiple of 8: 128 minus the tile's offset in that block).
struct BlockScaleTile {
  float const* b0;
  float const* b1;
  int split;
};
/// The tile whose first column is n0 (layouts in src/core/precision.hpp: B's scale of column j
/// and K block kb at (j / 128)·ldb + kb, ldb = ⌈K/128⌉ rounded up to 4).
__device__ __forceinline__ BlockScaleTile block_scale_tile(GemmArgs const& args, long long n0) {
  long long const kblocks = (args.K + 127) / 128, ldb = (kblocks + 3) / 4 * 4;
  long long const nb = n0 / 128, nblocks = (args.N + 127) / 128;
  BlockScaleTile t;
  t.b0 = args.scale_b + nb * ldb;
  t.b1 = nb + 1 < nblocks ? t.b0 + ldb : nullptr;
  t.split = 128 - static_cast<int>(n0 % 128);
  return t;
}
/// Reads the scales of K block kb for the tile `t`: A's at kb·M + row, B's from the tile's rows.
/// Rows and N blocks outside C read 0; their elements are never stored.
template <int MI>
__device__ __forceinline__ void load_block_scales(GemmArgs const& args, BlockScaleTile const& t,
                                                  long long mbase, int kb, BlockScales<MI>& s) {
  long long const M = args.M;
  float const* const sa = args.scale_a + static_cast<long long>(kb) * M;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      long long const row = mbase + 64 * mi + 8 * h;
      s.a[mi][h] = row < M ? __ldg(sa + row) : 0.f;
    }
  }
  s.b0 = __ldg(t.b0 + kb);
  s.b1 = t.b1 != nullptr ? __ldg(t.b1 + kb) : 0.f;
}
/// The promotion of one K block: d += t·sa(row)·sb(column's N block), in FP32 on the CUDA
/// cores. Tile columns below `split` (BlockScaleTile's) use b0, the rest b1; a lane's columns
/// 8·g + 2·(lane%4) + {0, 1} never straddle it.
template <int MI, int ACC>
__device__ __forceinline__ void promote(float (&d)[MI][ACC], float const (&t)[MI][ACC],
                                        BlockScales<MI> const& s, int split) {
  float f0[MI][2], f1[MI][2];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      f0[mi][h] = s.a[mi][h] * s.b0;
      f1[mi][h] = s.a[mi][h] * s.b1;
    }
  }
#pragma unroll
  for (int g = 0; g < ACC / 4; ++g) {
    bool const first = 8 * g < split;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float const f = first ? f0[mi][h] : f1[mi][h];
        d[mi][4 * g + 2 * h] = fmaf(t[mi][4 * g + 2 * h], f, d[mi][4 * g + 2 * h]);
        d[mi][4 * g + 2 * h + 1] = fmaf(t[mi][4 * g + 2 * h + 1], f, d[mi][4 * g + 2 * h + 1]);
      }
    }
  }
}

}  // namespace wgmma_detail
}  // namespace gemmtune

#endif  // GEMMTUNE_WGMMA_BLOCK_SCALES_CUH
