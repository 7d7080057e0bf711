// Ladder stage 3, shared-memory tiling: the block stages a BM×BK tile of op(A) and a BK×BN tile
// of op(B) in shared memory per step along K; each thread still computes one element of C but
// reads its operands from shared memory, cutting global traffic by BK-fold reuse.
//
//   BM, BN   the block's tile of C (BM×BN threads, one result each)
//   BK       depth of the staged K slice
//   TA, TB   A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_SMEM_TILED_CUH
#define GEMMTUNE_LADDER_SMEM_TILED_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, int BK, bool TA, bool TB>
__global__ void __launch_bounds__(BM * BN) smem_tiled(GemmArgs args) {
  constexpr int kThreads = BM * BN;
  float* sA = fp32::SmemBuffer<BM * BK + BK * BN>::get();  // sA[BM][BK]
  float* sB = sA + BM * BK;                                // sB[BK][BN]

  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  int const row = static_cast<int>(threadIdx.x) / BN;  // consecutive threads: consecutive n
  int const col = static_cast<int>(threadIdx.x) % BN;

  float acc = 0.0f;
  for (long long k0 = 0; k0 < args.K; k0 += BK) {
    fp32::load_a_tile<BM, BK, kThreads, TA, BK, 1>(args, m0, k0, sA);
    fp32::load_b_tile<BK, BN, kThreads, TB, BN, 1>(args, k0, n0, sB);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) acc += sA[row * BK + k] * sB[k * BN + col];
    __syncthreads();
  }
  fp32::store_c(args, m0 + row, n0 + col, acc);
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_SMEM_TILED_CUH
