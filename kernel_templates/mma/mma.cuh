// The `mma` family: tensor-core GEMM through warp-level mma.sync (sm_80+). fp16 and bf16 use
// m16n8k16, tf32 uses m16n8k8, all with FP32 accumulators. Operands keep their global
// orientation in shared memory (so every cp.async moves a whole 16-byte chunk) inside a ring of
// ST stages; fragments come from ldmatrix (.trans for the MN-major operand of 16-bit types) or,
// for MN-major tf32 operands that ldmatrix cannot transpose, from 32-bit LDS. The 16-byte chunks
// of each shared row are XOR-swizzled so that the cp.async stores, the 8-row ldmatrix phases and
// the 4-row LDS phases of tf32 all hit distinct banks.
//
//   BM, BN, BK   block tile of C and depth of one stage (BK·element size is 64 or 128 bytes)
//   WM, WN       warp tile (multiples of 16 and 16); (BM/WM)·(BN/WN) warps
//   ST           cp.async stages (2..5)
//   SW           rasterization: blocks walk groups of SW tile rows column by column
//                (common/tile_schedule.cuh)
//   SK           split-K slices (blockIdx.z): FP32 partials in the workspace; with SK = 2 the
//                tile's last slice to finish sums them and writes C (common/split_k.cuh, one
//                counter per tile), with more mma_reduce does
//   CR           1 (sm_90+, SK > 1): the SK slices of a tile form a cluster (mma_gemm_cluster)
//                and sum their accumulators through distributed shared memory instead: each
//                block stages its FP32 tile in its own shared memory, and block z of the cluster
//                adds rows [z·BM/SK, (z+1)·BM/SK) of all SK tiles in slice order and writes
//                them to C. One launch, no partials in global memory, no counters
//   PREC         0 fp16, 1 bf16, 2 tf32 (FP32 in memory, fed to m16n8k8 as stored: the tensor
//                core reads the top 19 bits, as the wgmma family's tf32 does. Rounding each
//                landed stage in shared memory first cost a second pass over every tile, which
//                doubled shared-memory traffic and was the kernel's limiter on sm_90)
//   TA, TB       A stored K×M, B stored N×K (from the layout)
//   ALIGN        alignment class in bytes: 16 takes cp.async chunks, less a scalar fill path
#ifndef GEMMTUNE_MMA_MMA_CUH
#define GEMMTUNE_MMA_MMA_CUH

#include "common/cluster.cuh"
#include "common/gemm_args.cuh"
#include "common/grid_dependency.cuh"
#include "common/split_k.cuh"
#include "common/tile_schedule.cuh"

namespace gemmtune {
namespace mma_detail {

constexpr int kWarpSize = 32;
constexpr int kReduceThreads = 256;

__host__ __device__ constexpr int elem_bytes(int PREC) { return PREC == 2 ? 4 : 2; }
__host__ __device__ constexpr int block_threads(int BM, int BN, int WM, int WN) {
  return (BM / WM) * (BN / WN) * kWarpSize;
}
/// Blocks per SM ptxas should plan registers for. Warp tiles up to 64×32 with 64-byte stage
/// rows fit 128 registers, so two 8-warp blocks share an SM; bigger tiles need more, and asking
/// for two blocks would make ptxas spill to stay at 128. The scalar fill path of unaligned tf32
/// holds a chunk's four FP32 elements per load in registers, which took 8-warp 32×64 tiles past
/// 128 on sm_86 and sm_89 (4 to 8 bytes spilled), so it plans for one block.
__host__ __device__ constexpr int min_blocks(int WM, int WN, int BK, int PREC, int ALIGN) {
  return WM * WN <= 64 * 32 && BK * elem_bytes(PREC) <= 64 && !(PREC == 2 && ALIGN < 16) ? 2 : 1;
}
__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int cmax(int a, int b) { return a > b ? a : b; }

/// One operand's shared tile: ROWS rows of COLS elements (bytes per element EB), chunks of 16
/// bytes XOR-swizzled within their row. Rows narrower than 128 bytes share a 128-byte bank line
/// with their neighbours, so the XOR key advances once per line; SPREAD = 2 moves the key in
/// steps of two chunks, for the 4-row × 2-chunk phases of tf32 scalar fragment loads.
template <int ROWS, int COLS, int EB, int SPREAD>
struct SwizzledTile {
  static constexpr int kChunkElems = 16 / EB;
  static constexpr int kChunks = COLS / kChunkElems;  // per row
  static constexpr int kRowsPerLine = cmax(1, 8 / kChunks);
  static constexpr int kKeys = cmin(kChunks, 8);
  static constexpr int kBytes = ROWS * COLS * EB;
  static constexpr int kRows = ROWS, kCols = COLS;
  static_assert(COLS % kChunkElems == 0, "rows hold whole 16-byte chunks");

  /// Byte offset of chunk `chunk` of row `row`.
  __device__ __forceinline__ static int chunk_offset(int row, int chunk) {
    int const key = ((row / kRowsPerLine) * SPREAD) & (kKeys - 1);
    return (row * kChunks + (chunk ^ key)) * 16;
  }
  /// Byte offset of element `col` of row `row`.
  __device__ __forceinline__ static int offset(int row, int col) {
    return chunk_offset(row, col / kChunkElems) + (col % kChunkElems) * EB;
  }
};

// Device primitives, one PTX instruction each. A host test that runs the template on the CPU
// defines GEMMTUNE_MMA_EMULATED and supplies these same functions (warp-collective versions
// included) before including this file.
#ifndef GEMMTUNE_MMA_EMULATED

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ unsigned lds32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

/// d += a·b for one 16×8 tile: m16n8k16 for fp16/bf16, m16n8k8 for tf32.
template <int PREC>
__device__ __forceinline__ void mma(float (&d)[4], unsigned const (&a)[4], unsigned const (&b)[2]) {
  if constexpr (PREC == 0) {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (PREC == 1) {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

/// One 16-byte cp.async to shared address `dst`; `bytes` (0..16) are read from src, the rest
/// zero-filled (src is not read when bytes is 0).
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

/// FP32 value of a 16-bit output element (PREC 0: fp16, 1: bf16).
template <int PREC>
__device__ __forceinline__ float half_bits_to_float(unsigned short h) {
  float f;
  if constexpr (PREC == 0) {
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
  } else {
    f = __uint_as_float(static_cast<unsigned>(h) << 16);
  }
  return f;
}

/// FP32 rounded (nearest even) to a 16-bit output element.
template <int PREC>
__device__ __forceinline__ unsigned short to_half_bits(float f) {
  unsigned short h;
  if constexpr (PREC == 0) {
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(f));
  } else {
    asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(f));
  }
  return h;
}

#endif  // GEMMTUNE_MMA_EMULATED

/// Output element as FP32 (for beta·C) and back, rounding to nearest even.
template <int PREC>
__device__ __forceinline__ float load_out(const void* base, long long i) {
  if constexpr (PREC == 2) {
    return static_cast<const float*>(base)[i];
  } else {
    return half_bits_to_float<PREC>(static_cast<const unsigned short*>(base)[i]);
  }
}

template <int PREC>
__device__ __forceinline__ void store_out(void* base, long long i, float v) {
  if constexpr (PREC == 2) {
    static_cast<float*>(base)[i] = v;
  } else {
    static_cast<unsigned short*>(base)[i] = to_half_bits<PREC>(v);
  }
}

/// Two adjacent outputs (i, i+1) in one store; the caller guarantees the pair's alignment.
template <int PREC>
__device__ __forceinline__ void store_out2(void* base, long long i, float v0, float v1) {
  if constexpr (PREC == 2) {
    *reinterpret_cast<float2*>(static_cast<float*>(base) + i) = make_float2(v0, v1);
  } else {
    unsigned const packed = static_cast<unsigned>(to_half_bits<PREC>(v0)) |
                            (static_cast<unsigned>(to_half_bits<PREC>(v1)) << 16);
    *reinterpret_cast<unsigned*>(static_cast<unsigned short*>(base) + i) = packed;
  }
}

/// C(m, n), C(m, n+1) = alpha·v + beta·C for the pair that lies inside C; C is read only when
/// beta ≠ 0. PAIR: the pair can be one store when both columns are inside.
template <int PREC, bool PAIR>
__device__ __forceinline__ void write_c_pair(GemmArgs const& args, long long m, long long n,
                                             float v0, float v1) {
  if (m >= args.M || n >= args.N) return;
  long long const i = m * args.ldc + n;
  v0 *= args.alpha;
  v1 *= args.alpha;
  bool const second = n + 1 < args.N;
  if (args.beta != 0.0f) {
    v0 += args.beta * load_out<PREC>(args.C, i);
    if (second) v1 += args.beta * load_out<PREC>(args.C, i + 1);
  }
  if (PAIR && second) {
    store_out2<PREC>(args.C, i, v0, v1);
  } else {
    store_out<PREC>(args.C, i, v0);
    if (second) store_out<PREC>(args.C, i + 1, v1);
  }
}

/// Global → shared traffic of one operand tile of ROWS rows × COLS contiguous elements, taken
/// at (r0, c0) of a matrix of `rows` × `cols` elements with leading dimension ld. ALIGN 16: one
/// cp.async of 16 bytes per chunk, zero-filled past the matrix; otherwise element loads and a
/// 16-byte shared store (synchronous, for pointers or strides that are not 16-byte aligned).
template <typename Tile, int THREADS, int EB, int ALIGN>
struct TileLoader {
  static constexpr int kRowChunks = Tile::kChunks;
  static constexpr int kItems = Tile::kBytes / 16;
  static constexpr int kPerThread = (kItems + THREADS - 1) / THREADS;
  static constexpr int kE = 16 / EB;
  /// Rows between a thread's items: each thread keeps one chunk column for the whole tile.
  static constexpr int kRowStep = THREADS / kRowChunks;
  static_assert(THREADS % kRowChunks == 0, "a row's chunks split evenly over the threads");

  /// Item `it` of this thread is chunk tid % kRowChunks of row tid / kRowChunks + it·kRowStep,
  /// so the column bound and the global address are worked out once per tile and each item
  /// adds a fixed row step; only the row bound is checked per item.
  __device__ __forceinline__ static void issue(unsigned char* s, const unsigned char* g,
                                               long long ld, long long rows, long long cols,
                                               long long r0, long long c0) {
    int const tid = static_cast<int>(threadIdx.x);
    int const chunk = tid % kRowChunks, row0 = tid / kRowChunks;
    if constexpr (ALIGN >= 16) {
      // Whole tile inside the matrix (every tile but the ragged edges; block-uniform): no
      // bounds, no zero fill, so each chunk costs one address add and its cp.async instead of
      // the bound checks and selects below (main loop 403 -> 243 instructions per warp per k-tile at
      // 128x256 BK=64 bf16, sm_90).
      if (rows - r0 >= Tile::kRows && cols - c0 >= Tile::kCols) {
        const unsigned char* const src0 = g + ((r0 + row0) * ld + c0 + chunk * kE) * EB;
        long long const step = static_cast<long long>(kRowStep) * ld * EB;
#pragma unroll
        for (int it = 0; it < kPerThread; ++it) {
          if (kItems % THREADS != 0 && it * THREADS + tid >= kItems) continue;
          cp_async16(smem_addr(s + Tile::chunk_offset(row0 + it * kRowStep, chunk)),
                     src0 + it * step, 16);
        }
        return;
      }
    }
    long long const gc = c0 + chunk * kE;
    long long const left = cols - gc;
    int const ncol = left >= kE ? kE : (left > 0 ? static_cast<int>(left) : 0);
    long long const rows_left = rows - r0 - row0;  // rows inside the matrix from this thread's first
    const unsigned char* const src0 = g + ((r0 + row0) * ld + gc) * EB;
    long long const step = static_cast<long long>(kRowStep) * ld * EB;
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      if (kItems % THREADS != 0 && it * THREADS + tid >= kItems) continue;
      unsigned char* const dst = s + Tile::chunk_offset(row0 + it * kRowStep, chunk);
      int const n = it * kRowStep < rows_left ? ncol : 0;
      const unsigned char* const src = src0 + it * step;
      if constexpr (ALIGN >= 16) {
        cp_async16(smem_addr(dst), n > 0 ? src : g, n * EB);
      } else {
        unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
        for (int e = 0; e < kE; ++e) {
          if (e < n) {
            unsigned v;
            if constexpr (EB == 4) {
              v = *reinterpret_cast<const unsigned*>(src + e * 4);
              w[e] = v;
            } else {
              v = *reinterpret_cast<const unsigned short*>(src + e * 2);
              w[e / 2] |= v << (16 * (e % 2));
            }
          }
        }
        *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }
};

/// Split-K: adds (FIRST: stores) one slice's partials into the accumulators of the elements
/// this lane stored (rows g, g + 8 and columns 2t, 2t + 1 of each 16×8 tile). `q0` is the lane's
/// first element in the slice (row stride ld), `rows_left`, `cols_left` the rows and columns of C
/// from there (CHECK: a ragged tile; `pairs`: N is even). A batch of loads goes into registers
/// before any is added, so a batch costs one trip to L2, not one per element. Plain loads: the
/// acquire that found this slice last invalidated L1.
template <bool CHECK, bool FIRST, int MT, int NT>
__device__ __forceinline__ void add_slice(float (&acc)[MT][NT][4], float const* q0, long long ld,
                                          long long rows_left, long long cols_left, bool pairs) {
  // One batch per fragment row (NT pairs, at most 16 registers beside the accumulators).
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float2 v[NT];
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        int const dr = i * 16 + h * 8, dc = j * 8;
        float const* const w = q0 + dr * ld + dc;
        bool const in = !CHECK || (dr < rows_left && dc < cols_left);
        bool const two = !CHECK || dc + 1 < cols_left;
        v[j] = !in                          ? make_float2(0.0f, 0.0f)
               : !CHECK || (pairs && two) ? *reinterpret_cast<float2 const*>(w)
                                          : make_float2(w[0], two ? w[1] : 0.0f);
      }
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        acc[i][j][2 * h] = FIRST ? v[j].x : acc[i][j][2 * h] + v[j].x;
        acc[i][j][2 * h + 1] = FIRST ? v[j].y : acc[i][j][2 * h + 1] + v[j].y;
      }
    }
  }
}

}  // namespace mma_detail

namespace mma_detail {
/// Row stride in floats of the FP32 tile a block stages for the cluster reduction (CR = 1): 8
/// floats of padding put the 8 rows of an accumulator store's 16-lane phase on distinct banks
/// and keep every row 16-byte aligned for the 4-float loads of the sum.
/// The host's launch plan asks for the larger of the ring and this tile (MmaFamily::smem_bytes).
__host__ __device__ constexpr int reduce_stride(int BN) { return BN + 8; }
}  // namespace mma_detail

/// The whole kernel of one block; the __global__ wrappers below wait for the prior grid first.
template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK, int CR, int PREC,
          bool TA, bool TB, int ALIGN>
__device__ __forceinline__ void mma_gemm_block(GemmArgs const& args) {
  using namespace mma_detail;
  constexpr int kEB = elem_bytes(PREC);
  constexpr int kThreads = block_threads(BM, BN, WM, WN);
  constexpr int kKStep = PREC == 2 ? 8 : 16;  // k of one mma
  constexpr int kSteps = BK / kKStep;
  constexpr int kMT = WM / 16, kNT = WN / 8;  // mma tiles per warp
  constexpr int kSpread = PREC == 2 ? 2 : 1;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles hold whole 16×16 fragment pairs");
  static_assert(BK % kKStep == 0 && ST >= 2 && SK >= 1, "stage depth, ring and split-K");
  static_assert(CR == 0 || (SK > 1 && SK <= 8 && BM % SK == 0 && BN % 4 == 0),
                "a cluster of the SK slices (at most 8 blocks) splits the tile's rows evenly");

  // Shared tiles in global orientation: A is BM×BK (K-major) or BK×BM (TA); B is BK×BN
  // (N-major) or BN×BK (TB). tf32 MN-major tiles spread their XOR keys for 4-row LDS phases.
  using TileA = SwizzledTile<TA ? BK : BM, TA ? BM : BK, kEB, (TA && PREC == 2) ? kSpread : 1>;
  using TileB = SwizzledTile<TB ? BN : BK, TB ? BK : BN, kEB, (!TB && PREC == 2) ? kSpread : 1>;
  using LoadA = TileLoader<TileA, kThreads, kEB, ALIGN>;
  using LoadB = TileLoader<TileB, kThreads, kEB, ALIGN>;
  constexpr int kStageBytes = TileA::kBytes + TileB::kBytes;

  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned char* const A = static_cast<const unsigned char*>(args.A);
  const unsigned char* const B = static_cast<const unsigned char*>(args.B);

  long long m0, n0;
  tile_schedule::block_tile<BM, BN, SW>(args.M, args.N, m0, n0);
  long long kt_begin, kt_count;
  tile_schedule::block_k_slice<BK, SK>(args.K, kt_begin, kt_count);
  int const KT = static_cast<int>(kt_count);

  int const tid = static_cast<int>(threadIdx.x);
  int const warp = tid / kWarpSize, lane = tid % kWarpSize;
  int const wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;

  auto issue_stage = [&](int slot, long long kt) {
    unsigned char* const sa = smem + slot * kStageBytes;
    unsigned char* const sb = sa + TileA::kBytes;
    long long const k0 = (kt_begin + kt) * BK;
    if constexpr (TA) {
      LoadA::issue(sa, A, args.lda, args.K, args.M, k0, m0);
    } else {
      LoadA::issue(sa, A, args.lda, args.M, args.K, m0, k0);
    }
    if constexpr (TB) {
      LoadB::issue(sb, B, args.ldb, args.N, args.K, n0, k0);
    } else {
      LoadB::issue(sb, B, args.ldb, args.K, args.N, k0, n0);
    }
  };

  // Per-lane byte offsets of the tf32 scalar fragment reads (see load_frags), taken at row t.
  unsigned a_lane[2][2] = {{0u, 0u}, {0u, 0u}}, b_lane[4] = {0u, 0u, 0u, 0u};
  if constexpr (PREC == 2) {
    int const g = lane / 4, t = lane % 4;
    if constexpr (TA) {
      static_assert(TileA::kChunks % 8 == 0 && TileA::kRowsPerLine == 1, "8-chunk XOR groups");
#pragma unroll
      for (int p = 0; p < 2; ++p) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          a_lane[p][h] = TileA::chunk_offset(t, wm0 / 4 + 4 * p + 2 * h + g / 4) + (g % 4) * 4;
        }
      }
    }
    if constexpr (!TB) {
      static_assert(TileB::kChunks % 8 == 0 && TileB::kRowsPerLine == 1, "8-chunk XOR groups");
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        b_lane[p] = TileB::chunk_offset(t, wn0 / 4 + 2 * p + g / 4) + (g % 4) * 4;
      }
    }
  }

  // Fragments of one k step: A per 16-row tile, B per 8-column tile.
  struct Frags {
    unsigned a[kMT][4];
    unsigned b[kNT][2];
  };
  auto load_frags = [&](Frags& f, unsigned sa, unsigned sb, int ks) {
    if constexpr (!TA) {
      // K-major A: matrices (rows 0-7 | 8-15) × (chunk 0 | 1) of the k step.
      int const r = lane % 8 + ((lane / 8) % 2) * 8, c = ks * 2 + lane / 16;
#pragma unroll
      for (int i = 0; i < kMT; ++i) {
        ldmatrix_x4(f.a[i], sa + TileA::chunk_offset(wm0 + i * 16 + r, c));
      }
    } else if constexpr (PREC != 2) {
      // M-major A, transposed by ldmatrix: k rows (0-7 | 8-15) × m chunk (0 | 1).
      int const k = ks * 16 + lane % 8 + (lane / 16) * 8, c = (lane / 8) % 2;
#pragma unroll
      for (int i = 0; i < kMT; ++i) {
        ldmatrix_x4_trans(f.a[i], sa + TileA::chunk_offset(k, (wm0 + i * 16) / 8 + c));
      }
    } else {
      // M-major tf32 A, one LDS per element: (k, m) = (t | t+4, g | g+8) of each 16-row tile.
      // Row t+4+8·ks has row t's XOR key and whole groups of 8 chunks are untouched by it, so
      // only the key-dependent part (chunk bits 0..2: tile parity, +8 rows, g/4) is per lane.
#pragma unroll
      for (int i = 0; i < kMT; ++i) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          f.a[i][q] = lds32(sa + a_lane[i % 2][q % 2] +
                            ((ks * 8 + (q / 2) * 4) * TileA::kChunks + (i / 2) * 8) * 16);
        }
      }
    }
    if constexpr (TB) {
      // K-major B: n rows (0-7 | 8-15 → two n tiles) × chunk (0 | 1).
      int const r = lane % 8 + (lane / 16) * 8, c = ks * 2 + (lane / 8) % 2;
#pragma unroll
      for (int j = 0; j < kNT; j += 2) {
        unsigned r4[4];
        ldmatrix_x4(r4, sb + TileB::chunk_offset(wn0 + j * 8 + r, c));
        f.b[j][0] = r4[0];
        f.b[j][1] = r4[1];
        f.b[j + 1][0] = r4[2];
        f.b[j + 1][1] = r4[3];
      }
    } else if constexpr (PREC != 2) {
      // N-major B, transposed by ldmatrix: k rows (0-7 | 8-15) × n chunk (0 | 1).
      int const k = ks * 16 + lane % 8 + ((lane / 8) % 2) * 8, c = lane / 16;
#pragma unroll
      for (int j = 0; j < kNT; j += 2) {
        unsigned r4[4];
        ldmatrix_x4_trans(r4, sb + TileB::chunk_offset(k, (wn0 + j * 8) / 8 + c));
        f.b[j][0] = r4[0];
        f.b[j][1] = r4[1];
        f.b[j + 1][0] = r4[2];
        f.b[j + 1][1] = r4[3];
      }
    } else {
      // N-major tf32 B: (k, n) = (t | t+4, g) of each 8-column tile; as for A, the per-lane
      // part is chunk bits 0..2 (tile index mod 4, g/4).
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          f.b[j][q] = lds32(sb + b_lane[j % 4] +
                            ((ks * 8 + q * 4) * TileB::kChunks + (j / 4) * 8) * 16);
        }
      }
    }
  };

  float acc[kMT][kNT][4];
#pragma unroll
  for (int i = 0; i < kMT; ++i) {
#pragma unroll
    for (int j = 0; j < kNT; ++j) {
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.0f;
    }
  }

  // Ring of ST stages: ST-1 tiles in flight while one is consumed, one barrier per k-tile.
  // Blocks of 8 warps planned for one block per SM place that barrier before the tile's last
  // k step, so the next tile's first fragments load while that step's mma run. The others keep
  // it at the top of the tile: a second block on the SM covers the gap there, and the early
  // load spilled them (two-block kernels at 128 registers; 4-warp 256x64 and 64x256 tiles of
  // 64x64 warp tiles at 255, sm_90).
  constexpr bool kEarly = min_blocks(WM, WN, BK, PREC, ALIGN) == 1 && kThreads >= 256;
  static_assert(kSteps % 2 == 0, "fragment buffers alternate within each tile");
#pragma unroll
  for (int s = 0; s < ST - 1; ++s) {
    if (s < KT) issue_stage(s, s);
    cp_async_commit();
  }
  unsigned const smem_base = smem_addr(smem);
  // Waits for the next tile and makes it visible to every warp; also the point after which
  // every warp is done reading the tile before it.
  auto land = [&]() {
    cp_async_wait<ST - 2>();
    __syncthreads();
  };
  Frags frag[2];
  land();
  if constexpr (kEarly) {
    if (KT > 0) load_frags(frag[0], smem_base, smem_base + TileA::kBytes, 0);
  }
  int read = 0, write = ST - 1;
  for (int kt = 0; kt < KT; ++kt) {
    if constexpr (!kEarly) {
      if (kt > 0) land();
    }
    // The slot refilled here held tile kt-1, which every warp finished reading before the
    // last barrier.
    if (kt + ST - 1 < KT) issue_stage(write, kt + ST - 1);
    cp_async_commit();
    int const next = read + 1 == ST ? 0 : read + 1;
    unsigned const sa = smem_base + read * kStageBytes, sb = sa + TileA::kBytes;
    if constexpr (!kEarly) load_frags(frag[0], sa, sb, 0);
    // Fragments double-buffered in registers: step ks+1 loads while step ks multiplies.
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if (ks + 1 < kSteps) {
        load_frags(frag[(ks + 1) % 2], sa, sb, ks + 1);
      } else if constexpr (kEarly) {
        if (kt + 1 < KT) {
          land();
          unsigned const na = smem_base + next * kStageBytes;
          load_frags(frag[0], na, na + TileA::kBytes, 0);
        }
      }
#pragma unroll
      for (int i = 0; i < kMT; ++i) {
#pragma unroll
        for (int j = 0; j < kNT; ++j) mma<PREC>(acc[i][j], frag[ks % 2].a[i], frag[ks % 2].b[j]);
      }
    }
    read = next;
    write = write + 1 == ST ? 0 : write + 1;
  }
  cp_async_wait<0>();
  // As in simt: the next launch is let in at the epilogue, not beside the main loop.
  grid_dependency::allow_dependents();

  // Epilogue from the accumulator layout: lane (g, t) holds rows g and g+8, columns 2t, 2t+1
  // of each 16×8 tile.
  int const g = lane / 4, t = lane % 4;
  constexpr bool kPair = PREC == 2 ? ALIGN >= 8 : ALIGN >= 4;
  if constexpr (CR == 1) {
    // Every warp is done with the ring (cp_async_wait<0> above covers only this thread's
    // copies; other warps may still read their last fragments).
    __syncthreads();
    constexpr int LDR = reduce_stride(BN);
    float* const staged = reinterpret_cast<float*>(smem);
#pragma unroll
    for (int i = 0; i < kMT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int const r = wm0 + i * 16 + g + h * 8;
#pragma unroll
        for (int j = 0; j < kNT; ++j) {
          *reinterpret_cast<float2*>(staged + r * LDR + wn0 + j * 8 + 2 * t) =
              make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        }
      }
    }
    cluster::sync();  // every slice's tile is staged and visible to the cluster
    constexpr int BAND = BM / SK;  // rows this block sums
    unsigned const base = smem_addr(staged);
    long long const band0 = static_cast<long long>(blockIdx.z) * BAND;
#pragma unroll 1
    for (int e = tid * 4; e < BAND * BN; e += kThreads * 4) {
      int const r = static_cast<int>(band0) + e / BN, c = e % BN;
      long long const m = m0 + r, n = n0 + c;
      if (m >= args.M || n >= args.N) continue;
      unsigned const at = base + static_cast<unsigned>((r * LDR + c) * 4);
      // Every slice's four floats are loaded before any is added: one trip for all SK.
      float4 v[SK];
#pragma unroll
      for (int z = 0; z < SK; ++z) v[z] = cluster::load4(cluster::map(at, static_cast<unsigned>(z)));
      float4 sum = v[0];
#pragma unroll
      for (int z = 1; z < SK; ++z) {
        sum.x += v[z].x;
        sum.y += v[z].y;
        sum.z += v[z].z;
        sum.w += v[z].w;
      }
      write_c_pair<PREC, kPair>(args, m, n, sum.x, sum.y);
      write_c_pair<PREC, kPair>(args, m, n + 2, sum.z, sum.w);
    }
    cluster::sync();  // no block leaves while a peer may still read its tile
    return;
  }
  if constexpr (SK > 1) {
    // Partials: slice z is M×N floats at z·M·N. Pairs are 8-byte aligned when N is even.
    long long const slice_floats = args.M * args.N;
    float* const ws = static_cast<float*>(args.workspace);
    bool const ws_pair = (args.N % 2) == 0;
#pragma unroll
    for (int i = 0; i < kMT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        long long const m = m0 + wm0 + i * 16 + g + h * 8;
#pragma unroll
        for (int j = 0; j < kNT; ++j) {
          long long const n = n0 + wn0 + j * 8 + 2 * t;
          if (m >= args.M || n >= args.N) continue;
          float* const w = ws + blockIdx.z * slice_floats + m * args.N + n;
          float const v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
          if (ws_pair && n + 1 < args.N) {
            *reinterpret_cast<float2*>(w) = make_float2(v0, v1);
          } else {
            w[0] = v0;
            if (n + 1 < args.N) w[1] = v1;
          }
        }
      }
    }
    if constexpr (!split_k::last_slice_sums(SK)) return;  // mma_reduce sums the slices
    __syncthreads();  // every partial of the block is stored before thread 0 counts the slice
    bool const last = __syncthreads_or(
        threadIdx.x == 0 &&
        split_k::arrive(args.counters + static_cast<long long>(blockIdx.x), SK));
    if (!last) return;
    // The last slice: each thread sums the elements it stored itself, reading all SK slices
    // back (its own too) in slice order, so C does not depend on which slice came last.
    long long const r0 = m0 + wm0 + g, c0 = n0 + wn0 + 2 * t;
    float const* const q0 = ws + r0 * args.N + c0;
    long long const rows_left = args.M - r0, cols_left = args.N - c0;
    if (m0 + BM <= args.M && n0 + BN <= args.N && ws_pair) {
      add_slice<false, true>(acc, q0, args.N, rows_left, cols_left, true);
#pragma unroll 1
      for (int z = 1; z < SK; ++z) {
        add_slice<false, false>(acc, q0 + z * slice_floats, args.N, rows_left, cols_left, true);
      }
    } else {
      add_slice<true, true>(acc, q0, args.N, rows_left, cols_left, ws_pair);
#pragma unroll 1
      for (int z = 1; z < SK; ++z) {
        add_slice<true, false>(acc, q0 + z * slice_floats, args.N, rows_left, cols_left, ws_pair);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kMT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      long long const m = m0 + wm0 + i * 16 + g + h * 8;
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
        long long const n = n0 + wn0 + j * 8 + 2 * t;
        write_c_pair<PREC, kPair>(args, m, n, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
      }
    }
  }
}

/// The kernel without clusters (CR = 0).
template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK, int CR, int PREC,
          bool TA, bool TB, int ALIGN>
__global__ void __launch_bounds__(mma_detail::block_threads(BM, BN, WM, WN),
                                  mma_detail::min_blocks(WM, WN, BK, PREC, ALIGN))
    mma_gemm(GemmArgs args) {
  static_assert(CR == 0, "cluster-reduced split-K uses mma_gemm_cluster");
  grid_dependency::wait_for_prior_grids();
  mma_gemm_block<BM, BN, BK, WM, WN, ST, SW, SK, CR, PREC, TA, TB, ALIGN>(args);
}

#if !defined(GEMMTUNE_MMA_EMULATED) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
/// The kernel for CR = 1: the SK slices of a tile (grid z) form one cluster, declared statically
/// so a plain launch forms them. Clusters exist from sm_90; the CPU emulation runs blocks one
/// after another and has none.
template <int BM, int BN, int BK, int WM, int WN, int ST, int SW, int SK, int CR, int PREC,
          bool TA, bool TB, int ALIGN>
__global__ void __cluster_dims__(1, 1, SK)
    __launch_bounds__(mma_detail::block_threads(BM, BN, WM, WN),
                      mma_detail::min_blocks(WM, WN, BK, PREC, ALIGN)) mma_gemm_cluster(GemmArgs args) {
  static_assert(CR == 1, "split-K through workspace partials uses mma_gemm");
  grid_dependency::wait_for_prior_grids();
  mma_gemm_block<BM, BN, BK, WM, WN, ST, SW, SK, CR, PREC, TA, TB, ALIGN>(args);
}
#endif

/// C = alpha·Σ_z W[z] + beta·C over SLICES FP32 partial products W[z] (M×N each, packed) in
/// args.workspace, summed in slice order. One thread per element, grid-stride.
template <int SLICES, int PREC>
__global__ void __launch_bounds__(mma_detail::kReduceThreads) mma_reduce(GemmArgs args) {
  grid_dependency::wait_for_prior_grids();
  long long const total = args.M * args.N;
  const float* const ws = static_cast<const float*>(args.workspace);
  long long const stride = static_cast<long long>(gridDim.x) * mma_detail::kReduceThreads;
  for (long long e = static_cast<long long>(blockIdx.x) * mma_detail::kReduceThreads + threadIdx.x;
       e < total; e += stride) {
    float s = ws[e];
#pragma unroll
    for (int z = 1; z < SLICES; ++z) s += ws[e + z * total];
    long long const m = e / args.N, n = e % args.N;
    long long const i = m * args.ldc + n;
    float v = args.alpha * s;
    if (args.beta != 0.0f) v += args.beta * mma_detail::load_out<PREC>(args.C, i);
    mma_detail::store_out<PREC>(args.C, i, v);
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_MMA_MMA_CUH
