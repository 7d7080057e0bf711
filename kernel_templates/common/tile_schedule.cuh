// Which tile of C a block works on and which K blocks of it: the grouped rasterization that keeps
// the blocks resident at the same time on neighbouring tiles, and the even split of K among the
// slices of split-K. simt and mma take one tile per block (blockIdx.x) and its slice from
// blockIdx.z; wgmma's persistent work units use grouped() alone, their index carrying the slice,
// and its stream-K grid (PE = 3) shares the k blocks of all units out with stream_begin().
// Integer arithmetic only, so the CPU emulation runs it with its own blockIdx.
#pragma once

namespace gemmtune {
namespace tile_schedule {

/// Tile t of a tiles_m × tiles_n grid in grouped order: GROUP tile rows at a time (fewer in the
/// last group), walked column by column, so the blocks running together share A rows and B
/// columns in L2 instead of each streaming its own.
template <int GROUP>
__device__ __forceinline__ void grouped(long long t, long long tiles_m, long long tiles_n,
                                        long long& tm, long long& tn) {
  long long const per_group = static_cast<long long>(GROUP) * tiles_n;
  long long const first = (t / per_group) * GROUP;
  long long const rows = tiles_m - first < GROUP ? tiles_m - first : GROUP;
  long long const in = t % per_group;
  tm = first + in % rows;
  tn = in / rows;
}

/// Position of item c of n dealt round robin onto S columns (c mod S) once the columns are
/// laid end to end: column g holds ⌈n/S⌉ or ⌊n/S⌋ items, the first n mod S the longer. A
/// bijection of [0, n) for any n; S ≤ 1 leaves c where it is. The hardware deals the clusters
/// of a launch round robin over the GPCs, so the clusters on one GPC, c, c + S, c + 2S, ..., get
/// consecutive positions: neighbouring tiles, whose loads of the same operand rows the GPC's
/// requests to L2 can then merge.
template <int S>
__device__ __forceinline__ long long dealt(long long c, long long n) {
  if constexpr (S <= 1) {
    return c;
  } else {
    long long const rows = n / S, longer = n % S;
    long long const g = c % S;
    return g * rows + (g < longer ? g : longer) + c / S;
  }
}

/// Stream-K: the first of the `total` k blocks (work units × k blocks per unit, laid end to
/// end) that share `c` of `shares` takes, when the shares split them as evenly as integers
/// allow; share c covers [stream_begin(c), stream_begin(c + 1)).
__device__ __forceinline__ long long stream_begin(long long c, long long total,
                                                  long long shares) {
  return c * total / shares;
}

/// Stream-K: the share that holds k block i (0 ≤ i < total): the last c with stream_begin(c) ≤
/// i, which is never an empty share.
__device__ __forceinline__ long long stream_owner(long long i, long long total,
                                                  long long shares) {
  return ((i + 1) * shares + total - 1) / total - 1;
}

/// Stream-K: how many shares the `total` k blocks are dealt into by `clusters` clusters: one
/// per cluster, or one per k block where there are fewer, so that no share is empty.
__device__ __forceinline__ long long stream_shares(long long total, long long clusters) {
  return clusters < total ? clusters : total;
}

/// Stream-K: the k blocks [begin, end) cluster c walks; clusters past the shares walk none.
__device__ __forceinline__ void stream_share(long long c, long long total, long long clusters,
                                             long long& begin, long long& end) {
  long long const shares = stream_shares(total, clusters);
  begin = c < shares ? stream_begin(c, total, shares) : total;
  end = c < shares ? stream_begin(c + 1, total, shares) : total;
}

/// First row m0 and column n0 of C of this block's tile (tile blockIdx.x of BM×BN tiles):
/// row-major when GROUP ≤ 1 (one division by tiles_n instead of grouped()'s divisions by a
/// group that may be short), else grouped().
template <int BM, int BN, int GROUP>
__device__ __forceinline__ void block_tile(long long M, long long N, long long& m0, long long& n0) {
  long long const tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  long long const tile = static_cast<long long>(blockIdx.x);
  long long tm, tn;
  if constexpr (GROUP <= 1) {
    tm = tile / tiles_n;
    tn = tile % tiles_n;
  } else {
    grouped<GROUP>(tile, tiles_m, tiles_n, tm, tn);
  }
  m0 = tm * BM;
  n0 = tn * BN;
}

/// This block's K slice (slice blockIdx.z of SLICES): K blocks [begin, begin + count) of BK
/// columns, ceil(blocks / SLICES) to a slice, so the last slices are shorter and may be empty
/// (count 0; begin may then lie past K). One slice takes all of K.
template <int BK, int SLICES>
__device__ __forceinline__ void block_k_slice(long long K, long long& begin, long long& count) {
  long long const blocks = (K + BK - 1) / BK;
  begin = 0;
  count = blocks;
  if constexpr (SLICES > 1) {
    long long const per = (blocks + SLICES - 1) / SLICES;
    begin = static_cast<long long>(blockIdx.z) * per;
    count = blocks - begin;
    if (count > per) count = per;
    if (count < 0) count = 0;
  }
}

}  // namespace tile_schedule
}  // namespace gemmtune
