// Ladder stage 2, global-memory coalescing: as naive, but consecutive threads take consecutive
// COLUMNS of C, so a warp reads one element of op(A) (a broadcast) and a contiguous run of B
// (for NN) and writes a contiguous run of C.
//
//   BM, BN   the block's tile of C (BM×BN threads)
//   TA, TB   A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_COALESCED_CUH
#define GEMMTUNE_LADDER_COALESCED_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, bool TA, bool TB>
__global__ void __launch_bounds__(BM * BN) coalesced(GemmArgs args) {
  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  long long const m = m0 + static_cast<int>(threadIdx.x) / BN;
  long long const n = n0 + static_cast<int>(threadIdx.x) % BN;
  if (m >= args.M || n >= args.N) return;
  float acc = 0.0f;
  for (long long k = 0; k < args.K; ++k) {
    acc += fp32::a_at<TA>(args, m, k) * fp32::b_at<TB>(args, k, n);
  }
  fp32::store_c(args, m, n, acc);
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_COALESCED_CUH
