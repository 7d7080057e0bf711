// The wgmma family's cp.async producer (LD = 1): the producer warpgroup's 128 threads copy each
// stage's operand tiles from global memory with 16-byte cp.async, into the layout a TMA box with
// 128-byte swizzle leaves (so the consumers' descriptors do not change), and each thread's
// copies arrive on the stage's full barrier when they land (mbarrier::arrive_on_copies). Why:
// TMA splits a box row that straddles two 128-byte lines into several L2 requests (4.1x the
// requests at rows 2000 bytes apart, bench/results/2026-12-07-h100-row-pitch.md); a warp's
// cp.async touch each line once. Rows must still be 16-byte aligned. Where the chunks go is
// plain integer arithmetic (for_each_fill_chunk), so the CPU emulation holds it to the
// swizzle's definition.
#ifndef GEMMTUNE_WGMMA_ASYNC_FILL_CUH
#define GEMMTUNE_WGMMA_ASYNC_FILL_CUH

namespace gemmtune {
namespace wgmma_detail {

/// Threads that fill a stage: the producer warpgroup.
constexpr int kFillThreads = 128;
/// Bytes of one swizzled row (a 128-byte TMA box row) and of one 64-column MN-major box.
constexpr int kFillRow = 128;
/// Chunks of one tile per fill thread: K-major, X rows of 128 bytes; MN-major, X columns
/// (a multiple of 64) in boxes of 64 columns × BK rows of 128 bytes (BK = 128 / EB).
template <bool KMAJOR, int X, int EB>
__host__ __device__ constexpr int fill_chunks() {
  return KMAJOR ? X * (kFillRow / 16) / kFillThreads
                : X / 64 * (kFillRow / EB) * (kFillRow / 16) / kFillThreads;
}

/// Walks fill thread t's chunks of a tile whose first row (K-major) or column (MN-major) of C is
/// mn0, at K offset k0, of an operand of mn_extent rows or columns along M or N and k_extent
/// along K, stored with rows ld elements apart: `copy(smem, offset, bytes)` for each chunk to
/// copy, with where it lands (bytes from the tile's start in the stage), the byte offset of its
/// source from the operand's base, and its bytes inside the matrix (the rest is zero-filled).
/// Consecutive threads take consecutive chunks of one 128-byte row, so a warp copies 4 whole
/// rows. Chunk c of swizzled row r lands at r·128 + ((c ^ (r mod 8))·16), as TMA's 128-byte
/// swizzle puts it (the tile starts on a 1024-byte swizzle atom). A chunk the K extent cuts is
/// zero-filled past it, since the products there must be zeros, not stale data; chunks past the
/// matrix along M or N are not copied (their rows or columns of C are never stored, as where TMA
/// issues no piece). The walk goes by increments, an add to each address and one compare a
/// chunk: computed from the chunk's index, with divisions and 64-bit products, the producer
/// took about 25 instructions a chunk.
template <bool KMAJOR, int X, int EB, typename Copy>
__host__ __device__ inline void for_each_fill_chunk(int t, long long mn0, long long k0,
                                                    long long mn_extent, long long k_extent,
                                                    long long ld, Copy&& copy) {
  constexpr int kChunksPerRow = kFillRow / 16;
  constexpr int kRowsPerPass = kFillThreads / kChunksPerRow;  // 16 rows a pass of the threads
  constexpr int kElems = 16 / EB;
  int const r0 = t / kChunksPerRow, c = t % kChunksPerRow;
  int const smem0 = r0 * kFillRow + ((c ^ (r0 % 8)) * 16);  // r0 + 16·j keeps r0's r mod 8
  long long const pass_bytes = kRowsPerPass * ld * EB;      // 16 stored rows
  if (KMAJOR) {
    // Rows along M or N (16·j from r0), columns along K: one byte count for every pass.
    long long const col = k0 + static_cast<long long>(c) * kElems;
    long long const left_k = (k_extent - col) * EB;
    int const bytes = left_k <= 0 ? 0 : left_k >= 16 ? 16 : static_cast<int>(left_k);
    long long const rows_left = mn_extent - mn0 - r0;  // passes j with 16·j < rows_left copy
    long long offset = ((mn0 + r0) * ld + col) * EB;
    // A chunk wholly past K copies no byte: its source need only be a mapped address.
    long long const step = bytes > 0 ? pass_bytes : 0;
    if (bytes == 0) offset = 0;
#pragma unroll 1
    for (int j = 0; j < fill_chunks<KMAJOR, X, EB>() && kRowsPerPass * j < rows_left; ++j) {
      copy(smem0 + j * kRowsPerPass * kFillRow, offset, bytes);
      offset += step;
    }
  } else {
    // Rows along K (r0 + 16·q, q < 4 in a 64-row box), 64-column boxes along M or N.
    constexpr int kBoxRows = kFillRow / EB;
    constexpr int kPasses = kBoxRows / kRowsPerPass;  // 4
    constexpr int kBoxes = X / (kFillRow / EB);
    long long const col0 = mn0 + static_cast<long long>(c) * kElems;
    long long const rows_k = k_extent - k0 - r0;  // passes q with 16·q < rows_k copy bytes
#pragma unroll 1
    for (int box = 0; box < kBoxes; ++box) {
      long long const left = (mn_extent - col0 - static_cast<long long>(box) * kBoxRows) * EB;
      if (left <= 0) break;  // this box and the next lie past the matrix
      int const in_mn = left >= 16 ? 16 : static_cast<int>(left);
      long long offset = ((k0 + r0) * ld + col0 + static_cast<long long>(box) * kBoxRows) * EB;
#pragma unroll
      for (int q = 0; q < kPasses; ++q) {
        bool const in_k = kRowsPerPass * q < rows_k;
        copy(smem0 + (box * kPasses + q) * kRowsPerPass * kFillRow, in_k ? offset : 0,
             in_k ? in_mn : 0);
        offset += pass_bytes;
      }
    }
  }
}

/// Copies this thread's chunks of one operand tile into the stage at shared address dst: the
/// operand stored at `base` with rows ld elements apart (16-byte aligned rows).
template <bool KMAJOR, int X, int EB>
__device__ __forceinline__ void fill_tile(unsigned dst, void const* base, long long ld,
                                          long long mn0, long long k0, long long mn_extent,
                                          long long k_extent) {
  char const* const bytes = static_cast<char const*>(base);
  for_each_fill_chunk<KMAJOR, X, EB>(
      static_cast<int>(threadIdx.x % kFillThreads), mn0, k0, mn_extent, k_extent, ld,
      [&](int smem, long long offset, int n) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst + smem),
                     "l"(bytes + offset), "r"(n)
                     : "memory");
      });
}

}  // namespace wgmma_detail
}  // namespace gemmtune

#endif  // GEMMTUNE_WGMMA_ASYNC_FILL_CUH
