// Ladder stage 6, vectorized memory access: stage 5's 2-D thread tiles, with float4 global
// loads (scalar only on a ragged edge), op(A) stored transposed in shared memory (sA[k][m]) so
// a thread's TM values of A are contiguous, float4 shared-memory reads for both operands, and
// float4 stores of C. Needs every pointer and leading dimension 16-byte aligned.
//
//   BM, BN   the block's tile of C ((BM/TM)·(BN/TN) threads)
//   BK       depth of the staged K slice (a multiple of 4)
//   TM, TN   the thread's patch of C (multiples of 4)
//   TA, TB   A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_VECTORIZED_CUH
#define GEMMTUNE_LADDER_VECTORIZED_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, int BK, int TM, int TN, bool TA, bool TB>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) vectorized(GemmArgs args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM and TN must divide BM and BN");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 paths need multiples of 4");
  float* sA = fp32::SmemBuffer<BK * BM + BK * BN>::get();  // sA[BK][BM]: A transposed
  float* sB = sA + BK * BM;                                // sB[BK][BN]

  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  int const row0 = (static_cast<int>(threadIdx.x) / (BN / TN)) * TM;
  int const col0 = (static_cast<int>(threadIdx.x) % (BN / TN)) * TN;

  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (long long k0 = 0; k0 < args.K; k0 += BK) {
    fp32::load_a_tile_vec4<BM, BK, kThreads, TA, 1, BM>(args, m0, k0, sA);
    fp32::load_b_tile_vec4<BK, BN, kThreads, TB, BN, 1>(args, k0, n0, sB);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        float4 const v = *reinterpret_cast<const float4*>(sA + k * BM + row0 + i);
        ra[i] = v.x;
        ra[i + 1] = v.y;
        ra[i + 2] = v.z;
        ra[i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        float4 const v = *reinterpret_cast<const float4*>(sB + k * BN + col0 + j);
        rb[j] = v.x;
        rb[j + 1] = v.y;
        rb[j + 2] = v.z;
        rb[j + 3] = v.w;
      }
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
    for (int j = 0; j < TN; j += 4) {
      fp32::store_c4(args, m0 + row0 + i, n0 + col0 + j,
                     make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
    }
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_VECTORIZED_CUH
