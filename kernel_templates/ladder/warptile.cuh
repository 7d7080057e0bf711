// Ladder stage 7, warp tiling: the block tile is split into warp tiles (WM×WN), each computed by
// one warp in WMITER×WNITER sub-tiles of TM×TN-per-thread patches, so a warp's shared-memory
// reads stay within a small footprint and the register tile is reused across sub-tiles. Global
// and shared-memory accesses are float4 as in stage 6 (A transposed in shared memory). Needs
// every pointer and leading dimension 16-byte aligned.
//
//   BM, BN, BK   block tile of C and depth of the staged K slice
//   WM, WN       warp tile; (BM/WM)·(BN/WN) warps = NUM_THREADS/32
//   WNITER       sub-tiles along N per warp; WMITER = WM·WN / (32·TM·TN·WNITER) along M
//   TM, TN       a thread's patch per sub-tile (multiples of 4)
//   NUM_THREADS  threads per block
//   TA, TB       A stored K×M, B stored N×K (from the problem's layout)
#ifndef GEMMTUNE_LADDER_WARPTILE_CUH
#define GEMMTUNE_LADDER_WARPTILE_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int NUM_THREADS,
          bool TA, bool TB>
__global__ void __launch_bounds__(NUM_THREADS) warptile(GemmArgs args) {
  constexpr int kWarpSize = 32;
  constexpr int kWMITER = (WM * WN) / (kWarpSize * TM * TN * WNITER);
  constexpr int kWSUBM = WM / kWMITER;  // rows of one warp sub-tile
  constexpr int kWSUBN = WN / WNITER;   // columns of one warp sub-tile
  static_assert((BM / WM) * (BN / WN) * kWarpSize == NUM_THREADS, "one warp per warp tile");
  static_assert(kWMITER >= 1 && kWMITER * kWarpSize * TM * TN * WNITER == WM * WN,
                "the warp's threads must cover its tile exactly");
  static_assert((kWSUBM / TM) * (kWSUBN / TN) == kWarpSize, "32 thread patches per sub-tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 paths need multiples of 4");

  float* sA = fp32::SmemBuffer<BK * BM + BK * BN>::get();  // sA[BK][BM]: A transposed
  float* sB = sA + BK * BM;                                // sB[BK][BN]

  long long m0, n0;
  fp32::block_tile_origin<BM, BN>(args, m0, n0);
  int const warp = static_cast<int>(threadIdx.x) / kWarpSize;
  int const lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int const warp_m = (warp / (BN / WN)) * WM;       // warp tile origin inside the block tile
  int const warp_n = (warp % (BN / WN)) * WN;
  int const thread_m = (lane / (kWSUBN / TN)) * TM;  // patch origin inside a sub-tile
  int const thread_n = (lane % (kWSUBN / TN)) * TN;

  float acc[kWMITER * TM][WNITER * TN] = {};
  float ra[kWMITER * TM], rb[WNITER * TN];
  for (long long k0 = 0; k0 < args.K; k0 += BK) {
    fp32::load_a_tile_vec4<BM, BK, NUM_THREADS, TA, 1, BM>(args, m0, k0, sA);
    fp32::load_b_tile_vec4<BK, BN, NUM_THREADS, TB, BN, 1>(args, k0, n0, sB);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int wm = 0; wm < kWMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          float4 const v = *reinterpret_cast<const float4*>(
              sA + k * BM + warp_m + wm * kWSUBM + thread_m + i);
          ra[wm * TM + i] = v.x;
          ra[wm * TM + i + 1] = v.y;
          ra[wm * TM + i + 2] = v.z;
          ra[wm * TM + i + 3] = v.w;
        }
      }
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          float4 const v = *reinterpret_cast<const float4*>(
              sB + k * BN + warp_n + wn * kWSUBN + thread_n + j);
          rb[wn * TN + j] = v.x;
          rb[wn * TN + j + 1] = v.y;
          rb[wn * TN + j + 2] = v.z;
          rb[wn * TN + j + 3] = v.w;
        }
      }
#pragma unroll
      for (int i = 0; i < kWMITER * TM; ++i) {
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] += ra[i] * rb[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int wm = 0; wm < kWMITER; ++wm) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      long long const m = m0 + warp_m + wm * kWSUBM + thread_m + i;
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          long long const n = n0 + warp_n + wn * kWSUBN + thread_n + j;
          int const r = wm * TM + i, c = wn * TN + j;
          fp32::store_c4(args, m, n,
                         make_float4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]));
        }
      }
    }
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_LADDER_WARPTILE_CUH
