// Ladder stage 4, 1-D block tiling: each thread computes TM results down a column of C, so one
// value of op(B) read from shared memory feeds TM FMAs held in registers.
//
//   BM, BN   the block's tile of C (BM·BN/TM threads)
//   BK       depth of the staged K slice
//   TM       results per thread, along M
//   TA, TB   A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_BLOCKTILE_1D_CUH
#define GEMMTUNE_LADDER_BLOCKTILE_1D_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, int BK, int TM, bool TA, bool TB>
__global__ void __launch_bounds__(BM * BN / TM) blocktile_1d(GemmArgs args) {
  constexpr int kThreads = BM * BN / TM;
  static_assert(BM % TM == 0, "TM must divide BM");
  float* sA = fp32::SmemBuffer<BM * BK + BK * BN>::get();  // sA[BM][BK]
  float* sB = sA + BM * BK;                                // sB[BK][BN]

  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  int const row0 = (static_cast<int>(threadIdx.x) / BN) * TM;  // first of this thread's TM rows
  int const col = static_cast<int>(threadIdx.x) % BN;

  float acc[TM] = {};
  for (long long k0 = 0; k0 < args.K; k0 += BK) {
    fp32::load_a_tile<BM, BK, kThreads, TA, BK, 1>(args, m0, k0, sA);
    fp32::load_b_tile<BK, BN, kThreads, TB, BN, 1>(args, k0, n0, sB);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float const b = sB[k * BN + col];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] += sA[(row0 + i) * BK + k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) fp32::store_c(args, m0 + row0 + i, n0 + col, acc[i]);
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_BLOCKTILE_1D_CUH
