// The `wgmma` family (sm_90a): TMA loads with 128-byte swizzle into a ring of ST shared-memory
// stages, guarded by a full/empty mbarrier pair per stage; one producer warpgroup (one lane,
// picked by elect.sync, issues the copies) and CW consumer warpgroups that run wgmma.mma_async
// on the stages and write C with predicated stores (alpha, beta), or FP32 partials for split-K.
//
//   BM, BN   tile of C of one work unit; each consumer warpgroup owns WM = BM/CW rows (PE = 2:
//            WM = BM) (64 or 128: one or two m64 wgmma per k16 step) and all BN columns (one
//            wgmma of N = BN). Two consumer warpgroups on a 64-row tile (BM = 64, CW = 2, PE ≠ 2)
//            split it by columns instead: each owns all 64 rows and WN = BN/2 columns (a wgmma
//            of N = BN/2), so a one-m64 tile still has two warpgroups' wgmma in flight
//   ST       shared-memory stages
//   CW       consumer warpgroups (1 or 2); block = (CW + 1)·128 threads
//   CL       cluster size (1, 2 or 4): the CL blocks of a cluster compute adjacent tiles that
//            share one operand; each loads its own tile of the other and 1/CL of the shared
//            one, multicast to all (kernel wgmma_gemm_cluster; wgmma_gemm for CL = 1 has no
//            cluster attribute)
//   CA       cluster axis (CL > 1): 0 stacks the cluster's tiles along M, sharing B; 1 sets them
//            side by side along N, sharing A. Sharing the larger operand tile (A where BM > BN)
//            cuts the bytes a cluster reads from L2 the most (measured within 3% of CA = 0 so far).
//            2 splits K instead (CL = 2, CW = 2, PE = 0, SK = 1, EP = 0): both blocks of a pair
//            take the same tile, each half of its k blocks with its own loads (no multicast),
//            and hand half of their sums to each other through distributed shared memory
//            (hand_over): the consumer warpgroup w of rank w - 1 receives the peer's
//            warpgroup w's accumulators, adds them and stores those rows or columns of C.
//            Against unclustered tiles half as large that fill as many SMs, a block reads a third
//            fewer operand bytes per multiply-add (128×128: 32 KB a k block for twice a 128×64
//            tile's work and 24 KB), and the sum never leaves the pair (split-K's FP32 partials
//            go through global memory). Measured: faster where M is 64–256 and K deep, not on
//            squares, whose unclustered tiles the L2 serves with more merged requests
//   TU       block-scaled FP8 with two consumer warpgroups on one tile (CW = 2, PE ≠ 2): 1 makes
//            them take turns issuing each k block's wgmma (named barriers hand the turn over),
//            meant to overlap one's promotion on the CUDA cores with the other's wgmma (measured
//            slower than free issue on most configs; the search leaves it out)
//   PL       clustered launches (CL > 1): the hardware places the clusters of a launch round
//            robin over the GPCs (on an H100, clusters c and c + 8 share one), so in launch
//            order neighbouring clusters sit on different GPCs and their loads of one operand
//            reach L2 as separate requests. PL = 8 hands the clusters of one column of that
//            deal, c, c + 8, ..., consecutive work units (placed_unit), neighbouring tiles that
//            share A rows or B columns, whose requests the GPC can merge. 1 keeps launch order
//            (plain launches already put 8 consecutive blocks on one GPC)
//   ML       multicast clusters (CL > 1, CA ≠ 2): who issues the shared operand's pieces. 0: each
//            block issues 1/CL of them, each multicast to every block, so every block's stage
//            waits on every producer; 1: the block of rank 0 issues all of them, so its stages
//            wait on its own producer only (the layout DeepGEMM uses). With ML = 1 only rank 0
//            refills a stage in its peers, so only its empty barriers count the whole cluster's
//            consumers; a peer's count its own. Measured 2-6% faster on clusters of one unit each
//            at 64-256 rows and 1024³ (unchanged at deep K), 2-3% slower on a persistent 2048³
//            pair (bench/results/2026-12-06-h100-multicast-lead.md)
//   SW       1: the kernel computes Cᵀ = Bᵀ·Aᵀ (swapped_args: M and N, A and B trade places,
//            and the layout flags with them: TA = the caller's !TB, TB = !TA), so the caller's N
//            lies along the tiles' rows and M along their columns, where wgmma's N steps of 16
//            (BN = 96, 208, ...) fit a short M far closer than BM's 64 or 128. Stores write
//            element (i, j) of the tile at C[j·ldc + i] (no pairs, no 16-byte path); split-K
//            partials stay in the swapped orientation, and the sums transpose as they store.
//            C stored from registers (EP = 0); 16-bit inputs read in place (no padded copies),
//            or tf32 and e4m3 (per-tensor or row-wise scales, which trade places too) in NT,
//            where both operands are K-major already (no K-major copies)
//   RP       row pitch, in bytes, at which 16-bit operands are read in place (16 or 128): the
//            plan's padded copy (padded_copy.cuh) moves the others first, so this kernel reads
//            them through the same descriptors and its code does not depend on RP. Rows 16 but
//            not 128 bytes apart put most 128-byte box rows across two lines, and TMA then
//            sends 4x the L2 requests: wgmma ran 1.3-2.2x slower at 1000 than 1024 columns on
//            an H100, where the vendor's kernels ran 1.15-1.2x
//            (bench/results/2026-12-07-h100-row-pitch.md)
//   LD       how a stage is filled: 0, TMA boxes (one elected lane issues them); 1, the
//            producer warpgroup's 128 threads with 16-byte cp.async into the same swizzled
//            layout (async_fill.cuh), each thread's copies arriving on the stage's full barrier
//            and the consumers fencing them over to the async proxy before wgmma reads them.
//            Meant for rows 16 but not 128 bytes apart, where a warp's copies touch each line
//            once and TMA splits every straddling box row (16-bit, CL = 1, SW = 0; rows still
//            16-byte aligned). Not yet measured
//   PE       0: one work unit per cluster; 1: persistent, each cluster walks units c, c + C,
//            ... (c = blockIdx.x / CL, C = gridDim.x / CL; the grid is sized to the SMs);
//            2: persistent ping-pong (CW = 2): the two consumer warpgroups take the block's
//            units in turn, each a whole BM×BN tile, so one's epilogue overlaps the other's
//            wgmma; their main loops run one after the other (named barriers hand the turn
//            over), which also keeps each within one phase of the full barriers it polls;
//            3: persistent stream-K: the C clusters share the k blocks of all units, laid end
//            to end, evenly (tile_schedule::stream_begin), so a grid of 1.5 waves of units
//            takes 1.5 units' time, not 2. A unit covered by one share is stored as usual; one
//            cut between shares has each share store FP32 partials as a split-K slice (slice =
//            its index among the unit's shares) and the last to finish sums them in share
//            order (SK = 1, EP = 0, at most 64 accumulators a thread, as for SK = 2)
//   GM       grouped rasterization: tiles are walked GM tile rows at a time, column by column
//            (common/tile_schedule.cuh)
//   EP       epilogue: 0 stores C from registers (16-byte stores after a quad exchange); E > 0
//            (16-bit C, SK = 1, BN a multiple of 64) stages it in shared memory with stmatrix,
//            E boxes of 64 columns × WM rows per consumer warpgroup, and one thread writes each
//            box to C with a TMA store, so the warpgroup starts its next tile's wgmma while the
//            stores drain (E < BN/64: the tile goes out box by box, E = 2 double-buffered, E = 1
//            each box waiting for the previous one to be read). Falls back to register stores
//            when beta ≠ 0. alpha = 1 skips the multiply in both epilogues.
//   SK       split-K slices; SK > 1 writes FP32 partials to the workspace. With SK = 2 the last
//            slice of a tile to finish sums them and writes C (common/split_k.cuh: one counter
//            per consumer warp of each tile, since a warp's rows are its own) when a thread
//            holds at most 64 accumulators; otherwise wgmma_reduce does
//   T        element type (wgmma_detail::ElementType): fp16, bf16, tf32, or FP8 (e4m3, or
//            e5m2 A with e4m3 B) per-tensor, row-wise or block-scaled (tf32: K-major only; wgmma_kmajor_copy first writes K-major
//            copies of operands stored MN-major into the workspace, and the descriptors read
//            those; FP8 likewise, moving bytes. FP8's C is bf16; e4m3 multiplies alpha by the
//            per-tensor scales *scale_a · *scale_b, e4m3 row-wise each accumulator by
//            scale_a[row]·scale_b[col] in registers before any store, so every store path and
//            split-K sum sees it done. Block-scaled: a stage is one 128-deep K block; its
//            products go to a second set of accumulators, and once complete the consumer adds
//            them times scale_a(row, kb)·scale_b(column / 128, kb) to the first in FP32 on the
//            CUDA cores, so the tensor cores' limited FP8 accumulation never spans more than
//            128 of K; the accumulators are doubled, which bounds BN)
//   TA, TB   A stored K×M (MN-major in shared memory), B stored N×K (K-major in shared memory)
//
// Any alignment (16-bit types): an operand whose base or row stride is not 16-byte aligned is
// first copied with padded rows into the workspace (wgmma_padded_copy; the host's descriptor
// reads that copy), and C stores fall back to pairs or single elements where its rows are not
// 16-byte (or 4-byte) aligned.
//
// Shared-memory layouts (the TMA box, or LD = 1's copies, write them; the wgmma descriptors read
// them):
//   K-major operand (A when !TA, B when TB): one box of BK elements (128 bytes) × rows; row r
//     at r·128 bytes, 16-byte chunks XOR-swizzled by r%8 (128B swizzle). Descriptor: SBO =
//     1024 (next 8-row group), LBO unused; a k step advances the start by its bytes in a row.
//   MN-major operand (A when TA, B when !TB): boxes of 64 MN elements (128 bytes) × BK k-rows,
//     box c at c·BK·128 bytes. Descriptor: LBO = BK·128 (next 64-wide MN chunk), SBO = 1024
//     (next 8 k-rows); a k16 step advances the start by 16·128 bytes.
// Every stage and operand tile starts on a 1024-byte boundary (the swizzle atom), so the
// descriptors' base offset is 0.
//   C staging (EP > 0): after the ring, consumer warpgroup w's E boxes of WM rows × 128 bytes
//     (64 columns of 16-bit C), 16-byte chunks XOR-swizzled by row%8 as the TMA store's 128B
//     swizzle expects; stmatrix writes 8 rows of one chunk column per matrix, which the
//     swizzle spreads over all 32 banks.
#ifndef GEMMTUNE_WGMMA_WGMMA_CUH
#define GEMMTUNE_WGMMA_WGMMA_CUH

#include "common/async_copy.cuh"
#include "common/cluster.cuh"
#include "common/gemm_args.cuh"
#include "common/global_store.cuh"
#include "common/grid_dependency.cuh"
#include "common/mbarrier.cuh"
#include "common/named_barrier.cuh"
#include "common/split_k.cuh"
#include "common/stmatrix.cuh"
#include "common/tile_schedule.cuh"
#include "common/tma.cuh"
#include "wgmma/async_fill.cuh"
#include "wgmma/block_scales.cuh"
#include "wgmma/kmajor_copy.cuh"
#include "wgmma/padded_copy.cuh"
#include "wgmma/wgmma_instructions.cuh"

namespace gemmtune {
namespace wgmma_detail {

constexpr int kWarpgroup = 128;
constexpr int kReduceThreads = 256;
constexpr int kSwizzleRow = 128;   // bytes of one swizzled row = one TMA box row
constexpr int kSwizzleAtom = 1024; // 8 rows of 128 bytes
constexpr int kMnChunk = 64;       // 16-bit elements of an MN-major box row
/// PL > 1 without a persistent grid: clusters are dealt in runs of this many (a wave of pairs
/// on 132 SMs is 66), eight to a GPC's column at PL = 8.
constexpr long long kDealtClusters = 64;
/// setmaxnreg targets with two consumer warpgroups. The block starts with 168 registers per
/// thread (65536 / 384, rounded down to 8) and setmaxnreg.inc waits until the block's own pool
/// has the registers, so the targets must fit that pool exactly or it never returns:
/// 128·56 + 256·224 = 64512 = 384·168. (40 for the producer made its loop spill with clusters.)
constexpr int kProducerRegs = 56;
constexpr int kConsumerRegs = 224;
static_assert(kProducerRegs + 2 * kConsumerRegs <= 3 * 168, "setmaxnreg beyond the block's pool");

__host__ __device__ constexpr int elem_bytes(int T) { return T == kTF32 ? 4 : is_fp8(T) ? 1 : 2; }
/// K depth of one stage: one 128-byte swizzle row of K-major data.
__host__ __device__ constexpr int block_k(int T) { return kSwizzleRow / elem_bytes(T); }
/// K of one wgmma: 16 for 16-bit inputs, 8 for tf32, 32 for FP8.
__host__ __device__ constexpr int mma_k(int T) { return T == kTF32 ? 8 : is_fp8(T) ? 32 : 16; }
/// The storage type of C (the epilogue's element type): bf16 for FP8 inputs, else T itself.
__host__ __device__ constexpr int out_type(int T) { return is_fp8(T) ? kBF16 : T; }
/// Whether T reads both operands K-major only (no transposed shared-memory layout).
__host__ __device__ constexpr bool kmajor_only(int T) { return T == kTF32 || is_fp8(T); }
__host__ __device__ constexpr int round_up(int a, int b) { return (a + b - 1) / b * b; }
/// Rows (K-major) or MN columns (MN-major, whole 64-wide boxes) of an operand tile of X rows.
__host__ __device__ constexpr int tile_extent(int X, bool mn_major) {
  return mn_major ? round_up(X, kMnChunk) : X;
}
/// Bytes of one stage of A (BM) or B (BN); a multiple of 1024.
__host__ __device__ constexpr int tile_bytes(int X, bool mn_major) {
  return tile_extent(X, mn_major) * kSwizzleRow;
}
/// Whether two consumer warpgroups split a 64-row tile by columns (BM = 64, CW = 2, PE ≠ 2).
__host__ __device__ constexpr bool splits_columns(int BM, int CW, int PE) {
  return BM == 64 && CW == 2 && PE != 2;
}
/// Rows of C one consumer warpgroup computes: BM/CW, or all BM in ping-pong (PE = 2) and where
/// the warpgroups split the columns.
__host__ __device__ constexpr int warpgroup_rows(int BM, int CW, int PE) {
  return PE == 2 || splits_columns(BM, CW, PE) ? BM : BM / CW;
}
/// Bytes of the C staging boxes of all consumer warpgroups (EP > 0).
__host__ __device__ constexpr int staging_bytes(int BM, int CW, int PE, int EP) {
  return CW * EP * warpgroup_rows(BM, CW, PE) * kSwizzleRow;
}
/// Whether the blocks of a cluster split one tile's K range (CA = 2) instead of sharing an
/// operand tile between adjacent tiles.
__host__ __device__ constexpr bool splits_k(int CL, int CA) { return CL > 1 && CA == 2; }
/// mbarriers after the ring's 2·ST: a K-split pair's two of the hand-over (hand_over).
__host__ __device__ constexpr int hand_over_barriers(int CL, int CA) {
  return splits_k(CL, CA) ? 2 : 0;
}
/// Dynamic shared memory of the main kernel: slack to align the base to 1024 bytes, the ring,
/// the C staging boxes, then 2·ST mbarriers and those of the hand-over.
__host__ __device__ constexpr int smem_bytes(int BM, int BN, int ST, int CW, int CL, int PE,
                                             int EP, int CA, bool TA, bool TB) {
  return kSwizzleAtom + ST * (tile_bytes(BM, TA) + tile_bytes(BN, !TB)) +
         staging_bytes(BM, CW, PE, EP) + (2 * ST + hand_over_barriers(CL, CA)) * 8;
}

__device__ __forceinline__ unsigned smem_addr(void const* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
/// Four floats at a 16-byte aligned address of the block's shared memory.
__device__ __forceinline__ float4 shared_load4(unsigned addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

/// Named barriers (common/named_barrier.cuh): kTurnBarrier + w is the turn of consumer
/// warpgroup w in ping-pong (a unit's main loop) or under TU = 1 (a k block's wgmma issue),
/// kStagingBarrier + w guards warpgroup w's C staging boxes, kHandOverBarrier meets both consumer
/// warpgroups once their wgmma are done with the ring (a K-split pair's hand-over).
constexpr int kTurnBarrier = 1;
constexpr int kStagingBarrier = 3;
constexpr int kHandOverBarrier = 5;
// ---- wgmma ------------------------------------------------------------------------------
/// Shared-memory matrix descriptors, in two words. The low word holds the start address >> 4
/// (bits 0–13) and LBO >> 4 (bits 16–29). The start address is the offset in the block's shared
/// memory: in a cluster, shared addresses also carry the block's rank from bit 24, which must
/// not reach LBO. Offsets lie below 2^18, so adding (bytes >> 4) to a low word moves its start
/// address without carrying into LBO while the offset stays inside shared memory: the main loop
/// steps descriptors by such additions.
__host__ __device__ constexpr unsigned desc_lo(unsigned addr, unsigned lbo) {
  return ((addr & 0x3FFFFu) >> 4) | ((lbo >> 4) << 16);
}
/// The descriptor whose low word is `lo`. The high word is the same for every descriptor here:
/// SBO = 1024 (one swizzle atom) and 128-byte swizzle (layout type 1 in bits 62–63).
__device__ __forceinline__ unsigned long long desc_of(unsigned lo) {
  constexpr unsigned kHigh = (kSwizzleAtom >> 4) | (1u << 30);
  return static_cast<unsigned long long>(lo) | (static_cast<unsigned long long>(kHigh) << 32);
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving accesses of the accumulators across the asynchronous
/// wgmma boundaries (they are read and written by the tensor cores between issue and wait).
template <int R>
__device__ __forceinline__ void fence_regs(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- epilogue conversions (no fp16/bf16 headers: plain bit patterns) ----------------------
template <int T>
__device__ __forceinline__ float load_elem(void const* C, long long i) {
  if constexpr (T == kTF32) {
    return static_cast<float const*>(C)[i];
  } else {
    unsigned short const h = static_cast<unsigned short const*>(C)[i];
    if constexpr (T == kBF16) {
      return __uint_as_float(static_cast<unsigned>(h) << 16);
    } else {
      float f;
      asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
      return f;
    }
  }
}
template <int T>
__device__ __forceinline__ void store_elem(void* C, long long i, float v) {
  if constexpr (T == kTF32) {
    static_cast<float*>(C)[i] = v;
  } else {
    unsigned short h;
    if constexpr (T == kBF16) {
      asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    } else {
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    }
    static_cast<unsigned short*>(C)[i] = h;
  }
}
/// Two 16-bit elements in one word, v0 in the lower half (the lower address).
template <int T>
__device__ __forceinline__ unsigned pack2(float v0, float v1) {
  unsigned u;
  // cvt packs its first source into the upper half.
  if constexpr (T == kBF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(v1), "f"(v0));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(v1), "f"(v0));
  }
  return u;
}
/// alpha·v, or v itself when the caller knows alpha = 1 (SCALE = false): the epilogues are
/// instantiated both ways and pick one per launch, which drops one multiply per element.
template <bool SCALE>
__device__ __forceinline__ float scaled(float alpha, float v) {
  return SCALE ? alpha * v : v;
}
/// The epilogue's view of the arguments: for FP8 inputs alpha also carries the per-tensor
/// scales (read once per thread), so every store path multiplies by one factor as before.
template <int T>
__device__ __forceinline__ GemmArgs epilogue_args(GemmArgs const& args) {
  GemmArgs e = args;
  if constexpr (scaling(T) == kE4M3) e.alpha = args.alpha * __ldg(args.scale_a) * __ldg(args.scale_b);
  return e;
}

/// Row-wise FP8: each accumulator times scale_a[row]·scale_b[col] (d's layout as in
/// wgmma_instructions.cuh: d[mi][4g + 2h + e] is row mbase + 64·mi + 8·h, column
/// nbase + 8·g + e). Scales outside C count as 0; those elements are never stored.
template <int MI, int ACC>
__device__ __forceinline__ void scale_rows_cols(GemmArgs const& args, float (&d)[MI][ACC],
                                                long long mbase, long long nbase) {
  long long const M = args.M, N = args.N;
  // The row scales (2·MI) stay in registers; the column scales are read a pair at a time, so
  // the scaling needs a handful of registers beside the accumulators at any BN.
  float sa[MI][2];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      long long const row = mbase + 64 * mi + 8 * h;
      sa[mi][h] = row < M ? __ldg(args.scale_a + row) : 0.f;
    }
  }
  // FP8's N is a multiple of 8 (whole 16-byte rows of bf16 C) and the lane's columns are an
  // even pair: one 8-byte load covers both, inside C or not at all.
  float2 const* const sbp = reinterpret_cast<float2 const*>(args.scale_b + nbase);
  // Columns of C from the lane's first one, as 32 bits (the accumulators leave few registers).
  int const cols = N - nbase < 8 * ACC ? static_cast<int>(N - nbase) : 8 * ACC;
#pragma unroll
  for (int g = 0; g < ACC / 4; ++g) {
    float2 const sb = 8 * g < cols ? __ldg(sbp + 4 * g) : make_float2(0.f, 0.f);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        d[mi][4 * g + 2 * h] *= sa[mi][h] * sb.x;
        d[mi][4 * g + 2 * h + 1] *= sa[mi][h] * sb.y;
      }
    }
    // One column pair at a time: loads hoisted ahead of the multiplies would hold registers
    // the accumulators need (the widest tiles spilled).
    asm volatile("" ::: "memory");
  }
}

/// Stores columns i and i + 1 with one access (i even, the row start aligned to 16 bytes).
template <int T>
__device__ __forceinline__ void store_pair(void* C, long long i, float v0, float v1) {
  if constexpr (T == kTF32) {
    *reinterpret_cast<float2*>(static_cast<float*>(C) + i) = make_float2(v0, v1);
  } else {
    *reinterpret_cast<unsigned*>(static_cast<unsigned short*>(C) + i) = pack2<T>(v0, v1);
  }
}

/// Pieces of `span` rows or columns, out of `all`, that start inside the `remaining` ones left
/// of the matrix from the tile's origin (at least 1: a loaded tile never starts outside).
__device__ __forceinline__ int pieces_in(long long remaining, int span, int all) {
  long long const needed = (remaining + span - 1) / span;
  return needed < all ? static_cast<int>(needed) : all;
}

/// A consumer warp's release of a stage: one arrival on the empty barrier of every block that
/// may refill the stage here. Pieces spread over the cluster (LEAD = false): every block's, lane
/// r < CL of the warp signalling block r, so the CL arrivals leave as one instruction instead of
/// CL dependent ones from lane 0. One block issuing the shared pieces (LEAD): that block's
/// (rank 0) and this block's own.
template <int CL, bool LEAD = false>
__device__ __forceinline__ void release(unsigned empty, int lane, unsigned rank) {
  if constexpr (CL == 1) {
    if (lane == 0) mbarrier::arrive(empty);
  } else if constexpr (LEAD) {
    if (lane == 0) mbarrier::arrive_cluster(empty, 0u);
    if (lane == 1 && rank != 0) mbarrier::arrive(empty);
  } else {
    if (lane < CL) mbarrier::arrive_cluster(empty, static_cast<unsigned>(lane));
  }
}

/// Epilogue of one tile: d[mi][j] is row r + 64·mi + 8·((j/2)%2), column c + 8·(j/4) + j%2 of
/// the tile (r = warpgroup row + 16·warp + lane/4, c = 2·(lane%4)). Column pairs are stored
/// with one access; C gets alpha·d + beta·C (C is read only when beta ≠ 0), or, with split-K,
/// the slice's FP32 partials go to the workspace.
/// Fast epilogue of a 16-bit tile that lies wholly inside C, with beta = 0: the four lanes of a
/// quad hold two rows × 16 columns of every pair of 8-column groups as 16 packed words; two
/// exchanges (across column groups, then across rows) give each lane 8 consecutive columns of
/// one row, stored with one 16-byte access, so every 32-byte sector is written whole (the pair
/// stores of store_tile fill half of each sector per instruction). `row` is the lane's first
/// row in C (r of store_tile), `col0` the tile's first column.
template <int BN, bool SCALE, int T, int MI, int ACC>
__device__ __forceinline__ void store_tile_vec(GemmArgs const& args, float (&d)[MI][ACC],
                                               long long row, long long col0, int lane) {
  static_assert(BN % 16 == 0, "pairs of 8-column groups");
  float const alpha = args.alpha;
  unsigned const qg = lane & 1, qh = (lane >> 1) & 1;
  unsigned short* const C = static_cast<unsigned short*>(args.C);
  long long const ldc = args.ldc;
  // This lane stores row + 8·qh, columns col0 + 8·(g + qg) .. + 7.
  unsigned short* const out = C + (row + 8 * qh) * ldc + col0 + 8 * qg;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int g = 0; g < BN / 8; g += 2) {
      // w[h][gg]: row h (+8), column group g + gg, this lane's column pair.
      unsigned w[2][2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int gg = 0; gg < 2; ++gg) {
          int const j = 4 * (g + gg) + 2 * h;
          w[h][gg] = pack2<T>(scaled<SCALE>(alpha, d[mi][j]), scaled<SCALE>(alpha, d[mi][j + 1]));
        }
      }
      // x[h][sg]: row h, column group g + qg, from the quad lane whose bit 0 is sg.
      unsigned x[2][2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        unsigned const keep = qg ? w[h][1] : w[h][0];
        unsigned const send = qg ? w[h][0] : w[h][1];
        unsigned const got = __shfl_xor_sync(0xffffffffu, send, 1);
        x[h][0] = qg ? got : keep;
        x[h][1] = qg ? keep : got;
      }
      // y[sh][sg]: row qh, column group g + qg, from quad lane 2·sh + sg (columns 2·(2sh+sg)).
      unsigned y[2][2];
#pragma unroll
      for (int sg = 0; sg < 2; ++sg) {
        unsigned const keep = qh ? x[1][sg] : x[0][sg];
        unsigned const send = qh ? x[0][sg] : x[1][sg];
        unsigned const got = __shfl_xor_sync(0xffffffffu, send, 2);
        y[0][sg] = qh ? got : keep;
        y[1][sg] = qh ? keep : got;
      }
      global_store::v4(out + mi * 64 * ldc + 8 * g, y[0][0], y[0][1], y[1][0], y[1][1]);
    }
  }
}

/// Whether every row of C starts `bytes`-aligned: the pointer and the row stride (uniform over
/// the launch). An odd N (16-bit C) or an offset pointer leaves rows 2-byte aligned only, and
/// the wider stores of the epilogue would fault there.
template <int T>
__device__ __forceinline__ bool c_rows_aligned(GemmArgs const& args, int bytes) {
  return reinterpret_cast<unsigned long long>(args.C) % bytes == 0 &&
         args.ldc * elem_bytes(out_type(T)) % bytes == 0;
}

/// TRANS (SW = 1): `args` is the swapped problem, and element (row, col) of it is C[col·ldc +
/// row]; neighbouring columns are a row of C apart, so every element is stored on its own.
template <int BM, int BN, int SK, int T, int MI, int ACC, bool TRANS = false>
__device__ __forceinline__ void store_tile(GemmArgs const& args, float (&d)[MI][ACC],
                                           long long tm, long long tn, int slice, int r, int c,
                                           int wcol) {
  long long const M = args.M, N = args.N;
  if constexpr (SK == 1 && T != kTF32 && !TRANS) {
    // Uniform over the block: every lane of a warp takes the same path (the exchange needs all).
    if (args.beta == 0.f && (tm + 1) * BM <= M && (tn + 1) * BN <= N &&
        c_rows_aligned<T>(args, 16)) {
      if (args.alpha == 1.f) {
        store_tile_vec<2 * ACC, false, T, MI, ACC>(args, d, tm * BM + r, tn * BN + wcol, c / 2);
      } else {
        store_tile_vec<2 * ACC, true, T, MI, ACC>(args, d, tm * BM + r, tn * BN + wcol, c / 2);
      }
      return;
    }
  }
  long long const mbase = tm * BM + r, nbase = tn * BN + wcol + c;
  float const alpha = args.alpha, beta = args.beta;
  // Columns are even, so a pair is one aligned access wherever rows start on a pair boundary.
  bool const pairs = SK > 1 || (!TRANS && c_rows_aligned<T>(args, 2 * elem_bytes(out_type(T))));
  long long const next_col = TRANS ? args.ldc : 1;  // from element (row, col) to (row, col + 1)
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int j = 0; j < ACC; j += 2) {
      long long const row = mbase + mi * 64 + 8 * ((j / 2) % 2);
      long long const col = nbase + 8 * (j / 4);
      if (row >= M || col >= N) continue;
      float v0 = d[mi][j], v1 = d[mi][j + 1];
      bool const in_c = col + 1 < N;
      bool const pair = in_c && pairs;
      if constexpr (SK > 1) {
        // Partials: rows of round_up(N, 4) floats per slice, so pairs stay 8-byte aligned.
        long long const ldw = (N + 3) / 4 * 4;
        float* const w =
            static_cast<float*>(args.workspace) + slice * M * ldw + row * ldw + col;
        if (pair) {
          *reinterpret_cast<float2*>(w) = make_float2(v0, v1);
        } else {
          *w = v0;
        }
      } else {
        long long const i = TRANS ? col * args.ldc + row : row * args.ldc + col;
        v0 *= alpha;
        v1 *= alpha;
        if (beta != 0.f) {
          v0 += beta * load_elem<T>(args.C, i);
          if (in_c) v1 += beta * load_elem<T>(args.C, i + next_col);
        }
        if (pair) {
          store_pair<T>(args.C, i, v0, v1);
        } else {
          store_elem<T>(args.C, i, v0);
          if (in_c) store_elem<T>(args.C, i + next_col, v1);
        }
      }
    }
  }
}

/// How the EP staging boxes of a warpgroup are used for tiles of BN columns: rounds of G boxes
/// (written between two syncs and stored as one bulk group) in P buffers of G boxes. EP ≥ the
/// tile's boxes: the whole tile in one buffer (its stores have a whole main loop to read it
/// before the next tile needs it); EP = 2 below that: single boxes, double buffered, so a box is
/// written while the previous one is stored; EP = 1: one box at a time.
__host__ __device__ constexpr int staging_round_boxes(int BN, int EP) {
  return EP >= BN / kMnChunk ? BN / kMnChunk : (EP >= 2 ? EP / 2 : 1);
}
__host__ __device__ constexpr int staging_buffers(int BN, int EP) {
  return staging_round_boxes(BN, EP) == BN / kMnChunk ? 1 : EP / staging_round_boxes(BN, EP);
}

/// Epilogue of a 16-bit tile through warpgroup w's staging boxes (EP > 0, beta = 0), in rounds
/// of G boxes of 64 columns cycling through P buffers (staging_round_boxes). A buffer is reused
/// only once the bulk group that stored it P rounds ago has read it: thread 0 waits for that
/// before the sync that hands the buffer to the warpgroup, which for P ≥ 2 is the sync that
/// also publishes the previous round (one sync per round). Every warp writes its rows with
/// stmatrix (alpha applied unless SCALE = false), and after a proxy fence and a sync thread 0
/// issues one TMA store per box that starts inside C. The stores clip what lies outside C, and
/// nothing waits for them to finish: the warpgroup goes on to its next tile. `staging` is the
/// shared address of the warpgroup's first box, `row` its first row in C, `col0` the tile's first
/// column; `round` counts the warpgroup's rounds over all its tiles (it picks the buffer).
template <int BN, int EP, int WM, bool SCALE, int T, int MI, int ACC>
__device__ __forceinline__ void store_tile_tma(GemmArgs const& args, TmaDescriptor const* map,
                                               float (&d)[MI][ACC], unsigned staging, int w,
                                               int t, long long row, long long col0,
                                               unsigned& round) {
  constexpr int BOXES = BN / kMnChunk;
  constexpr int BOX_BYTES = WM * kSwizzleRow;
  constexpr int G = staging_round_boxes(BN, EP);
  constexpr int P = staging_buffers(BN, EP);
  constexpr int ROUNDS = BOXES / G;
  static_assert(BN % kMnChunk == 0, "whole boxes of 64 columns");
  static_assert(BOXES % G == 0 && P >= 1 && P * G <= EP, "rounds of whole boxes in EP boxes");
  int const warp = t / 32, lane = t % 32;
  float const alpha = args.alpha;
  // Lane l addresses row l%8 of matrix l/8; matrix q of a stmatrix holds column group g + q/2,
  // rows 8·(q%2) .. + 7 of the warp's 16.
  unsigned const matrix = static_cast<unsigned>(lane) >> 3;
  unsigned const lane_row = 16 * warp + 8 * (matrix & 1) + (lane & 7);
  unsigned const swizzle = lane & 7;  // the row's index within its 8-row swizzle atom
  // The buffer of this tile's first round was stored P rounds ago.
  if (t == 0) tma::bulk_wait_read<P - 1>();
  named_barrier::sync<kStagingBarrier, kWarpgroup>(w);
#pragma unroll
  for (int r = 0; r < ROUNDS; ++r) {
    unsigned const buffer = staging + (round % P) * (G * BOX_BYTES);
    unsigned const lane_addr = buffer + lane_row * kSwizzleRow;
#pragma unroll
    for (int bb = 0; bb < G; ++bb) {
      int const b = r * G + bb;
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int gp = 0; gp < 4; ++gp) {
          int const g = 8 * b + 2 * gp;  // column group of matrices 0 and 1 in the tile
          unsigned v[4];
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            int const j = 4 * (g + q / 2) + 2 * (q % 2);
            v[q] = pack2<T>(scaled<SCALE>(alpha, d[mi][j]), scaled<SCALE>(alpha, d[mi][j + 1]));
          }
          unsigned const chunk = 2 * gp + (matrix >> 1);
          stmatrix::x4(
              lane_addr + bb * BOX_BYTES + mi * 64 * kSwizzleRow + ((chunk ^ swizzle) << 4), v[0],
              v[1], v[2], v[3]);
        }
      }
    }
    tma::fence_proxy_async();
    // With two or more buffers, the next round's buffer (stored P - 1 rounds before this one)
    // is freed before the sync, so the sync serves both rounds.
    if constexpr (P >= 2) {
      if (r + 1 < ROUNDS && t == 0) tma::bulk_wait_read<P - 2>();
    }
    named_barrier::sync<kStagingBarrier, kWarpgroup>(w);
    if (t == 0) {
#pragma unroll
      for (int bb = 0; bb < G; ++bb) {
        long long const c = col0 + (r * G + bb) * kMnChunk;
        if (c < args.N) {
          tma::store(map, buffer + bb * BOX_BYTES, static_cast<int>(c), static_cast<int>(row));
        }
      }
      tma::bulk_commit();
    }
    ++round;
    if constexpr (P == 1) {
      if (r + 1 < ROUNDS) {
        if (t == 0) tma::bulk_wait_read<0>();
        named_barrier::sync<kStagingBarrier, kWarpgroup>(w);
      }
    }
  }
}

/// Adds (FIRST: stores) one slice's partials, as store_tile wrote them from d, into d. `q0` is
/// the lane's first element in the slice; `rows_left`, `cols_left` the rows and columns of C
/// from there (CHECK: a ragged tile). Loads go into a batch of registers before any is added, so
/// a batch costs one trip to L2, not one per element. Plain loads: the acquire that found this
/// slice last invalidated L1, so they see the other slices' stores.
template <bool CHECK, bool FIRST, int MI, int ACC>
__device__ __forceinline__ void add_slice(float (&d)[MI][ACC], float const* q0, long long ldw,
                                          long long rows_left, long long cols_left) {
  constexpr int PAIRS = ACC / 2;
  // The sums run at the end of the last slice (or stream-K share), every trip to L2 in series
  // on the critical path: with at most 64 accumulators (the sums' own limit) a whole m64 block
  // of the slice is one batch, another 64 registers; more accumulators take 8 pairs at a time
  // (one consumer warpgroup of 128×128 tf32 spilled with 16 more registers).
  constexpr int BATCH = MI * ACC <= 64 ? PAIRS : (PAIRS < 8 ? PAIRS : 8);
  static_assert(PAIRS % BATCH == 0, "whole batches");
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int b = 0; b < PAIRS; b += BATCH) {
      float2 v[BATCH];
#pragma unroll
      for (int k = 0; k < BATCH; ++k) {
        int const j = 2 * (b + k);
        int const dr = mi * 64 + 8 * ((j / 2) % 2), dc = 8 * (j / 4);
        float const* const q = q0 + dr * ldw + dc;
        bool const in = !CHECK || (dr < rows_left && dc < cols_left);
        bool const pair = !CHECK || dc + 1 < cols_left;
        v[k] = !in ? make_float2(0.f, 0.f)
                   : pair ? *reinterpret_cast<float2 const*>(q) : make_float2(*q, 0.f);
      }
#pragma unroll
      for (int k = 0; k < BATCH; ++k) {
        int const j = 2 * (b + k);
        d[mi][j] = FIRST ? v[k].x : d[mi][j] + v[k].x;
        d[mi][j + 1] = FIRST ? v[k].y : d[mi][j + 1] + v[k].y;
      }
    }
  }
}

/// Split-K, after this warp stored its slice's partials of tile (tm, tn) (store_tile): counts
/// the slice on the warp's counter and, in the slice that arrives last, replaces d with the sum
/// of every slice's partials and writes C. The sum reads all `slices` back (SK, or a stream-K
/// unit's shares), its own included, in slice order, so C does not depend on which slice
/// arrived last. `r`, `c` as for store_tile (TRANS too); the whole warp calls it.
template <int BM, int BN, int T, int MI, int ACC, bool TRANS>
__device__ __forceinline__ void finish_split_k(GemmArgs const& args, float (&d)[MI][ACC],
                                               long long tm, long long tn, int r, int c,
                                               int wcol, unsigned* counter, int lane,
                                               int slices) {
  __syncwarp();
  unsigned last = lane == 0 ? static_cast<unsigned>(split_k::arrive(counter, slices)) : 0u;
  last = __shfl_sync(0xffffffffu, last, 0);
  __syncwarp();
  if (!last) return;
  long long const M = args.M, N = args.N, ldw = (N + 3) / 4 * 4;
  float const* const w = static_cast<float const*>(args.workspace) + (tm * BM + r) * ldw +
                         tn * BN + wcol + c;
  long long const rows_left = M - (tm * BM + r), cols_left = N - (tn * BN + wcol + c);
  if ((tm + 1) * BM <= M && (tn + 1) * BN <= N) {  // uniform over the warp
    add_slice<false, true>(d, w, ldw, rows_left, cols_left);
#pragma unroll 1
    for (int z = 1; z < slices; ++z) {
      add_slice<false, false>(d, w + z * M * ldw, ldw, rows_left, cols_left);
    }
  } else {
    add_slice<true, true>(d, w, ldw, rows_left, cols_left);
#pragma unroll 1
    for (int z = 1; z < slices; ++z) {
      add_slice<true, false>(d, w + z * M * ldw, ldw, rows_left, cols_left);
    }
  }
  store_tile<BM, BN, 1, T, MI, ACC, TRANS>(args, d, tm, tn, 0, r, c, wcol);
}

/// Work unit u → split-K slice and tile (tm, tn): units run slice after slice, and a slice's
/// tiles in grouped order (tile_schedule::grouped), GM tile rows at a time.
template <int GM>
__device__ __forceinline__ void unit_coords(long long u, long long tiles_m, long long tiles_n,
                                            int& slice, long long& tm, long long& tn) {
  long long const tiles = tiles_m * tiles_n;
  slice = static_cast<int>(u / tiles);
  tile_schedule::grouped<GM>(u % tiles, tiles_m, tiles_n, tm, tn);
}

/// K blocks [begin, end) of a slice: ceil(KB/SK) each, the last one shorter (empty slices are
/// rejected on the host, but handled: they write zeros). Not tile_schedule::block_k_slice: the
/// slice comes from the work unit, not blockIdx.z, and the loops run to `end`; that helper's
/// form, fed the unit's slice, compiled to different code in every wgmma kernel.
template <int SK>
__device__ __forceinline__ void slice_range(long long kb_total, int slice, long long& begin,
                                            long long& end) {
  long long const per = (kb_total + SK - 1) / SK;
  begin = slice * per;
  end = begin + per < kb_total ? begin + per : kb_total;
  if (begin > end) begin = end;
}

/// Work unit u → split-K slice and this block's tile (tm, tn). A unit is a cluster's CL tiles,
/// stacked along M (CA = 0: units_m = ⌈tile rows / CL⌉) or side by side along N (CA = 1:
/// units_n = ⌈tile columns / CL⌉); the block of cluster rank `rank` takes the rank-th. Its tile
/// may lie past the matrix's last tile row or column: its loads are clamped and it stores
/// nothing. A K-split pair (CA = 2) takes one tile: the unit's, in both blocks.
template <int GM, int CL, int CA>
__device__ __forceinline__ void block_tile(long long u, long long units_m, long long units_n,
                                           unsigned rank, int& slice, long long& tm,
                                           long long& tn) {
  long long um, un;
  unit_coords<GM>(u, units_m, units_n, slice, um, un);
  bool const along_m = CL > 1 && CA == 0, along_n = CL > 1 && CA == 1;
  tm = along_m ? um * CL + rank : um;
  tn = along_n ? un * CL + rank : un;
}

/// A K-split pair's share of a unit's k blocks [begin, end): rank 0 the first ⌈n/2⌉, rank 1
/// the rest (CA = 2; other clusters keep the whole range).
template <int CL, int CA>
__device__ __forceinline__ void rank_k_range(unsigned rank, long long& begin, long long& end) {
  if constexpr (splits_k(CL, CA)) {
    long long const half = begin + (end - begin + 1) / 2;
    if (rank == 0) {
      end = half;
    } else {
      begin = half;
    }
  }
}

/// Clusters whose launch positions PL dealt onto one column (tile_schedule::dealt) walk
/// consecutive units: per persistent wave of `step` clusters (PE ≠ 0), or per run of
/// kDealtClusters clusters of a grid of one unit per cluster (PE = 0). Position w (cluster
/// index, plus whole waves) → work unit; PL ≤ 1 keeps launch order.
template <int PL, int PE>
__device__ __forceinline__ long long placed_unit(long long w, long long step, long long units) {
  if constexpr (PL <= 1) {
    return w;
  } else {
    long long const run = PE ? step : kDealtClusters;
    long long const base = w - w % run;
    long long const n = units - base < run ? units - base : run;
    return base + tile_schedule::dealt<PL>(w - base, n);
  }
}

/// Position w of a block's walk → its work unit u, split-K slice, tile (tm, tn), k blocks
/// [kb, kb_end) and the next position. PE ≤ 2: w counts clusters over whole waves (placed_unit)
/// and the next is w + step. Stream-K (PE = 3): w is a k block of all units laid end to end,
/// the walk ends at w_end (the end of this cluster's share), and the next position starts the
/// next unit.
template <int PE, int PL, int SK, int GM, int CL, int CA>
__device__ __forceinline__ void unit_at(long long w, long long step, long long w_end,
                                        long long units, long long units_m, long long units_n,
                                        long long kb_total, unsigned rank, long long& u,
                                        int& slice, long long& tm, long long& tn, long long& kb,
                                        long long& kb_end, long long& next) {
  if constexpr (PE == 3) {
    u = w / kb_total;
    long long const first = u * kb_total;
    kb = w - first;
    kb_end = w_end - first < kb_total ? w_end - first : kb_total;
    next = first + kb_end;
    block_tile<GM, CL, CA>(u, units_m, units_n, rank, slice, tm, tn);
  } else {
    u = placed_unit<PL, PE>(w, step, units);
    next = w + step;
    block_tile<GM, CL, CA>(u, units_m, units_n, rank, slice, tm, tn);
    slice_range<SK>(kb_total, slice, kb, kb_end);
    rank_k_range<CL, CA>(rank, kb, kb_end);
  }
}

/// Issues this block's TMA loads of one operand tile for a stage, piece p at dst + p·BYTES, p
/// from 0 to PIECES - 1. Its own operand (SHARED = false): the first `pieces`, the caller having
/// counted only those that start inside the matrix. The cluster's shared operand, each piece
/// multicast to every block of the cluster: pieces rank, rank + CL, ... (LEAD = false), or all of
/// them from rank 0 (LEAD); a piece that starts past the edge loads the tile's first one again
/// (into rows or columns of C that are never stored), so that every block receives every piece.
/// `mn0` is the tile's first row (A) or column (B), `extent` the matrix's M or N; K-major pieces
/// are boxes at (k, mn), MN-major ones at (mn, k). The pieces are unrolled with a predicate each:
/// a loop over a runtime count unrolled four ways held four copies' operands in uniform registers
/// at once, which tipped a block-scaled 128×160 tile's consumers into spilling.
template <bool SHARED, bool KMAJOR, int CL, int PIECES, int SPAN, int BYTES, bool LEAD = false>
__device__ __forceinline__ void load_pieces(unsigned dst, TmaDescriptor const* map, unsigned full,
                                            int pieces, int mn0, long long extent, int k0,
                                            unsigned rank) {
#pragma unroll
  for (int p = 0; p < PIECES; ++p) {
    bool issue;
    if constexpr (SHARED && LEAD) {
      issue = rank == 0;
    } else if constexpr (SHARED) {
      issue = p % CL == static_cast<int>(rank);
    } else {
      issue = p < pieces;
    }
    if (!issue) continue;
    int const start = mn0 + p * SPAN;
    int const mn = !SHARED || start < extent ? start : mn0;  // mn0 always lies inside
    int const c0 = KMAJOR ? k0 : mn;
    int const c1 = KMAJOR ? mn : k0;
    if constexpr (SHARED) {
      tma::load_multicast(dst + p * BYTES, map, full, c0, c1,
                          static_cast<unsigned short>((1u << CL) - 1));
    } else {
      tma::load(dst + p * BYTES, map, full, c0, c1);
    }
  }
}

}  // namespace wgmma_detail

namespace wgmma_detail {
/// Where a block's shared memory holds what: the ring (aligned to the 1024-byte swizzle atom),
/// the C staging boxes after it, then the full and empty barriers of each stage.
struct SharedLayout {
  unsigned ring;     ///< stage s at ring + s·STAGE_BYTES
  unsigned staging;  ///< EP > 0: the consumer warpgroups' C boxes
  unsigned full0;    ///< full[s] at full0 + 8s
  unsigned empty0;   ///< empty[s] at empty0 + 8s
  unsigned free;     ///< K-split pair: the peer's ring may take this block's hand-over
  unsigned ready;    ///< K-split pair: the peer's hand-over has landed in this block's ring
};
template <int BM, int BN, int ST, int CW, int PE, int EP, int T, bool TA, bool TB>
__device__ __forceinline__ SharedLayout shared_layout() {
  // 32-bit shared addresses throughout: a generic pointer would be converted again (S2UR of the
  // window base) wherever the compiler rematerialises it, which it did at the top of every k
  // block.
  extern __shared__ unsigned char smem_raw[];
  constexpr int STAGE_BYTES = tile_bytes(BM, TA) + tile_bytes(BN, !TB);
  SharedLayout l;
  l.ring = (smem_addr(smem_raw) + kSwizzleAtom - 1) & ~(kSwizzleAtom - 1u);
  l.staging = l.ring + ST * STAGE_BYTES;  // 1024-aligned, as the ring
  l.full0 = l.staging + staging_bytes(BM, CW, PE, EP);
  l.empty0 = l.full0 + 8 * ST;
  l.free = l.empty0 + 8 * ST;
  l.ready = l.free + 8;
  return l;
}

/// What a block sets up before it may read global memory: launched with programmatic stream
/// serialization, it may start while the previous kernel in the stream still runs, and this
/// then overlaps that kernel's tail instead of following it. Thread 0 fetches the TMA
/// descriptors ahead (kernel parameters, which no earlier kernel writes) and initialises the
/// barriers (full: the block's own producer; empty: every consumer warp that releases a stage, in
/// every block of a cluster that shares an operand, or with ML = 1 in every block for rank 0's
/// and in this block for a peer's; a K-split pair's hand-over barriers); then the block, or with
/// clusters the cluster, syncs, since a peer may arrive on or multicast into them.
template <int BM, int BN, int ST, int CW, int CL, int PE, int EP, int CA, int ML, int LD, int T,
          bool TA, bool TB>
__device__ __forceinline__ void set_up_block(TensorMaps const& descriptors) {
  constexpr int RELEASERS = PE == 2 ? 1 : CW;  // consumer warpgroups that release each stage
  // Blocks whose consumers release each stage: a K-split pair's blocks load their own stages;
  // with ML = 1 only rank 0 refills its peers' stages.
  int const releasing_blocks =
      splits_k(CL, CA) || (ML == 1 && CL > 1 && cluster::rank() != 0) ? 1 : CL;
  SharedLayout const l = shared_layout<BM, BN, ST, CW, PE, EP, T, TA, TB>();
  if (threadIdx.x == 0) {
    tma::prefetch(&descriptors.a);
    tma::prefetch(&descriptors.b);
    if constexpr (EP > 0) tma::prefetch(&descriptors.c);
    for (int s = 0; s < ST; ++s) {
      // TMA: the producer's one arrive.expect_tx; LD = 1: each fill thread's copies arriving.
      mbarrier::init(l.full0 + 8 * s, LD == 1 ? kFillThreads : 1);
      mbarrier::init(l.empty0 + 8 * s, 4 * RELEASERS * releasing_blocks);
    }
    if constexpr (splits_k(CL, CA)) {
      mbarrier::init(l.free, 1);            // the peer's first consumer thread
      mbarrier::init(l.ready, kWarpgroup);  // every thread of the peer's sending warpgroup
    }
    mbarrier::fence_init();
  }
  if constexpr (CL > 1) {
    cluster::sync_after_barrier_init();
  } else {
    __syncthreads();
  }
}

/// A K-split pair's exchange of sums (CA = 2), once both blocks' main loops are done: consumer
/// warpgroup w of the block of rank w - 1 receives (adds the peer's warpgroup w's accumulators
/// to its own, which hold the same elements of the tile), the other sends. Its ring is free
/// once both of its warpgroups' wgmma have completed (every stage its producer filled was
/// consumed): the block says so to the peer (`free`), whose sending warpgroup then writes its
/// accumulators into this block's ring with distributed shared-memory stores and arrives on
/// `ready` here. Each thread's floats go to float4 slots j·128 + t, so both the remote writes
/// and the receiver's reads of a warp cover 512 consecutive bytes. A block stays until both of
/// its barriers completed: the peer never touches its shared memory after that.
template <int MI, int ACC>
__device__ __forceinline__ void hand_over(float (&d)[MI][ACC], SharedLayout const& layout,
                                          bool receives, unsigned rank, int t) {
  static_assert(ACC % 4 == 0, "accumulators go over in float4s");
  unsigned const peer = rank ^ 1u;
  named_barrier::sync<kHandOverBarrier, 2 * kWarpgroup>(0);
  if (t == 0 && receives) {
    tma::fence_proxy_async();  // the ring's last reads were the async proxy's (wgmma)
    mbarrier::arrive_cluster<true>(layout.free, peer);
  }
  if (receives) {
    mbarrier::wait<true>(layout.ready, 0);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int j = 0; j < ACC; j += 4) {
        int const slot = (mi * ACC + j) / 4 * kWarpgroup + t;
        float4 const v = shared_load4(layout.ring + slot * 16);
        d[mi][j] += v.x;
        d[mi][j + 1] += v.y;
        d[mi][j + 2] += v.z;
        d[mi][j + 3] += v.w;
      }
    }
  } else {
    mbarrier::wait<true>(layout.free, 0);
    unsigned const there = cluster::map(layout.ring, peer);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int j = 0; j < ACC; j += 4) {
        int const slot = (mi * ACC + j) / 4 * kWarpgroup + t;
        cluster::store4(there + slot * 16,
                        make_float4(d[mi][j], d[mi][j + 1], d[mi][j + 2], d[mi][j + 3]));
      }
    }
    mbarrier::arrive_cluster<true>(layout.ready, peer);
  }
}
}  // namespace wgmma_detail

/// C = alpha·op(A)·op(B) + beta·C (SK = 1) or FP32 partials per slice into the workspace.
///
/// Synchronisation. `it` counts the k blocks a block walks over all its units, identically in
/// the producer and the consumers (and identically in every block of a cluster, which walk the
/// same units and k ranges); stage s = it % ST, and n = it / ST is the use of stage s.
///   full[s]  count 1: the block's own producer arrive.expect_tx(bytes of the whole stage, its
///            own tile of one operand plus every piece of the shared one, whichever block of
///            the cluster issues it); completes when those bytes have landed. Consumers wait for
///            parity n & 1. A peer's multicast bytes may land before the local expect_tx: the
///            phase still cannot complete without the local arrival, and they cannot belong to
///            use n + 1 (the peer issues those only after this block's consumers released use
///            n). With ML = 0 every block of a cluster issues at least one piece of the shared
///            operand into every block per stage, so use n of full[s] completes in a block only
///            after every producer of the cluster saw its empty[s] phase n - 1 end.
///   empty[s] count 4·CW·CL: one lane of every consumer warp of every block of the cluster
///            arrives (on its own block's barrier and on each peer's) once the wgmma reading
///            stage s have completed (wgmma.wait_group). A producer refills stage s in every
///            block it multicasts to, so it waits until all of them have released it: parity
///            (n & 1) ^ 1 (for n = 0 the fresh barrier's preceding phase counts as complete: no
///            wait). With ML = 1 only rank 0 multicasts: its barrier counts the cluster's
///            consumers, a peer's (count 4·CW) only its own, and rank 0's consumers arrive on
///            their own only. A consumer's arrival for use n + 1 on another block's barrier then
///            only ever goes to rank 0's, and it consumed use n + 1, which rank 0's producer
///            issued after that barrier's phase n ended: no arrival lands in an earlier phase.
///            (Were rank 0's consumers still to arrive on a peer's barrier, their use n + 1 would
///            not depend on that peer's producer, and so not on its phase n having ended.)
/// Clusters (CL > 1) also sync all threads once after the barriers are initialised (a peer may
/// arrive or multicast into them). A block's barriers must outlive its peers' last remote
/// arrivals: its producer warp, after its last copy, waits for every stage's last use to be
/// released (the wait a next refill would make), which takes every consumer of the cluster.
/// Every other thread exits when done, as without clusters. (A cluster barrier at the end held
/// every consumer at MEMBAR.ALL.GPU until its stores were acknowledged, then at the barrier until
/// the peer's were.) A peer's multicast into this block is consumed by this block's consumers
/// before they finish, so it cannot land after the block exits.
namespace wgmma_detail {
/// The problem an SW = 1 kernel computes, Cᵀ = Bᵀ·Aᵀ, over the caller's arguments: M and N, A
/// and B with their strides and scales trade places; C and ldc stay the caller's (the stores
/// transpose).
__device__ __forceinline__ GemmArgs swapped_args(GemmArgs const& args) {
  GemmArgs s = args;
  s.M = args.N;
  s.N = args.M;
  s.lda = args.ldb;
  s.ldb = args.lda;
  s.A = args.B;
  s.B = args.A;
  s.scale_a = args.scale_b;
  s.scale_b = args.scale_a;
  return s;
}

/// `args` is the problem the tiles cover: the caller's, or with SW = 1 the swapped one
/// (swapped_args), whose A is read through the caller's descriptor of B and B through A's.
template <int BM, int BN, int ST, int CW, int CL, int PE, int GM, int SK, int EP, int CA, int TU,
          int PL, int ML, int SW, int LD, int T, bool TA, bool TB>
__device__ __forceinline__ void gemm_block(GemmArgs const& caller, TensorMaps const& maps) {
  // A reference chosen between two lvalues: SW = 0 reads the kernel parameter in place and its
  // code stays what it was before SW existed (a function returning the reference did not).
  GemmArgs const swapped = SW == 1 ? swapped_args(caller) : GemmArgs{};
  GemmArgs const& args = SW == 1 ? swapped : caller;
  constexpr int BK = block_k(T);
  constexpr bool PINGPONG = PE == 2;
  constexpr int WM = warpgroup_rows(BM, CW, PE);  // rows per consumer warpgroup
  constexpr int MI = WM / 64;          // m64 wgmma per k step
  constexpr int KSTEPS = BK / mma_k(T);
  constexpr int A_BYTES = tile_bytes(BM, TA);
  constexpr int B_BYTES = tile_bytes(BN, !TB);
  constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  constexpr int kMnBoxBytes = BK * kSwizzleRow;  // one 64-wide MN-major box (16-bit: 8 KiB)
  // The operand the cluster shares (CA): B for tiles stacked along M, A side by side along N.
  constexpr bool SHARE_A = CL > 1 && CA == 1;
  constexpr bool SHARE_B = CL > 1 && CA == 0;
  // Or (CA = 2) the pair splits K and shares nothing: its stages are each block's own.
  constexpr bool K_SPLIT = splits_k(CL, CA);
  constexpr int RELEASING_BLOCKS = K_SPLIT ? 1 : CL;
  // One block (rank 0) issues every piece of the shared operand (ML = 1: a cluster that shares
  // one, asserted below).
  constexpr bool LEAD = ML == 1;
  // Operand tiles arrive in pieces (load_pieces): MN-major, one per 64-wide box; K-major, one
  // box of the tile's rows, or CL slabs of 1/CL of them where the cluster shares the operand.
  constexpr int A_PIECES = TA ? BM / kMnChunk : (SHARE_A ? CL : 1);
  constexpr int A_PIECE_SPAN = TA ? kMnChunk : BM / (SHARE_A ? CL : 1);  // rows of C per piece
  constexpr int A_PIECE_BYTES = TA ? kMnBoxBytes : A_PIECE_SPAN * kSwizzleRow;
  constexpr int B_PIECES = TB ? (SHARE_B ? CL : 1) : tile_extent(BN, true) / kMnChunk;
  constexpr int B_PIECE_SPAN = TB ? BN / (SHARE_B ? CL : 1) : kMnChunk;  // columns per piece
  constexpr int B_PIECE_BYTES = TB ? B_PIECE_SPAN * kSwizzleRow : kMnBoxBytes;
  // Two warpgroups on a 64-row tile split its columns: each runs wgmma of N = WN = BN/2.
  constexpr bool SPLIT_N = splits_columns(BM, CW, PE);
  constexpr int WN = SPLIT_N ? BN / 2 : BN;  // columns per consumer warpgroup
  constexpr int ACC = WN / 2;          // accumulators per thread per m64 block
  // The last slice sums at SK = 2 unless its warps hold more than 64 accumulators per thread:
  // one consumer warpgroup of 128×128 (128 accumulators) spilled with the sum's registers.
  // Must match WgmmaFamily's last_slice_sums(cfg).
  constexpr bool LAST_SLICE_SUMS = split_k::last_slice_sums(SK) && MI * ACC <= 64;
  static_assert(WM == 64 || WM == 128, "a consumer warpgroup owns 64 or 128 rows");
  static_assert(BN % 16 == 0 && BN >= 64 && BN <= 256, "wgmma N");
  static_assert(WN % 16 == 0 && WN >= 64, "a column half is a wgmma N the wrappers spell out");
  static_assert(!SPLIT_N || TB || WN % kMnChunk == 0,
                "MN-major B halves are whole 64-wide boxes (a descriptor starts at a box)");
  static_assert(!SPLIT_N || (EP == 0 && scaling(T) != kE4M3Blk),
                "column halves store from registers and take no block scales");
  static_assert(!kmajor_only(T) || (!TA && TB), "tf32 and FP8 wgmma read K-major shared operands only");
  // Swapped operands (SW): the transposing stores are the register epilogue's; both operands
  // must hold one element type (e5m2 A with e4m3 B would trade types), and block scales are
  // shaped per operand (1×128 for A, 128×128 for B).
  constexpr bool TRANS = SW == 1;
  static_assert(SW == 0 || (SW == 1 && EP == 0 &&
                            (T == kF16 || T == kBF16 || T == kTF32 || T == kE4M3 ||
                             T == kE4M3Row)),
                "swapped operands: one input type without block scales, C stored from registers");
  TmaDescriptor const* const map_a = TRANS ? &maps.b : &maps.a;
  TmaDescriptor const* const map_b = TRANS ? &maps.a : &maps.b;
  constexpr int OT = out_type(T);  // the storage type of C
  constexpr bool BLOCK_SCALED = scaling(T) == kE4M3Blk;
  // The consumer warpgroups take turns issuing each k block's wgmma (TU): the turn barriers of
  // ping-pong, which these configs do not use.
  constexpr bool TAKE_TURNS = BLOCK_SCALED && TU == 1 && CW == 2 && !PINGPONG;
  static_assert(TU == 0 || TU == 1, "free issue (0) or turns (1)");
  static_assert(!BLOCK_SCALED || BK == 128, "one stage is one 128-deep block of the K scales");
  static_assert(!BLOCK_SCALED || BN <= 128 + ((BN & -BN) < 128 ? (BN & -BN) : 128),
                "a tile's columns lie in at most two 128-wide N blocks of the B scales");
  static_assert(BM % kMnChunk == 0, "MN-major A is loaded in 64-wide boxes");
  static_assert(CL == 1 || CL == 2 || CL == 4, "clusters of 1, 2 or 4 blocks");
  static_assert(PE >= 0 && PE <= 3 && (!PINGPONG || CW == 2), "ping-pong needs two consumers");
  // Stream-K: a unit cut between shares is summed as SK = 2's slices are, by its last share.
  constexpr bool STREAM = PE == 3;
  static_assert(!STREAM || (SK == 1 && EP == 0 && MI * ACC <= 64),
                "stream-K stores whole units or FP32 partials from registers (SK = 1, EP = 0) "
                "and sums them in the last share (at most 64 accumulators a thread)");
  static_assert(CA == 0 || CA == 1 || CA == 2, "clusters along M (0), N (1) or K (2)");
  static_assert(LD == 0 || (LD == 1 && CL == 1 && SW == 0 && (T == kF16 || T == kBF16)),
                "the cp.async producer fills 16-bit tiles of single blocks in the caller's "
                "orientation (no multicast)");
  static_assert(PL >= 1 && (PL == 1 || CL > 1), "clusters are dealt onto GPCs; blocks are not");
  static_assert(ML == 0 || (ML == 1 && CL > 1 && !K_SPLIT),
                "one block multicasts the shared operand: clusters that share one");
  static_assert(!K_SPLIT || (CL == 2 && CW == 2 && PE == 0 && SK == 1 && EP == 0),
                "a K-split pair: two blocks, each with two consumer warpgroups (one of them "
                "receives the other's hand-over), one tile per pair, C stored from registers");
  static_assert(TA || A_PIECE_SPAN % 8 == 0, "K-major A slabs are whole 8-row swizzle atoms");
  static_assert(!TB || B_PIECE_SPAN % 8 == 0, "K-major B slabs are whole 8-row swizzle atoms");
  static_assert(A_PIECES * A_PIECE_BYTES == A_BYTES && B_PIECES * B_PIECE_BYTES == B_BYTES,
                "the pieces make up the operand tiles");
  static_assert((!SHARE_A || A_PIECES >= CL) && (!SHARE_B || B_PIECES >= CL),
                "every block of a cluster issues a piece of the shared operand per stage");
  static_assert(EP == 0 || (SK == 1 && OT != kTF32 && BN % kMnChunk == 0),
                "staged TMA stores write 16-bit C in whole 64-column boxes, without split-K");
  constexpr int STAGING_BYTES = staging_bytes(BM, CW, PE, EP);
  static_assert(smem_bytes(BM, BN, ST, CW, CL, PE, EP, CA, TA, TB) ==
                    kSwizzleAtom + ST * STAGE_BYTES + STAGING_BYTES +
                        (2 * ST + hand_over_barriers(CL, CA)) * 8,
                "the dynamic shared memory the host asks for holds the aligned ring, the C "
                "staging boxes and the barriers");

  // The barriers were initialised and the descriptors fetched by set_up_block.
  SharedLayout const layout = shared_layout<BM, BN, ST, CW, PE, EP, T, TA, TB>();
  unsigned const ring = layout.ring;
  unsigned const staging = layout.staging;
  unsigned const full0 = layout.full0;
  unsigned const empty0 = layout.empty0;

  unsigned const rank = CL > 1 ? cluster::rank() : 0;
  long long const tiles_m = (args.M + BM - 1) / BM;
  long long const tiles_n = (args.N + BN - 1) / BN;
  // Rows and columns of work units (block_tile): one of them groups the cluster's CL tiles.
  long long const units_m = SHARE_B ? (tiles_m + CL - 1) / CL : tiles_m;
  long long const units_n = SHARE_A ? (tiles_n + CL - 1) / CL : tiles_n;
  long long const units = units_m * units_n * SK;
  long long const kb_total = (args.K + BK - 1) / BK;
  long long const first_unit = blockIdx.x / CL;
  long long const unit_step = PE ? gridDim.x / CL : units;  // PE = 0: one unit per cluster
  // The walk's positions (unit_at): units, or (stream-K) the k blocks of this cluster's share.
  // No share is empty (fewer k blocks than clusters leave the last clusters without one), so
  // the shares that hold a unit are consecutive and each stores a slice of it.
  long long const stream_total = units * kb_total;
  long long const stream_shares = tile_schedule::stream_shares(stream_total, unit_step);
  long long walk_begin = first_unit, walk_end = units;
  if constexpr (STREAM) {
    tile_schedule::stream_share(first_unit, stream_total, unit_step, walk_begin, walk_end);
  }

  int const wg = threadIdx.x / kWarpgroup;
  if (wg == 0) {
    // ---------------- producer ----------------
    if constexpr (CW == 2) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kProducerRegs));
    // The whole of warp 0 walks the loop and polls the empty barriers; one lane, elected once
    // the warp has left the wait together, issues. Its other lanes must not wait elsewhere: a
    // warp split between a blocking barrier and the issuing lane delays every copy the cluster
    // waits for. With LD = 1 the whole warpgroup walks it, each thread copying its chunks.
    if (threadIdx.x < (LD == 1 ? kFillThreads : 32)) {
      int s = 0;
      unsigned phase = 0;  // parity of n = it / ST
      for (long long w = walk_begin, next; w < walk_end; w = next) {
        int slice;
        long long u, tm, tn, kb, kb_end;
        unit_at<PE, PL, SK, GM, CL, CA>(w, unit_step, walk_end, units, units_m, units_n,
                                        kb_total, rank, u, slice, tm, tn, kb, kb_end, next);
        // A block whose tile lies past the matrix (an odd count of tile rows or columns in a
        // cluster) loads the last tile's operand instead (its results are never stored) and
        // still issues its share of the shared one.
        if (tm >= tiles_m) tm = tiles_m - 1;
        if (tn >= tiles_n) tn = tiles_n - 1;
        int const m0 = static_cast<int>(tm * BM), n0 = static_cast<int>(tn * BN);
        // Pieces of a block's own operand that start past the matrix edge are not issued (their
        // rows or columns of C are never stored, so stale shared memory there is harmless) and
        // the barrier expects exactly the bytes of the pieces issued. Of the shared operand
        // every block issues its share of the pieces for every stage (load_pieces), so every
        // block receives all of them: a consumer can then never arrive for use n + 1 on a peer's
        // empty barrier before that barrier's phase n is over.
        int const a_pieces =
            SHARE_A ? A_PIECES : pieces_in(args.M - m0, A_PIECE_SPAN, A_PIECES);
        int const b_pieces =
            SHARE_B ? B_PIECES : pieces_in(args.N - n0, B_PIECE_SPAN, B_PIECES);
        unsigned const bytes = a_pieces * A_PIECE_BYTES + b_pieces * B_PIECE_BYTES;
        for (; kb < kb_end; ++kb) {
          int const k0 = static_cast<int>(kb * BK);
          unsigned const full = full0 + 8 * s;
          mbarrier::wait(empty0 + 8 * s, phase ^ 1);
          unsigned const a = ring + s * STAGE_BYTES;
          unsigned const b = a + A_BYTES;
          if constexpr (LD == 1) {
            fill_tile<!TA, tile_extent(BM, TA), elem_bytes(T)>(a, args.A, args.lda, m0, args.M, k0,
                                                               args.K);
            fill_tile<TB, tile_extent(BN, !TB), elem_bytes(T)>(b, args.B, args.ldb, n0, args.N, k0,
                                                               args.K);
            mbarrier::arrive_on_copies(full);
          } else if (tma::elect_one()) {
            mbarrier::arrive_expect_tx(full, bytes);
            load_pieces<SHARE_A, !TA, CL, A_PIECES, A_PIECE_SPAN, A_PIECE_BYTES, LEAD>(
                a, map_a, full, a_pieces, m0, args.M, k0, rank);
            load_pieces<SHARE_B, TB, CL, B_PIECES, B_PIECE_SPAN, B_PIECE_BYTES, LEAD>(
                b, map_b, full, b_pieces, n0, args.N, k0, rank);
          }
          if (++s == ST) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      if constexpr (CL > 1 && !K_SPLIT) {
        // Peers arrive on this block's empty barriers: the block stays until each stage's last
        // use is released (a stage never used passes at once, as for its first refill).
        for (int i = 0; i < ST; ++i) {
          mbarrier::wait(empty0 + 8 * s, phase ^ 1);
          if (++s == ST) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      if constexpr (LD == 1) async::wait_all();  // copies in flight outlive no thread
    }
  } else {
    // ---------------- consumers ----------------
    if constexpr (CW == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kConsumerRegs));
    int const t = threadIdx.x % kWarpgroup;
    int const warp = t / 32, lane = t % 32;
    int const row0 = PINGPONG || SPLIT_N ? 0 : (wg - 1) * WM;  // the warpgroup's first row
    int const wcol = SPLIT_N ? (wg - 1) * WN : 0;                // and first column in the tile
    // Descriptor strides: K-major SBO = 1024, LBO unused (16 by convention); MN-major LBO =
    // one 64-wide box (BK rows of 128 bytes), SBO = 1024.
    constexpr unsigned A_LBO = TA ? BK * kSwizzleRow : 16, B_LBO = !TB ? BK * kSwizzleRow : 16;
    // Start-address step per wgmma k: K-major moves along the row, MN-major down the k-rows.
    constexpr int A_KSTEP = TA ? mma_k(T) * kSwizzleRow : mma_k(T) * elem_bytes(T);
    constexpr int B_KSTEP = !TB ? mma_k(T) * kSwizzleRow : mma_k(T) * elem_bytes(T);
    // Bytes from one m64 block of A to the next: 64 K-major rows, or one 64-wide MN-major box
    // (both 64·128); the warpgroup's rows start row0/64 such blocks in.
    constexpr int MBLOCK = 64 * kSwizzleRow;
    // Descriptor low words of this warpgroup's A and of B in stage 0 (desc_lo); stage s adds
    // s·STAGE_BYTES >> 4, a k step and an m64 block their bytes >> 4, all compile-time steps.
    // Lane 0's copy: the compiler cannot tell that a value derived from threadIdx is the same in
    // every lane, and kept A's descriptors in per-thread registers, two R2UR before each wgmma.
    unsigned const a_lo =
        __shfl_sync(0xffffffffu, desc_lo(ring + row0 * kSwizzleRow, A_LBO), 0);
    // A column half of B starts WN K-major rows in, or WN/64 MN-major boxes; it depends on the
    // warpgroup, so it is lane 0's as for A. Without halves B's base is the same in every
    // thread and is left as it was (a shuffle there tipped a block-scaled tile into spilling).
    constexpr int B_HALF = TB ? WN * kSwizzleRow : WN / kMnChunk * kMnBoxBytes;
    unsigned const b_lo =
        SPLIT_N ? __shfl_sync(0xffffffffu, desc_lo(ring + A_BYTES + (wg - 1) * B_HALF, B_LBO), 0)
                : desc_lo(ring + A_BYTES, B_LBO);
    constexpr unsigned STAGE_LO = STAGE_BYTES >> 4;

    // alpha with the FP8 scales folded in; the other types use the kernel parameters directly.
    GemmArgs const scaled_args = epilogue_args<T>(args);
    GemmArgs const& eargs = scaling(T) == kE4M3 ? scaled_args : args;
    float d[MI][ACC];
    // Block scales: one K block's products, promoted into d once complete (unused otherwise,
    // so it costs no registers there).
    float kblock[MI][ACC];
    int s = 0;
    unsigned stage_lo = 0;  // s · STAGE_LO
    unsigned phase = 0;
    int turn = 0;  // ping-pong: index of the unit among this block's units
    unsigned staged_rounds = 0;  // EP > 0: staging rounds of this warpgroup (store_tile_tma)
    // Turns (TU): warpgroup 1 issues first. Each warpgroup waits on its own turn barrier before
    // a k block's wgmma and hands the turn to the other after issuing them, so each turn
    // barrier holds at most one arrival ahead. The second warpgroup's arrivals outnumber the
    // first's waits by this one; the first waits once more after its last unit.
    if constexpr (TAKE_TURNS) {
      if (wg == 2) named_barrier::arrive<kTurnBarrier, 2 * kWarpgroup>(0);
    }
    for (long long w = walk_begin, next; w < walk_end; w = next, ++turn) {
      int slice;
      long long u, tm, tn, kb, kb_end;
      unit_at<PE, PL, SK, GM, CL, CA>(w, unit_step, walk_end, units, units_m, units_n,
                                      kb_total, rank, u, slice, tm, tn, kb, kb_end, next);
      // A tile past the matrix (clusters) computes on clamped loads and stores nothing.
      bool const inside = tm < tiles_m && tn < tiles_n;
      bool const next_exists = next < walk_end;
      if constexpr (PINGPONG) {
        if ((turn & 1) != wg - 1) {
          // The other warpgroup's unit: step over its stages without touching them.
          long long const n = kb_end - kb;
          long long const pos = s + n;
          s = static_cast<int>(pos % ST);
          stage_lo = s * STAGE_LO;
          phase ^= static_cast<unsigned>((pos / ST) & 1);
          continue;
        }
        // Wait until the other warpgroup has polled every stage of the previous unit: the
        // full barriers of this unit are then at most one phase ahead of their parity.
        if (turn > 0) named_barrier::sync<kTurnBarrier, 2 * kWarpgroup>(wg - 1);
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) d[mi][j] = 0.f;
      }
      int prev = -1;  // stage whose wgmma may still be in flight, released after the next wait
      int const r = row0 + 16 * warp + lane / 4, c = 2 * (lane % 4);
      // Block scales: where the tile's B scales lie, once per unit.
      BlockScaleTile const scale_tile =
          block_scale_tile(args, (SHARE_A && tn >= tiles_n ? tiles_n - 1 : tn) * BN);
      // One k block: wait for its stage, issue its wgmma, and (block scales) promote its
      // products with `scales`, or (otherwise) release the previous stage.
      auto k_block = [&](BlockScales<MI> const& scales) {
        mbarrier::wait(full0 + 8 * s, phase);  // the warp leaves it together: wgmma.* are aligned
        // LD = 1: the copies were writes of the generic proxy; wgmma reads through the async one.
        if constexpr (LD == 1) tma::fence_proxy_async();
        if constexpr (TAKE_TURNS) named_barrier::sync<kTurnBarrier, 2 * kWarpgroup>(wg - 1);
        // Block scales: the stage's products go to kblock, the first k step overwriting it.
        float (&acc)[MI][ACC] = BLOCK_SCALED ? kblock : d;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) fence_regs(acc[mi]);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          unsigned long long const db = desc_of(b_lo + stage_lo + ((ks * B_KSTEP) >> 4));
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
            unsigned long long const da =
                desc_of(a_lo + stage_lo + ((mi * MBLOCK + ks * A_KSTEP) >> 4));
            Mma<WN>::template run<T, TA, !TB>(acc[mi], da, db, BLOCK_SCALED && ks == 0 ? 0 : 1);
          }
        }
        wgmma_commit();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) fence_regs(acc[mi]);
        if constexpr (TAKE_TURNS) named_barrier::arrive<kTurnBarrier, 2 * kWarpgroup>(2 - wg);
        if constexpr (BLOCK_SCALED) {
          // The block's products must be complete before they are scaled: no group stays in
          // flight. Issuing freely, both consumer warpgroups wait and promote at once: the
          // tensor pipe was active 51% of the time here against 78% with per-tensor scales
          // (ncu, H100; bench/results/2026-12-05-h100-fp8-blk-feed.md). Turns (TU) let the
          // other warpgroup's wgmma run through this one's wait and promotion.
          wgmma_wait<0>();
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) fence_regs(kblock[mi]);
          release<RELEASING_BLOCKS, LEAD>(empty0 + 8 * s, lane, rank);
          promote<MI, ACC>(d, kblock, scales, scale_tile.split);
        } else {
          // Keep this stage's group in flight; the previous group is complete after this wait.
          wgmma_wait<1>();
          if (prev >= 0) release<RELEASING_BLOCKS, LEAD>(empty0 + 8 * prev, lane, rank);
          prev = s;
        }
        stage_lo += STAGE_LO;
        if (++s == ST) {
          s = 0;
          stage_lo = 0;
          phase ^= 1;
        }
      };
      // A 32-bit trip count: a 64-bit induction variable costs four instructions a k block.
      int n = static_cast<int>(kb_end - kb);
      if constexpr (BLOCK_SCALED) {
        // A k block's scales are read one k block ahead, into the other of two sets, so a whole
        // k block (wait, wgmma, promotion) hides most of their latency. Read just before their
        // own k block, the loads landed next to the wgmma issue and the promotion's first
        // multiply waited on them (ncu: a long-scoreboard stall there, a third of the kernel's
        // samples). Read ahead into one set that is then copied, the copy waited in the wgmma
        // issue instead, so the loop takes two k blocks per trip and no set is ever copied.
        // (Three sets, two k blocks ahead, measured within the spread of two and spilled at
        // BN = 160.)
        int kbi = static_cast<int>(kb);
        long long const row = tm * BM + r;
        BlockScales<MI> even, odd;
        if (n > 0) load_block_scales<MI>(args, scale_tile, row, kbi, even);
        for (; n >= 2; n -= 2, kbi += 2) {
          load_block_scales<MI>(args, scale_tile, row, kbi + 1, odd);
          k_block(even);
          if (n > 2) load_block_scales<MI>(args, scale_tile, row, kbi + 2, even);
          k_block(odd);
        }
        if (n == 1) k_block(even);
      } else {
        BlockScales<MI> const unused{};
        for (; n > 0; --n) k_block(unused);
      }
      if constexpr (PINGPONG) {
        // Hand the main loop over while this unit's last wgmma still run.
        if (next_exists) named_barrier::arrive<kTurnBarrier, 2 * kWarpgroup>(2 - wg);
      }
      wgmma_wait<0>();
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) fence_regs(d[mi]);
      if (prev >= 0) release<RELEASING_BLOCKS, LEAD>(empty0 + 8 * prev, lane, rank);
      if constexpr (K_SPLIT) {
        // Warpgroup w's rows or columns of the tile are summed and stored by rank w - 1.
        bool const receives = wg - 1 == static_cast<int>(rank);
        hand_over<MI, ACC>(d, layout, receives, rank, t);
        if (!receives) continue;
      }
      if constexpr (scaling(T) == kE4M3Row) {
        scale_rows_cols<MI, ACC>(args, d, tm * BM + r, tn * BN + wcol + c);
      }
      if constexpr (EP > 0) {
        if (eargs.beta == 0.f) {  // uniform over the block
          if (inside) {
            unsigned const box0 = staging + (wg - 1) * EP * WM * kSwizzleRow;
            long long const row_c = tm * BM + row0, col_c = tn * BN;
            if (eargs.alpha == 1.f) {
              store_tile_tma<BN, EP, WM, false, OT, MI, ACC>(eargs, &maps.c, d, box0, wg - 1, t,
                                                             row_c, col_c, staged_rounds);
            } else {
              store_tile_tma<BN, EP, WM, true, OT, MI, ACC>(eargs, &maps.c, d, box0, wg - 1, t,
                                                            row_c, col_c, staged_rounds);
            }
          }
          continue;
        }
      }
      constexpr int WARPS = PINGPONG ? 4 : 4 * CW;  // consumer warps of one tile
      int const tile_warp = PINGPONG ? warp : (wg - 1) * 4 + warp;
      if constexpr (STREAM) {
        // The shares that hold the unit's first and last k blocks: one, or a cut unit whose
        // shares each store a slice of partials (this one's index among them).
        long long const unit_first = u * kb_total;
        long long const share0 =
            tile_schedule::stream_owner(unit_first, stream_total, stream_shares);
        long long const shares = tile_schedule::stream_owner(unit_first + kb_total - 1,
                                                             stream_total, stream_shares) -
                                 share0 + 1;
        if (shares == 1) {
          store_tile<BM, BN, 1, OT, MI, ACC, TRANS>(eargs, d, tm, tn, 0, r, c, wcol);
        } else {
          int const share = static_cast<int>(first_unit - share0);
          store_tile<BM, BN, 2, OT, MI, ACC, TRANS>(eargs, d, tm, tn, share, r, c, wcol);
          if (inside) {
            unsigned* const counter = args.counters + (tm * tiles_n + tn) * WARPS + tile_warp;
            finish_split_k<BM, BN, OT, MI, ACC, TRANS>(eargs, d, tm, tn, r, c, wcol, counter,
                                                       lane, static_cast<int>(shares));
          }
        }
        continue;
      }
      store_tile<BM, BN, SK, OT, MI, ACC, TRANS>(eargs, d, tm, tn, slice, r, c, wcol);
      if constexpr (LAST_SLICE_SUMS) {
        // A tile past the matrix (clusters) stores nothing and counts nothing, in every slice.
        if (inside) {
          unsigned* const counter = args.counters + (tm * tiles_n + tn) * WARPS + tile_warp;
          finish_split_k<BM, BN, OT, MI, ACC, TRANS>(eargs, d, tm, tn, r, c, wcol, counter,
                                                     lane, SK);
        }
      }
    }
    // Turns: the second warpgroup's last hand-over (or, without units, its first) is still
    // pending on the first's barrier.
    if constexpr (TAKE_TURNS) {
      if (wg == 1) named_barrier::sync<kTurnBarrier, 2 * kWarpgroup>(0);
    }
    // The block's shared memory must outlive the TMA stores that read the staging boxes.
    if constexpr (EP > 0) {
      if (t == 0) tma::bulk_wait_all();
    }
  }
}
}  // namespace wgmma_detail

/// wgmma and setmaxnreg exist only on the arch-specific target (sm_90a). A build that also makes
/// a plain compute_90 pass (nvcc's -arch=sm_90a does) gets a body that traps there, so the file
/// still compiles; the sm_90a code is the one a Hopper GPU runs.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_ARCH_SPECIFIC(call) call
#else
#define WGMMA_ARCH_SPECIFIC(call) __trap()
#endif

/// The kernel without clusters (CL = 1); it carries no cluster attribute at all.
template <int BM, int BN, int ST, int CW, int CL, int PE, int GM, int SK, int EP, int CA, int TU,
          int PL, int ML, int SW, int RP, int LD, int T, bool TA, bool TB>
__global__ void __launch_bounds__((CW + 1) * wgmma_detail::kWarpgroup, 1)
    wgmma_gemm(GemmArgs const args, const __grid_constant__ TensorMaps maps) {
  static_assert(CL == 1, "clustered configs use wgmma_gemm_cluster");
  static_assert(RP == 16 || RP == 128, "operands read in place at 16- or 128-byte row pitches");
  WGMMA_ARCH_SPECIFIC(
      (wgmma_detail::set_up_block<BM, BN, ST, CW, CL, PE, EP, CA, ML, LD, T, TA, TB>(maps)));
  grid_dependency::enter();
  WGMMA_ARCH_SPECIFIC(
      (wgmma_detail::gemm_block<BM, BN, ST, CW, CL, PE, GM, SK, EP, CA, TU, PL, ML, SW, LD, T, TA,
                                TB>(args, maps)));
}

/// The kernel for clusters of CL blocks along x, declared statically so a plain launch forms
/// them (the grid is a multiple of CL).
template <int BM, int BN, int ST, int CW, int CL, int PE, int GM, int SK, int EP, int CA, int TU,
          int PL, int ML, int SW, int RP, int LD, int T, bool TA, bool TB>
__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__((CW + 1) * wgmma_detail::kWarpgroup, 1)
    wgmma_gemm_cluster(GemmArgs const args, const __grid_constant__ TensorMaps maps) {
  static_assert(CL > 1, "single blocks use wgmma_gemm");
  static_assert(RP == 16 || RP == 128, "operands read in place at 16- or 128-byte row pitches");
  WGMMA_ARCH_SPECIFIC(
      (wgmma_detail::set_up_block<BM, BN, ST, CW, CL, PE, EP, CA, ML, LD, T, TA, TB>(maps)));
  grid_dependency::enter();
  WGMMA_ARCH_SPECIFIC(
      (wgmma_detail::gemm_block<BM, BN, ST, CW, CL, PE, GM, SK, EP, CA, TU, PL, ML, SW, LD, T, TA,
                                TB>(args, maps)));
}

/// Split-K reduction: C = alpha·Σ partials + beta·C, one element per thread step.
template <int SK, int T>
__global__ void __launch_bounds__(wgmma_detail::kReduceThreads)
    wgmma_reduce(GemmArgs const args) {
  using namespace wgmma_detail;
  constexpr int OT = out_type(T);
  grid_dependency::wait_for_prior_grids();
  float const alpha = epilogue_args<T>(args).alpha;
  long long const M = args.M, N = args.N, ldw = (N + 3) / 4 * 4;
  long long const total = M * N;
  float const* const w = static_cast<float const*>(args.workspace);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long const row = e / N, col = e % N;
    float acc = 0.f;
#pragma unroll
    for (int s = 0; s < SK; ++s) acc += w[s * M * ldw + row * ldw + col];
    long long const i = row * args.ldc + col;
    float v = alpha * acc;
    if (args.beta != 0.f) v += args.beta * load_elem<OT>(args.C, i);
    store_elem<OT>(args.C, i, v);
  }
}

namespace wgmma_detail {
/// Tiles of wgmma_reduce_transposed: 32×32 elements, 32×8 threads (each 4 rows of a tile).
constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = kReduceThreads / kTransposeTile;
}  // namespace wgmma_detail

/// Split-K reduction of swapped operands (SW = 1): the partials are the swapped problem's
/// (swapped_args: the caller's N rows of round_up(M, 4) floats per slice), C is the caller's.
/// Each block sums 32×32 tiles of the partials with reads along their rows, turns the tile in
/// shared memory, and writes it along C's rows, so neither side walks memory a row apart.
template <int SK, int T>
__global__ void __launch_bounds__(wgmma_detail::kReduceThreads)
    wgmma_reduce_transposed(GemmArgs const caller) {
  using namespace wgmma_detail;
  constexpr int OT = out_type(T);
  constexpr int TILE = kTransposeTile, ROWS = kTransposeRows;
  __shared__ float tile[TILE][TILE + 1];  // + 1: a column of the tile spans all 32 banks
  grid_dependency::wait_for_prior_grids();
  GemmArgs const args = swapped_args(caller);
  float const alpha = epilogue_args<T>(args).alpha;
  long long const M = args.M, N = args.N, ldw = (N + 3) / 4 * 4;
  long long const tiles_n = (N + TILE - 1) / TILE;
  long long const tiles = (M + TILE - 1) / TILE * tiles_n;
  float const* const w = static_cast<float const*>(args.workspace);
  int const tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    long long const r0 = t / tiles_n * TILE, c0 = t % tiles_n * TILE;
    // Partials (r0 + y, c0 + tx): consecutive threads read consecutive floats of a row.
#pragma unroll
    for (int y = ty; y < TILE; y += ROWS) {
      long long const r = r0 + y, c = c0 + tx;
      float acc = 0.f;
      if (r < M && c < N) {
#pragma unroll
        for (int s = 0; s < SK; ++s) acc += w[s * M * ldw + r * ldw + c];
      }
      tile[y][tx] = acc;
    }
    __syncthreads();
    // C (c0 + y, r0 + tx) = swapped (r0 + tx, c0 + y): consecutive threads write consecutive
    // elements of one row of C.
#pragma unroll
    for (int y = ty; y < TILE; y += ROWS) {
      long long const r = r0 + tx, c = c0 + y;
      if (r < M && c < N) {
        long long const i = c * args.ldc + r;
        float v = alpha * tile[tx][y];
        if (args.beta != 0.f) v += args.beta * load_elem<OT>(args.C, i);
        store_elem<OT>(args.C, i, v);
      }
    }
    __syncthreads();  // the tile is rewritten by the next iteration
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_WGMMA_WGMMA_CUH
