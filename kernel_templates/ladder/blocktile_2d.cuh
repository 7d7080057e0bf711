// Ladder stage 5, 2-D block tiling: each thread computes a TM×TN patch of C as an outer product
// of TM values of op(A) and TN values of op(B) cached in registers per k, so each shared-memory
// read feeds TN (or TM) FMAs.
//
//   BM, BN   the block's tile of C ((BM/TM)·(BN/TN) threads)
//   BK       depth of the staged K slice
//   TM, TN   the thread's patch of C
//   TA, TB   A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_BLOCKTILE_2D_CUH
#define GEMMTUNE_LADDER_BLOCKTILE_2D_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, int BK, int TM, int TN, bool TA, bool TB>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) blocktile_2d(GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM and TN must divide BM and BN");
  float* sA = fp32::SmemBuffer<BM * BK + BK * BN>::get();  // sA[BM][BK]
  float* sB = sA + BM * BK;                                // sB[BK][BN]

  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  int const row0 = (static_cast<int>(threadIdx.x) / (BN / TN)) * TM;
  int const col0 = (static_cast<int>(threadIdx.x) % (BN / TN)) * TN;

  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (long long k0 = 0; k0 < args.K; k0 += BK) {
    fp32::load_a_tile<BM, BK, kThreads, TA, BK, 1>(args, m0, k0, sA);
    fp32::load_b_tile<BK, BN, kThreads, TB, BN, 1>(args, k0, n0, sB);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = sA[(row0 + i) * BK + k];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = sB[k * BN + col0 + j];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) fp32::store_c(args, m0 + row0 + i, n0 + col0 + j, acc[i][j]);
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_BLOCKTILE_2D_CUH
