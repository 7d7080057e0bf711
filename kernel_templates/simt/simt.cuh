// The `simt` family: FP32 GEMM on CUDA cores at full strength. Block tile BM×BN×BK; warps of
// 32 lanes in a 4×8 or 8×4 lane grid (row-major or Z-order); each thread owns (TM/4)×(TN/4)
// 4×4 sub-blocks spaced by the warp's lane extent, so every fragment read is one conflict-free
// LDS.128 and every store of C a coalesced float4. Both operands sit k-major in shared memory
// (A transposed), fed by float4 or scalar global loads (register-staged) or by cp.async
// (multi-stage); split-K slices reduce through a workspace (plain stores summed by each tile's
// last slice in the same launch or by a reduce kernel, or atomics + finalize kernel).
//
//   BM, BN, BK   block tile of C and depth of one staged K slice
//   TM, TN       a thread's rows and columns of C (multiples of 4)
//   LL           lane layout: 0 = 4×8 row-major, 1 = 8×4 row-major, 2 = 4×8 Z-order,
//                3 = 8×4 Z-order; warp tile = (lanes_m·TM)×(lanes_n·TN)
//   CURE         bank-conflict cure of the operand transposed into shared memory:
//                0 none, 1 pad rows by 4 floats, 2 XOR swizzle of 16-byte chunks
//   ST, CP       CP = 0: ST = 1 single buffer, ST = 2 register-staged double buffer;
//                CP = 1: cp.async ring of ST = 2..4 stages (sm_80+)
//   SW           rasterization: blocks walk groups of SW tile rows column by column
//                (common/tile_schedule.cuh)
//   SK, RED      split-K slices (blockIdx.z) and their reduction: RED = 0 partials per slice,
//                summed by the tile's last slice to finish when SK = 2 (common/split_k.cuh, a
//                counter per tile), else by simt_reduce<SK>; RED = 1 atomics into one zeroed
//                slice, then simt_reduce<1>
//   TA, TB       A stored K×M, B stored N×K (from the layout)
//   VEC          float4 global access (alignment class 16); scalar otherwise
#ifndef GEMMTUNE_SIMT_SIMT_CUH
#define GEMMTUNE_SIMT_SIMT_CUH

#include "common/async_copy.cuh"
#include "common/fp32_tile_io.cuh"
#include "common/gemm_args.cuh"
#include "common/grid_dependency.cuh"
#include "common/split_k.cuh"
#include "common/tile_schedule.cuh"

namespace gemmtune {
namespace simt_detail {

constexpr int kWarpSize = 32;
constexpr int kReduceThreads = 256;

__host__ __device__ constexpr int lanes_m(int LL) { return LL % 2 == 0 ? 4 : 8; }
__host__ __device__ constexpr int lanes_n(int LL) { return kWarpSize / lanes_m(LL); }
__host__ __device__ constexpr int block_threads(int BM, int BN, int TM, int TN, int LL) {
  return (BM / (lanes_m(LL) * TM)) * (BN / (lanes_n(LL) * TN)) * kWarpSize;
}

/// The lane's (row, column) in the warp's lane grid. Z-order interleaves the lane bits
/// (n, m, n, m, then the 8-wide dimension), so a quarter-warp covers a 2×4 patch.
template <int LL>
__device__ __forceinline__ void lane_coords(int lane, int& lm, int& ln) {
  if constexpr (LL < 2) {
    lm = lane / lanes_n(LL);
    ln = lane % lanes_n(LL);
  } else {
    ln = (lane & 1) | ((lane >> 1) & 2);
    lm = ((lane >> 1) & 1) | ((lane >> 2) & 2);
    if constexpr (lanes_n(LL) == 8) {
      ln |= (lane >> 2) & 4;
    } else {
      lm |= (lane >> 2) & 4;
    }
  }
}

/// One operand's k-major shared tile [BK][BX] (+4 floats per row when padded). With the XOR
/// cure the 16-byte chunk index of a row is XORed with a function of k that gives the 4-row
/// groups of one transposing store distinct bank quads; chunks stay whole, so reads remain
/// LDS.128 and a quarter-warp's chunks stay a permutation of distinct banks.
template <int BX, int BK, int CURE>
struct SmemTile {
  static constexpr int kLd = BX + (CURE == 1 ? 4 : 0);
  static constexpr int kFloats = BK * kLd;
  static constexpr int kChunks = BX / 4;
  static constexpr int kStep = BK >= 32 ? 1 : 32 / BK;

  __device__ __forceinline__ static int at(int k, int x) {
    if constexpr (CURE == 2) {
      int const g = (((k >> 2) * kStep) & 7) & (kChunks - 1);
      return k * kLd + ((((x >> 2) ^ g) << 2) | (x & 3));
    } else {
      return k * kLd + x;
    }
  }
};

/// Global ↔ shared traffic of one operand. X is M for A and N for B. TRANS: the stored matrix
/// is X×K (contiguous along k) and the tile is transposed on its way into shared memory;
/// otherwise it is stored K×X. Work items are V-wide vectors along the contiguous dimension.
template <int BX, int BK, int THREADS, bool TRANS, bool VEC, int CURE>
struct Operand {
  using Tile = SmemTile<BX, BK, TRANS ? CURE : 0>;
  static constexpr int kV = VEC ? 4 : 1;
  static constexpr int kItems = BX * BK / kV;
  static constexpr int kPerThread = (kItems + THREADS - 1) / THREADS;
  static_assert(BK % kV == 0 && BX % kV == 0, "tile extents must hold whole vectors");

  /// Tile coordinates (x, k) of item i's first element.
  __device__ __forceinline__ static void coords(int i, int& x, int& k) {
    if constexpr (TRANS) {
      k = (i % (BK / kV)) * kV;
      x = i / (BK / kV);
    } else {
      x = (i % (BX / kV)) * kV;
      k = i / (BX / kV);
    }
  }

  __device__ __forceinline__ static bool active(int it, int& i) {
    i = it * THREADS + static_cast<int>(threadIdx.x);
    return kItems % THREADS == 0 || i < kItems;
  }

  /// Item (x, k) of the tile at (x0, k0): zero outside the matrix with CHECK; without, the
  /// caller knows the whole tile lies inside it and the load is unconditional.
  template <bool CHECK>
  __device__ __forceinline__ static float4 fetch(const float* P, long long ld, long long X,
                                                 long long K, long long gx, long long gk) {
    if constexpr (!CHECK) {
      const float* const p = TRANS ? P + gx * ld + gk : P + gk * ld + gx;
      if constexpr (VEC) {
        return *reinterpret_cast<const float4*>(p);
      } else {
        return make_float4(*p, 0.0f, 0.0f, 0.0f);
      }
    } else if constexpr (VEC) {
      return TRANS ? fp32::load4(P, ld, X, K, gx, gk) : fp32::load4(P, ld, K, X, gk, gx);
    } else {
      bool const in = gx < X && gk < K;
      float const v = in ? (TRANS ? P[gx * ld + gk] : P[gk * ld + gx]) : 0.0f;
      return make_float4(v, 0.0f, 0.0f, 0.0f);
    }
  }

  __device__ __forceinline__ static void put(float* s, int x, int k, float4 v) {
    if constexpr (TRANS) {
      s[Tile::at(k, x)] = v.x;
      if constexpr (kV == 4) {
        s[Tile::at(k + 1, x)] = v.y;
        s[Tile::at(k + 2, x)] = v.z;
        s[Tile::at(k + 3, x)] = v.w;
      }
    } else if constexpr (kV == 4) {
      *reinterpret_cast<float4*>(s + Tile::at(k, x)) = v;
    } else {
      s[Tile::at(k, x)] = v.x;
    }
  }

  /// Reads this thread's items of the tile into registers (CHECK: see fetch).
  template <bool CHECK>
  __device__ __forceinline__ static void fetch_all(float4 (&r)[kPerThread], const float* P,
                                                   long long ld, long long X, long long K,
                                                   long long x0, long long k0) {
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      int i, x, k;
      r[it] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (active(it, i)) {
        coords(i, x, k);
        r[it] = fetch<CHECK>(P, ld, X, K, x0 + x, k0 + k);
      }
    }
  }

  __device__ __forceinline__ static void put_all(float4 const (&r)[kPerThread], float* s) {
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      int i, x, k;
      if (active(it, i)) {
        coords(i, x, k);
        put(s, x, k, r[it]);
      }
    }
  }

  // Fixed-stride access: when the block's threads cover whole lines (a line is the contiguous
  // run of BX or BK elements one global row of the tile holds), a thread's item `it` lies
  // it·kLineStep lines after its item 0 in every K step, so its global address is item 0's plus
  // a stride and its shared offset item 0's plus a constant; the main loop then advances one
  // pointer per operand instead of recomputing each item's 64-bit address and swizzled offset
  // (in the SASS of a 128×256×16 step that recomputation was ~100 of ~2290 issued instructions).
  // Under the XOR cure the constant holds when a line step moves whole groups of 8 chunks, which
  // the swizzle (a function of k < 8) leaves in place.
  static constexpr int kPerLine = TRANS ? BK / kV : BX / kV;
  static constexpr int kLineStep = THREADS / kPerLine;
  static constexpr bool kFixedStride =
      THREADS % kPerLine == 0 && kItems % THREADS == 0 &&
      (!TRANS || CURE != 2 || kLineStep % 32 == 0);

  /// This thread's item 0: its offset in a stage's tile and its global address at (x0, k0).
  __device__ __forceinline__ static int first_offset() {
    int x, k;
    coords(static_cast<int>(threadIdx.x), x, k);
    return Tile::at(k, x);
  }
  __device__ __forceinline__ static const float* first_address(const float* P, long long ld,
                                                                long long x0, long long k0) {
    int x, k;
    coords(static_cast<int>(threadIdx.x), x, k);
    return TRANS ? P + (x0 + x) * ld + k0 + k : P + (k0 + k) * ld + x0 + x;
  }
  /// Elements between a K step's item 0 and the next step's (a K step is BK columns when the
  /// tile is transposed, BK rows of stride ld otherwise).
  __device__ __forceinline__ static long long k_advance(long long ld) {
    return TRANS ? static_cast<long long>(BK) : BK * ld;
  }

  /// kFixedStride reads of a tile inside the matrix: p is item 0's address, ld the operand's
  /// leading dimension.
  __device__ __forceinline__ static void fetch_fixed(float4 (&r)[kPerThread], const float* p,
                                                     long long ld) {
    long long const step = kLineStep * ld;
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      const float* const q = p + it * step;
      if constexpr (VEC) {
        r[it] = *reinterpret_cast<const float4*>(q);
      } else {
        r[it] = make_float4(*q, 0.0f, 0.0f, 0.0f);
      }
    }
  }

  /// kFixedStride stores into one stage: s is the stage's tile plus first_offset().
  __device__ __forceinline__ static void put_fixed(float4 const (&r)[kPerThread], float* s) {
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      if constexpr (TRANS) {
        float* const q = s + it * kLineStep;
        q[0] = r[it].x;
        if constexpr (kV == 4) {
          q[Tile::kLd] = r[it].y;
          q[2 * Tile::kLd] = r[it].z;
          q[3 * Tile::kLd] = r[it].w;
        }
      } else if constexpr (kV == 4) {
        *reinterpret_cast<float4*>(s + it * kLineStep * Tile::kLd) = r[it];
      } else {
        s[it * kLineStep * Tile::kLd] = r[it].x;
      }
    }
  }

  /// Issues this thread's items as cp.async copies (zero-filled outside the matrix).
  __device__ __forceinline__ static void issue_all(float* s, const float* P, long long ld,
                                                   long long X, long long K, long long x0,
                                                   long long k0) {
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      int i, x, k;
      if (!active(it, i)) continue;
      coords(i, x, k);
      long long const gx = x0 + x, gk = k0 + k;
      if constexpr (TRANS) {
        // Transposing: element-wise 4-byte copies land in the k-major tile.
#pragma unroll
        for (int t = 0; t < kV; ++t) {
          int const valid = (gx < X && gk + t < K) ? 1 : 0;
          async::copy4(s + Tile::at(k + t, x), valid ? P + gx * ld + gk + t : P, valid);
        }
      } else if constexpr (kV == 4) {
        long long const left = X - gx;
        int const valid = gk < K ? (left >= 4 ? 4 : (left > 0 ? static_cast<int>(left) : 0)) : 0;
        async::copy16(s + Tile::at(k, x), valid ? P + gk * ld + gx : P, valid);
      } else {
        int const valid = (gx < X && gk < K) ? 1 : 0;
        async::copy4(s + Tile::at(k, x), valid ? P + gk * ld + gx : P, valid);
      }
    }
  }
};

/// Split-K RED=0: adds (FIRST: stores) one slice's partials into the accumulators of the
/// elements this thread stored: (TM/4)·(TN/4) sub-blocks of 4×4, spaced LM·4 rows and LN·4
/// columns. `q0` is the thread's first element in the slice (row stride ld), `rows_left`,
/// `cols_left` the rows and columns of C from there (CHECK: a ragged tile). Loads go into a batch
/// of registers before any is added, so a batch costs one trip to L2, not one per element; only
/// what a slice stored is read. Plain loads: the acquire that found this slice last invalidated
/// L1.
template <bool CHECK, bool FIRST, int TM, int TN, int LM, int LN>
__device__ __forceinline__ void add_slice(float (&acc)[TM][TN], float const* q0, long long ld,
                                          long long rows_left, long long cols_left) {
  constexpr int ROWS = TM, VECS = TN / 4;  // a row of 4 columns per (row, vec)
  // At most 4 float4 (16 registers) beside up to 128 accumulators.
  constexpr int BATCH_ROWS = ROWS * VECS <= 4 ? ROWS : 4 / VECS > 0 ? 4 / VECS : 1;
  static_assert(ROWS % BATCH_ROWS == 0, "whole batches");
#pragma unroll
  for (int b = 0; b < ROWS; b += BATCH_ROWS) {
    float4 part[BATCH_ROWS][VECS];
#pragma unroll
    for (int k = 0; k < BATCH_ROWS; ++k) {
      int const row = b + k;  // = 4·i + r
      int const dr = (row / 4) * LM * 4 + row % 4;
#pragma unroll
      for (int j = 0; j < VECS; ++j) {
        int const dc = j * LN * 4;
        float const* const w = q0 + dr * ld + dc;
        bool const in = !CHECK || (dr < rows_left && dc < cols_left);
        part[k][j] = !in ? make_float4(0.f, 0.f, 0.f, 0.f)
                     : !CHECK || dc + 3 < cols_left
                         ? *reinterpret_cast<float4 const*>(w)
                         : make_float4(w[0], dc + 1 < cols_left ? w[1] : 0.f,
                                       dc + 2 < cols_left ? w[2] : 0.f, 0.f);
      }
    }
#pragma unroll
    for (int k = 0; k < BATCH_ROWS; ++k) {
#pragma unroll
      for (int j = 0; j < VECS; ++j) {
        float* const v = &acc[b + k][4 * j];
        v[0] = FIRST ? part[k][j].x : v[0] + part[k][j].x;
        v[1] = FIRST ? part[k][j].y : v[1] + part[k][j].y;
        v[2] = FIRST ? part[k][j].z : v[2] + part[k][j].z;
        v[3] = FIRST ? part[k][j].w : v[3] + part[k][j].w;
      }
    }
  }
}

/// C = alpha·acc + beta·C for the elements this thread owns ((TM/4)·(TN/4) sub-blocks of 4×4,
/// spaced LM·4 rows and LN·4 columns from (m, n)): a float4 per row of 4 with VEC, else scalars.
template <int TM, int TN, int LM, int LN, bool VEC>
__device__ __forceinline__ void store_owned(GemmArgs const& args, float const (&acc)[TM][TN],
                                            long long m, long long n) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        float const* const v = &acc[4 * i + r][4 * j];
        long long const mm = m + i * LM * 4 + r, nn = n + j * LN * 4;
        if constexpr (VEC) {
          fp32::store_c4(args, mm, nn, make_float4(v[0], v[1], v[2], v[3]));
        } else {
#pragma unroll
          for (int t = 0; t < 4; ++t) fp32::store_c(args, mm, nn + t, v[t]);
        }
      }
    }
  }
}

}  // namespace simt_detail

template <int BM, int BN, int BK, int TM, int TN, int LL, int CURE, int ST, int CP, int SW,
          int SK, int RED, bool TA, bool TB, bool VEC>
__global__ void __launch_bounds__(simt_detail::block_threads(BM, BN, TM, TN, LL))
    simt(GemmArgs args) {
  using namespace simt_detail;
  constexpr int kLM = lanes_m(LL), kLN = lanes_n(LL);
  constexpr int kWM = kLM * TM, kWN = kLN * TN;
  constexpr int kThreads = block_threads(BM, BN, TM, TN, LL);
  static_assert(TM % 4 == 0 && TN % 4 == 0, "threads own whole 4×4 sub-blocks");
  static_assert(BM % kWM == 0 && BN % kWN == 0, "warp tiles must divide the block tile");
  static_assert((CP == 0 && (ST == 1 || ST == 2)) || (CP == 1 && ST >= 2 && ST <= 4),
                "CP=0 takes ST 1 or 2; CP=1 takes ST 2..4");
  static_assert(SK >= 1 && (RED == 0 || RED == 1), "split-K slices and reduction mode");
  grid_dependency::wait_for_prior_grids();

  using OpA = Operand<BM, BK, kThreads, !TA, VEC, CURE>;
  using OpB = Operand<BN, BK, kThreads, TB, VEC, CURE>;
  constexpr int kStageFloats = OpA::Tile::kFloats + OpB::Tile::kFloats;
  float* const smem = fp32::SmemBuffer<ST * kStageFloats>::get();

  const float* const A = static_cast<const float*>(args.A);
  const float* const B = static_cast<const float*>(args.B);

  long long m0, n0;
  tile_schedule::block_tile<BM, BN, SW>(args.M, args.N, m0, n0);
  // This block's K slice, in whole BK steps.
  long long kt_begin, kt_count;
  tile_schedule::block_k_slice<BK, SK>(args.K, kt_begin, kt_count);
  int const KT = static_cast<int>(kt_count);

  int const tid = static_cast<int>(threadIdx.x);
  int const warp = tid / kWarpSize;
  int lm, ln;
  lane_coords<LL>(tid % kWarpSize, lm, ln);
  int const row0 = (warp / (BN / kWN)) * kWM + lm * 4;  // first row of sub-block (0, ·)
  int const col0 = (warp % (BN / kWN)) * kWN + ln * 4;  // first column of sub-block (·, 0)

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }

  auto compute = [&](const float* sa, const float* sb) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM / 4; ++i) {
        float4 const v =
            *reinterpret_cast<const float4*>(sa + OpA::Tile::at(k, row0 + i * kLM * 4));
        a[4 * i] = v.x;
        a[4 * i + 1] = v.y;
        a[4 * i + 2] = v.z;
        a[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        float4 const v =
            *reinterpret_cast<const float4*>(sb + OpB::Tile::at(k, col0 + j * kLN * 4));
        b[4 * j] = v.x;
        b[4 * j + 1] = v.y;
        b[4 * j + 2] = v.z;
        b[4 * j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      }
    }
  };
  auto stage_a = [&](int s) { return smem + s * kStageFloats; };
  auto stage_b = [&](int s) { return smem + s * kStageFloats + OpA::Tile::kFloats; };
  auto k_of = [&](int kt) { return (kt_begin + kt) * BK; };
  // Register-staged loads of a K step inside the matrix (all but edge tiles and a ragged last
  // step) skip the bounds checks: in the SASS of a 128×256×16 step the checks and their
  // branches were ~200 of ~2460 instructions, issued beside the 2048 FFMAs (H200, 4096³:
  // 3.114 → 2.957 ms). cp.async keeps one checked path: the same split there made three
  // winners 3.5–6.8% slower and used more registers
  // (bench/results/2026-11-29-h200-simt-inner-tiles.md).
  bool const inner_mn = m0 + BM <= args.M && n0 + BN <= args.N;
  auto inner = [&](int kt) { return inner_mn && k_of(kt) + BK <= args.K; };
  auto fetch_tile = [&](float4 (&ra)[OpA::kPerThread], float4 (&rb)[OpB::kPerThread], int kt) {
    if (inner(kt)) {
      OpA::template fetch_all<false>(ra, A, args.lda, args.M, args.K, m0, k_of(kt));
      OpB::template fetch_all<false>(rb, B, args.ldb, args.N, args.K, n0, k_of(kt));
    } else {
      OpA::template fetch_all<true>(ra, A, args.lda, args.M, args.K, m0, k_of(kt));
      OpB::template fetch_all<true>(rb, B, args.ldb, args.N, args.K, n0, k_of(kt));
    }
  };
  auto issue_tile = [&](int slot, int kt) {
    OpA::issue_all(stage_a(slot), A, args.lda, args.M, args.K, m0, k_of(kt));
    OpB::issue_all(stage_b(slot), B, args.ldb, args.N, args.K, n0, k_of(kt));
  };

  if constexpr (CP == 1) {
    // cp.async ring: ST-1 tiles in flight while one is computed.
#pragma unroll
    for (int s = 0; s < ST - 1; ++s) {
      if (s < KT) issue_tile(s, s);
      async::commit();
    }
    int read = 0, write = ST - 1;
    for (int kt = 0; kt < KT; ++kt) {
      async::wait<ST - 2>();
      __syncthreads();  // tile kt is visible; everyone is done with the slot refilled below
      if (kt + ST - 1 < KT) issue_tile(write, kt + ST - 1);
      async::commit();
      compute(stage_a(read), stage_b(read));
      read = read + 1 == ST ? 0 : read + 1;
      write = write + 1 == ST ? 0 : write + 1;
    }
    async::wait<0>();
  } else if constexpr (ST == 2) {
    // Register-staged double buffer: the next tile's global loads are in flight during the
    // FFMAs on this one, then land in the other buffer; one barrier per step.
    float4 ra[OpA::kPerThread], rb[OpB::kPerThread];
    if (KT > 0) {
      fetch_tile(ra, rb, 0);
      OpA::put_all(ra, stage_a(0));
      OpB::put_all(rb, stage_b(0));
    }
    __syncthreads();
    int kt = 0;
    if constexpr (OpA::kFixedStride && OpB::kFixedStride) {
      // Steps whose next tile lies inside the matrix run a loop of their own with fixed-stride
      // loads and stores and no bounds checks, so the hot loop is short straight-line code; the
      // last step (no next tile) and any checked ones run the loop below.
      long long const k_full = args.K / BK - kt_begin;  // steps inside K from kt_begin on
      int const fast_end =
          !inner_mn ? 0 : static_cast<int>(k_full >= KT ? KT - 1 : (k_full > 1 ? k_full - 1 : 0));
      const float* pa = OpA::first_address(A, args.lda, m0, k_of(1));
      const float* pb = OpB::first_address(B, args.ldb, n0, k_of(1));
      long long const a_advance = OpA::k_advance(args.lda), b_advance = OpB::k_advance(args.ldb);
      int const a_put = OpA::first_offset(), b_put = OpB::first_offset();
      for (; kt < fast_end; ++kt) {
        int const cur = kt & 1;
        OpA::fetch_fixed(ra, pa, args.lda);
        OpB::fetch_fixed(rb, pb, args.ldb);
        pa += a_advance;
        pb += b_advance;
        // Never taken (fast_end < KT): the branch closes the block that issues the loads, so
        // ptxas keeps them at the top of the step. Without it they sank three quarters of the
        // way down a 128×256×16 step, to shorten the staging registers' lives, and their
        // latency showed as long-scoreboard and barrier stalls.
        if (kt + 1 >= KT) break;
        compute(stage_a(cur), stage_b(cur));
        OpA::put_fixed(ra, stage_a(cur ^ 1) + a_put);
        OpB::put_fixed(rb, stage_b(cur ^ 1) + b_put);
        __syncthreads();
      }
    }
    for (; kt < KT; ++kt) {
      int const cur = kt & 1;
      if (kt + 1 < KT) fetch_tile(ra, rb, kt + 1);
      compute(stage_a(cur), stage_b(cur));
      if (kt + 1 < KT) {
        OpA::put_all(ra, stage_a(cur ^ 1));
        OpB::put_all(rb, stage_b(cur ^ 1));
      }
      __syncthreads();
    }
  } else {
    float4 ra[OpA::kPerThread], rb[OpB::kPerThread];
    for (int kt = 0; kt < KT; ++kt) {
      fetch_tile(ra, rb, kt);
      OpA::put_all(ra, stage_a(0));
      OpB::put_all(rb, stage_b(0));
      __syncthreads();
      compute(stage_a(0), stage_b(0));
      __syncthreads();
    }
  }

  // The next launch may start once every block is here: blocks launched earlier would sit
  // beside this grid's on the SMs for its whole main loop.
  grid_dependency::allow_dependents();

  // Epilogue: sub-block rows are 4 consecutive columns, so each is one float4 access.
  long long const np = (args.N + 3) / 4 * 4;  // workspace row stride, keeps rows 16-byte aligned
  float* const ws = static_cast<float*>(args.workspace) +
                    (RED == 0 ? static_cast<long long>(blockIdx.z) * args.M * np : 0LL);
#pragma unroll
  for (int i = 0; i < TM / 4; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      long long const m = m0 + row0 + i * kLM * 4 + r;
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        long long const n = n0 + col0 + j * kLN * 4;
        float const* v = &acc[4 * i + r][4 * j];
        if constexpr (SK == 1) {
          if constexpr (VEC) {
            fp32::store_c4(args, m, n, make_float4(v[0], v[1], v[2], v[3]));
          } else {
#pragma unroll
            for (int t = 0; t < 4; ++t) fp32::store_c(args, m, n + t, v[t]);
          }
        } else if (m < args.M) {
          float* const w = ws + m * np + n;
          if constexpr (RED == 0) {
            if (n + 3 < args.N) {
              *reinterpret_cast<float4*>(w) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
              for (int t = 0; t < 4; ++t) {
                if (n + t < args.N) w[t] = v[t];
              }
            }
          } else {
#pragma unroll
            for (int t = 0; t < 4; ++t) {
              if (n + t < args.N) atomicAdd(w + t, v[t]);
            }
          }
        }
      }
    }
  }
  if constexpr (RED == 0 && split_k::last_slice_sums(SK)) {
    __syncthreads();  // every partial of the block is stored before thread 0 counts the slice
    bool const last = __syncthreads_or(
        threadIdx.x == 0 &&
        split_k::arrive(args.counters + static_cast<long long>(blockIdx.x), SK));
    if (!last) return;
    // The last slice: each thread sums the elements it stored itself, reading all SK slices
    // back (its own too) in slice order, so C does not depend on which slice came last.
    float const* const q0 =
        static_cast<float const*>(args.workspace) + (m0 + row0) * np + n0 + col0;
    long long const slice_floats = args.M * np;
    long long const rows_left = args.M - (m0 + row0), cols_left = args.N - (n0 + col0);
    if (m0 + BM <= args.M && n0 + BN <= args.N) {
      add_slice<false, true, TM, TN, kLM, kLN>(acc, q0, np, rows_left, cols_left);
#pragma unroll 1
      for (int z = 1; z < SK; ++z) {
        add_slice<false, false, TM, TN, kLM, kLN>(acc, q0 + z * slice_floats, np, rows_left,
                                                  cols_left);
      }
    } else {
      add_slice<true, true, TM, TN, kLM, kLN>(acc, q0, np, rows_left, cols_left);
#pragma unroll 1
      for (int z = 1; z < SK; ++z) {
        add_slice<true, false, TM, TN, kLM, kLN>(acc, q0 + z * slice_floats, np, rows_left,
                                                 cols_left);
      }
    }
    store_owned<TM, TN, kLM, kLN, VEC>(args, acc, m0 + row0, n0 + col0);
  }
}

/// C = alpha·Σ_z W[z] + beta·C over SLICES partial products W[z] (M rows of stride
/// round_up(N, 4)) in args.workspace, summed in slice order. One thread per 4 columns.
template <int SLICES, bool VEC>
__global__ void __launch_bounds__(simt_detail::kReduceThreads) simt_reduce(GemmArgs args) {
  grid_dependency::wait_for_prior_grids();
  long long const np = (args.N + 3) / 4 * 4;
  long long const slice = args.M * np;
  long long const vecs = args.M * (np / 4);
  const float* const ws = static_cast<const float*>(args.workspace);
  long long const stride = static_cast<long long>(gridDim.x) * simt_detail::kReduceThreads;
  for (long long v = static_cast<long long>(blockIdx.x) * simt_detail::kReduceThreads +
                     threadIdx.x;
       v < vecs; v += stride) {
    long long const m = v / (np / 4), n = (v % (np / 4)) * 4;
    const float* p = ws + m * np + n;
    float4 s = *reinterpret_cast<const float4*>(p);
#pragma unroll
    for (int z = 1; z < SLICES; ++z) {
      float4 const t = *reinterpret_cast<const float4*>(p + z * slice);
      s.x += t.x;
      s.y += t.y;
      s.z += t.z;
      s.w += t.w;
    }
    if constexpr (VEC) {
      fp32::store_c4(args, m, n, s);
    } else {
      fp32::store_c(args, m, n, s.x);
      fp32::store_c(args, m, n + 1, s.y);
      fp32::store_c(args, m, n + 2, s.z);
      fp32::store_c(args, m, n + 3, s.w);
    }
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_SIMT_SIMT_CUH
