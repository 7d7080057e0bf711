// The K-major copies for tf32 and FP8 wgmma (which read K-major shared memory only): op(A) as
// M×K when A is stored K×M, op(B) as N×K when B is stored K×N, written into the workspace for
// the main kernel's descriptors. Plain CUDA (no sm_90 instruction), so the host emulation runs
// it. EB is the element's bytes: 4 (tf32) or 1 (FP8, moved as bytes).
#ifndef GEMMTUNE_WGMMA_KMAJOR_COPY_CUH
#define GEMMTUNE_WGMMA_KMAJOR_COPY_CUH

#include "common/gemm_args.cuh"
#include "common/grid_dependency.cuh"

namespace gemmtune {
namespace wgmma_detail {

constexpr int kCopyTile = 32;   // a 32×32 block of the operand turns in shared memory
constexpr int kCopyWarps = 8;   // warp w moves rows w, w + 8, ... of every block
constexpr int kCopyThreads = kCopyWarps * 32;
/// Dynamic shared memory of a copy that moves BATCH blocks per thread block: BATCH padded 32×33
/// tiles.
__host__ __device__ constexpr int copy_smem_bytes(int BATCH) {
  return BATCH * kCopyTile * (kCopyTile + 1) * 4;
}

/// Row stride in elements of a K-major copy: K rounded up to 16 bytes (as kmajor_copy_ld()).
template <int EB>
__host__ __device__ constexpr long long kmajor_copy_ldk(long long K) {
  return (K + 16 / EB - 1) / (16 / EB) * (16 / EB);
}
/// Byte offsets in the workspace of the K-major copies of op(A) (M×K) and op(B) (N×K), each
/// with row stride kmajor_copy_ldk elements: after the split-K partials, each on a 128-byte
/// boundary, A's copy (if A is stored K×M) before B's (if B is stored K×N). The host's launch
/// plan computes the same offsets (wgmma_family.cpp).
template <int SK, bool TA, int EB = 4>
__device__ __forceinline__ void kmajor_copy_offsets(GemmArgs const& args, long long& off_a,
                                                    long long& off_b) {
  long long const M = args.M, N = args.N, ldk = kmajor_copy_ldk<EB>(args.K);
  long long const partials = SK > 1 ? SK * M * ((N + 3) / 4 * 4) * 4 : 0;
  off_a = (partials + 127) / 128 * 128;
  off_b = off_a + (TA ? (M * ldk * EB + 127) / 128 * 128 : 0);
}
/// The element type the copy moves: float for 4 bytes, a byte for FP8.
template <int EB>
struct CopyElement {
  using type = float;
};
template <>
struct CopyElement<1> {
  using type = unsigned char;
};

}  // namespace wgmma_detail

/// One thread block moves BATCH 32×32 blocks (32·BATCH rows of the copy by 32 of K), A's
/// first. Every load of the batch is issued before the first store to shared memory, 4·BATCH per
/// thread in flight: one 32×32 block per thread block (4 loads each) moved 134 MB in 48.9 µs on
/// the H200, 2.3 TB/s of DRAM traffic against the 4.27 TB/s copy ceiling, and four per block
/// ran 5.6–9% faster on the large tf32 shapes; on small operands (1000³) four per block left too
/// few blocks and ran 13% slower than one, so the plan picks BATCH. Reads and writes are whole
/// 128-byte rows per warp for tf32 (32-byte ones for FP8); the padded tiles keep both sides of
/// the turn conflict-free.
template <int SK, bool TA, bool TB, int BATCH, int EB = 4>
__global__ void __launch_bounds__(wgmma_detail::kCopyThreads)
    wgmma_kmajor_copy(GemmArgs const args) {
  using namespace wgmma_detail;
  using Elem = typename CopyElement<EB>::type;
  static_assert(EB == 4 || EB == 1, "4-byte (tf32) or 1-byte (FP8) elements");
  static_assert(TA || !TB, "nothing to copy when both operands are K-major");
  grid_dependency::wait_for_prior_grids();
  static_assert(BATCH == 1 || BATCH == 4, "one or four blocks per thread block");
  constexpr int kRowsPerBlock = kCopyTile * BATCH;
  // Dynamic (the plan asks for copy_smem_bytes(BATCH)): the plan's first launch then declares
  // all the shared memory it uses, as the main kernel does.
  extern __shared__ float copy_smem[];
  Elem(*const tile)[kCopyTile][kCopyTile + 1] =
      reinterpret_cast<Elem(*)[kCopyTile][kCopyTile + 1]>(copy_smem);
  long long const K = args.K, ldk = kmajor_copy_ldk<EB>(K);
  long long const k_tiles = (K + kCopyTile - 1) / kCopyTile;
  long long const a_blocks =
      TA ? (args.M + kRowsPerBlock - 1) / kRowsPerBlock * k_tiles : 0;
  long long b = blockIdx.x;
  bool const is_a = b < a_blocks;
  if (!is_a) b -= a_blocks;
  long long off_a, off_b;
  kmajor_copy_offsets<SK, TA, EB>(args, off_a, off_b);
  Elem const* const src = static_cast<Elem const*>(is_a ? args.A : args.B);
  long long const ld = is_a ? args.lda : args.ldb;
  long long const R = is_a ? args.M : args.N;  // rows of the copy
  Elem* const dst = reinterpret_cast<Elem*>(static_cast<char*>(args.workspace) +
                                             (is_a ? off_a : off_b));
  long long const r0 = b / k_tiles * kRowsPerBlock, k0 = b % k_tiles * kCopyTile;
  int const tx = static_cast<int>(threadIdx.x) % 32, ty = static_cast<int>(threadIdx.x) / 32;
  constexpr int kPerTile = kCopyTile / kCopyWarps;
  // The operand is stored K×R: element (k, r) at k·ld + r. Outside it, zeros that are never
  // written back.
  Elem v[BATCH][kPerTile];
#pragma unroll
  for (int t = 0; t < BATCH; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTile; ++j) {
      long long const k = k0 + ty + j * kCopyWarps, r = r0 + t * kCopyTile + tx;
      v[t][j] = k < K && r < R ? src[k * ld + r] : Elem(0);
    }
  }
#pragma unroll
  for (int t = 0; t < BATCH; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTile; ++j) tile[t][ty + j * kCopyWarps][tx] = v[t][j];
  }
  __syncthreads();
#pragma unroll
  for (int t = 0; t < BATCH; ++t) {
#pragma unroll
    for (int j = 0; j < kPerTile; ++j) {
      int const i = ty + j * kCopyWarps;
      long long const r = r0 + t * kCopyTile + i, k = k0 + tx;
      if (r < R && k < K) dst[r * ldk + k] = tile[t][tx][i];
    }
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_WGMMA_KMAJOR_COPY_CUH
