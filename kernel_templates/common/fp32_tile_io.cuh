// FP32 operand access shared by the seed-ladder templates: op(A)/op(B) element reads for every
// layout, guarded tile copies into shared memory (scalar, or float4 with a scalar edge), the
// alpha/beta epilogue that never reads C when beta == 0, and the shared-memory buffer choice.
//
// Storage (row-major everywhere, leading dimensions in elements):
//   A: M×K (A(m,k) = A[m*lda + k]), or K×M when TA (A(m,k) = A[k*lda + m]);
//   B: K×N (B(k,n) = B[k*ldb + n]), or N×K when TB (B(k,n) = B[n*ldb + k]);
//   C: M×N with ldc.
#pragma once

#include "common/gemm_args.cuh"

namespace gemmtune {
namespace fp32 {

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The first flat block index's tile: blocks walk C's tiles row by row. One flat grid dimension
/// because gridDim.y and gridDim.z stop at 65535 tiles.
template <int BM, int BN>
__device__ __forceinline__ void block_tile_origin(GemmArgs const& args, long long& m0,
                                                  long long& n0) {
  long long const tiles_n = (args.N + BN - 1) / BN;
  long long const tile = static_cast<long long>(blockIdx.x);
  m0 = (tile / tiles_n) * BM;
  n0 = (tile % tiles_n) * BN;
}

/// op(A)(m, k); the caller guarantees m < M and k < K.
template <bool TA>
__device__ __forceinline__ float a_at(GemmArgs const& args, long long m, long long k) {
  const float* A = static_cast<const float*>(args.A);
  return TA ? A[k * args.lda + m] : A[m * args.lda + k];
}

/// op(B)(k, n); the caller guarantees k < K and n < N.
template <bool TB>
__device__ __forceinline__ float b_at(GemmArgs const& args, long long k, long long n) {
  const float* B = static_cast<const float*>(args.B);
  return TB ? B[n * args.ldb + k] : B[k * args.ldb + n];
}

/// C(m, n) = alpha·acc + beta·C(m, n) when (m, n) is inside C. C is not read when beta == 0:
/// it may hold anything, NaN included.
__device__ __forceinline__ void store_c(GemmArgs const& args, long long m, long long n,
                                        float acc) {
  if (m >= args.M || n >= args.N) return;
  float* c = static_cast<float*>(args.C) + m * args.ldc + n;
  *c = args.beta == 0.0f ? args.alpha * acc : args.alpha * acc + args.beta * *c;
}

/// Four results C(m, n..n+3): one float4 access when all four are inside C, else element by
/// element. Needs C and ldc 16-byte aligned and n % 4 == 0 (alignment class 16).
__device__ __forceinline__ void store_c4(GemmArgs const& args, long long m, long long n,
                                         float4 acc) {
  if (m >= args.M) return;
  if (n + 3 < args.N) {
    float4* c = reinterpret_cast<float4*>(static_cast<float*>(args.C) + m * args.ldc + n);
    float4 out = make_float4(args.alpha * acc.x, args.alpha * acc.y, args.alpha * acc.z,
                             args.alpha * acc.w);
    if (args.beta != 0.0f) {
      float4 const old = *c;
      out.x += args.beta * old.x;
      out.y += args.beta * old.y;
      out.z += args.beta * old.z;
      out.w += args.beta * old.w;
    }
    *c = out;
    return;
  }
  store_c(args, m, n, acc.x);
  store_c(args, m, n + 1, acc.y);
  store_c(args, m, n + 2, acc.z);
  store_c(args, m, n + 3, acc.w);
}

/// Copies op(A)[m0:m0+BM, k0:k0+BK] into shared memory, element (m, k) at s[m*SM + k*SK],
/// zero outside A. Threads walk the tile along A's contiguous dimension (k, or m when TA), so
/// a warp's reads are coalesced.
template <int BM, int BK, int THREADS, bool TA, int SM, int SK>
__device__ __forceinline__ void load_a_tile(GemmArgs const& args, long long m0, long long k0,
                                            float* s) {
  constexpr int kCount = BM * BK;
#pragma unroll
  for (int it = 0; it < ceil_div(kCount, THREADS); ++it) {
    int const i = it * THREADS + static_cast<int>(threadIdx.x);
    if (kCount % THREADS == 0 || i < kCount) {
      int const m = TA ? i % BM : i / BK;
      int const k = TA ? i / BM : i % BK;
      long long const gm = m0 + m, gk = k0 + k;
      s[m * SM + k * SK] = (gm < args.M && gk < args.K) ? a_at<TA>(args, gm, gk) : 0.0f;
    }
  }
}

/// Copies op(B)[k0:k0+BK, n0:n0+BN] into shared memory, element (k, n) at s[k*SK + n*SN],
/// zero outside B; threads walk B's contiguous dimension (n, or k when TB).
template <int BK, int BN, int THREADS, bool TB, int SK, int SN>
__device__ __forceinline__ void load_b_tile(GemmArgs const& args, long long k0, long long n0,
                                            float* s) {
  constexpr int kCount = BK * BN;
#pragma unroll
  for (int it = 0; it < ceil_div(kCount, THREADS); ++it) {
    int const i = it * THREADS + static_cast<int>(threadIdx.x);
    if (kCount % THREADS == 0 || i < kCount) {
      int const k = TB ? i % BK : i / BN;
      int const n = TB ? i / BK : i % BN;
      long long const gk = k0 + k, gn = n0 + n;
      s[k * SK + n * SN] = (gk < args.K && gn < args.N) ? b_at<TB>(args, gk, gn) : 0.0f;
    }
  }
}

/// Elements (r, c..c+3) of a rows×cols row-major matrix, zero outside it: one float4 load when
/// all four are inside, element by element on the ragged edge. Needs base and ld 16-byte
/// aligned and c % 4 == 0.
__device__ __forceinline__ float4 load4(const float* base, long long ld, long long rows,
                                        long long cols, long long r, long long c) {
  if (r >= rows) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float* p = base + r * ld + c;
  if (c + 3 < cols) return *reinterpret_cast<const float4*>(p);
  return make_float4(c < cols ? p[0] : 0.0f, c + 1 < cols ? p[1] : 0.0f,
                     c + 2 < cols ? p[2] : 0.0f, 0.0f);
}

/// Writes v to s[off], s[off+STRIDE], s[off+2*STRIDE], s[off+3*STRIDE]: one 16-byte store when
/// STRIDE is 1 (off must then be a multiple of 4).
template <int STRIDE>
__device__ __forceinline__ void store4_smem(float* s, int off, float4 v) {
  if constexpr (STRIDE == 1) {
    *reinterpret_cast<float4*>(s + off) = v;
  } else {
    s[off] = v.x;
    s[off + STRIDE] = v.y;
    s[off + 2 * STRIDE] = v.z;
    s[off + 3 * STRIDE] = v.w;
  }
}

/// load_a_tile with float4 global reads along A's contiguous dimension (k, or m when TA).
/// Needs alignment class 16; BK % 4 == 0 (or BM % 4 == 0 when TA).
template <int BM, int BK, int THREADS, bool TA, int SM, int SK>
__device__ __forceinline__ void load_a_tile_vec4(GemmArgs const& args, long long m0, long long k0,
                                                 float* s) {
  const float* A = static_cast<const float*>(args.A);
  constexpr int kVecs = BM * BK / 4;
#pragma unroll
  for (int it = 0; it < ceil_div(kVecs, THREADS); ++it) {
    int const i = it * THREADS + static_cast<int>(threadIdx.x);
    if (kVecs % THREADS == 0 || i < kVecs) {
      if constexpr (TA) {  // stored K×M: a vector is (k, m..m+3)
        int const m = (i % (BM / 4)) * 4, k = i / (BM / 4);
        float4 const v = load4(A, args.lda, args.K, args.M, k0 + k, m0 + m);
        store4_smem<SM>(s, m * SM + k * SK, v);
      } else {  // stored M×K: a vector is (m, k..k+3)
        int const k = (i % (BK / 4)) * 4, m = i / (BK / 4);
        float4 const v = load4(A, args.lda, args.M, args.K, m0 + m, k0 + k);
        store4_smem<SK>(s, m * SM + k * SK, v);
      }
    }
  }
}

/// load_b_tile with float4 global reads along B's contiguous dimension (n, or k when TB).
/// Needs alignment class 16; BN % 4 == 0 (or BK % 4 == 0 when TB).
template <int BK, int BN, int THREADS, bool TB, int SK, int SN>
__device__ __forceinline__ void load_b_tile_vec4(GemmArgs const& args, long long k0, long long n0,
                                                 float* s) {
  const float* B = static_cast<const float*>(args.B);
  constexpr int kVecs = BK * BN / 4;
#pragma unroll
  for (int it = 0; it < ceil_div(kVecs, THREADS); ++it) {
    int const i = it * THREADS + static_cast<int>(threadIdx.x);
    if (kVecs % THREADS == 0 || i < kVecs) {
      if constexpr (TB) {  // stored N×K: a vector is (n, k..k+3)
        int const k = (i % (BK / 4)) * 4, n = i / (BK / 4);
        float4 const v = load4(B, args.ldb, args.N, args.K, n0 + n, k0 + k);
        store4_smem<SK>(s, k * SK + n * SN, v);
      } else {  // stored K×N: a vector is (k, n..n+3)
        int const n = (i % (BN / 4)) * 4, k = i / (BN / 4);
        float4 const v = load4(B, args.ldb, args.K, args.N, k0 + k, n0 + n);
        store4_smem<SN>(s, k * SK + n * SN, v);
      }
    }
  }
}

/// FLOATS floats of 16-byte aligned shared memory: static up to kSmemWithoutOptIn, dynamic
/// above (the launch plan then passes the size as dynamic shared memory).
template <int FLOATS, bool DYNAMIC = (FLOATS * 4 > kSmemWithoutOptIn)>
struct SmemBuffer {
  __device__ __forceinline__ static float* get() {
    static __shared__ __align__(16) float buffer[FLOATS];
    return buffer;
  }
};

template <int FLOATS>
struct SmemBuffer<FLOATS, true> {
  __device__ __forceinline__ static float* get() {
    extern __shared__ float4 dynamic_smem[];
    return reinterpret_cast<float*>(dynamic_smem);
  }
};

}  // namespace fp32
}  // namespace gemmtune
