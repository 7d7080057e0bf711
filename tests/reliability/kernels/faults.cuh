// TEST ONLY — never embedded in gemmtune, never offered to users. Kernels with deliberate
// faults for the fault-injection suite (tests/reliability/test_fault_search_gpu.cpp). Each is
// the naive fp32 GEMM (one thread per element of C, 16×16 tiles, 256 threads) broken in one way,
// chosen by F:
//   0 correct (control)            5 one tile of C never written (NaN poison stays)
//   1 out-of-bounds write (700)    6 TF32 inside an fp32 kernel (cvt.rna.tf32.f32 on inputs)
//   2 misaligned float4 load (716) 7 race between warps: a K-split whose halves meet in shared
//   3 infinite loop (timeout)        memory without __syncthreads
//   4 K loop one tile (8) short    8 compile error (static_assert)
//                                  9 launched with 1 MiB of dynamic shared memory (too much)
#ifndef GEMMTUNE_TEST_FAULTS_CUH
#define GEMMTUNE_TEST_FAULTS_CUH

#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"

namespace gemmtune {

__device__ __forceinline__ float to_tf32(float x) {
  unsigned int r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

template <int F, bool TA, bool TB>
__global__ void __launch_bounds__(256) fault(GemmArgs args) {
  static_assert(F != 8, "injected compile error (fault-injection test kernel F=8)");
  extern __shared__ float dynamic_smem[];
  __shared__ float partial[128];
  long long m0, n0;
  if constexpr (F == 7) {
    fp32::block_tile_origin<8, 16>(args, m0, n0);
  } else {
    fp32::block_tile_origin<16, 16>(args, m0, n0);
  }
  int const t = static_cast<int>(threadIdx.x);

  if constexpr (F == 7) {
    // Threads 0-127 (warps 0-3) sum the start of K into shared memory; threads 128-255
    // (warps 4-7) sum the rest and add what is in shared memory, with no __syncthreads between.
    // Every fourth block gives the readers only the last eighth of K, so they usually get there
    // first; the others split K evenly and the winner depends on scheduling. Which blocks read
    // stale shared memory varies from run to run.
    int const e = t & 127;
    long long const m = m0 + e / 16, n = n0 + e % 16;
    bool const inside = m < args.M && n < args.N;
    long long const split = blockIdx.x % 4 == 0 ? args.K - args.K / 8 : args.K / 2;
    float acc = 0.0f;
    if (t < 128) {
      if (inside) {
        for (long long k = 0; k < split; ++k) acc += fp32::a_at<TA>(args, m, k) * fp32::b_at<TB>(args, k, n);
      }
      partial[e] = acc;
    } else {
      if (inside) {
        for (long long k = split; k < args.K; ++k) acc += fp32::a_at<TA>(args, m, k) * fp32::b_at<TB>(args, k, n);
      }
      if (inside) fp32::store_c(args, m, n, acc + partial[e]);
    }
    return;
  }

  long long const m = m0 + t % 16;
  long long const n = n0 + t / 16;
  if constexpr (F == 1) {
    if (blockIdx.x == 0 && t == 0) static_cast<float*>(args.C)[(1ll << 40) + args.M * args.N] = 1.0f;
  }
  if constexpr (F == 3) {
    // C is poisoned with NaN before every run, so this never ends.
    if (blockIdx.x == 0 && t == 0) {
      while (!(*static_cast<volatile float*>(args.C) == 12345.0f)) {
      }
    }
  }
  if constexpr (F == 5) {
    if (blockIdx.x == gridDim.x - 1) return;
  }
  if (m >= args.M || n >= args.N) return;
  float acc = 0.0f;
  long long const k_end = F == 4 ? (args.K > 8 ? args.K - 8 : 0) : args.K;
  for (long long k = 0; k < k_end; ++k) {
    float a = fp32::a_at<TA>(args, m, k), b = fp32::b_at<TB>(args, k, n);
    if constexpr (F == 6) {
      a = to_tf32(a);
      b = to_tf32(b);
    }
    acc += a * b;
  }
  if constexpr (F == 2) {
    // A 16-byte load from 4 bytes past A: a misaligned address. Written as PTX so the
    // compiler cannot narrow it to the one component a plain float4 read would use.
    float x, y, z, w;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                 : "l"(static_cast<char const*>(args.A) + 4));
    acc += (x + y + z + w) * 0.0f;
  }
  if constexpr (F == 9) {
    dynamic_smem[t] = acc;
    acc = dynamic_smem[t];
  }
  fp32::store_c(args, m, n, acc);
}

}  // namespace gemmtune

#endif  // GEMMTUNE_TEST_FAULTS_CUH
