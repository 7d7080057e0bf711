// The padded copies for 16-bit wgmma on operands TMA cannot read in place: a descriptor needs a
// 16-byte aligned base and row stride, which an odd K or N (or an offset pointer) denies. With
// RP = 128 also operands whose rows are not a multiple of 128 bytes apart: TMA reads those in
// place, but splits every box row that straddles two lines into several L2 requests. The
// copy keeps the operand's orientation and pads its rows to 128 bytes in the workspace, so the
// main kernel is the same instantiation whether an operand is copied or read in place; each
// launch decides per operand from the pointers and leading dimensions it is given, as the
// host's descriptor encoding does (needs_padded_copy in src/core/tensor_map_geometry.hpp).
// Plain CUDA (no sm_90 instruction), so the host emulation runs it.
#ifndef GEMMTUNE_WGMMA_PADDED_COPY_CUH
#define GEMMTUNE_WGMMA_PADDED_COPY_CUH

#include "common/gemm_args.cuh"
#include "common/grid_dependency.cuh"

namespace gemmtune {
namespace wgmma_detail {

constexpr int kPadThreads = 256;
constexpr int kPadPerThread = 8;  // loads in flight per thread
/// Elements of one stored row a block moves: lane-consecutive 2-byte loads and stores, so every
/// warp instruction covers 64 contiguous bytes on both sides whatever the source's alignment.
constexpr int kPadChunk = kPadThreads * kPadPerThread;

/// = needs_padded_copy (src/core/tensor_map_geometry.cpp): TMA reads a matrix in place only
/// with a 16-byte aligned base and a row stride that is a multiple of 16 bytes; the plan reads
/// it in place only at a row stride that is a multiple of `pitch` bytes (16 or 128).
__host__ __device__ inline bool needs_padded_copy(void const* base, long long ld_bytes,
                                                  int pitch) {
  return reinterpret_cast<unsigned long long>(base) % 16 != 0 || ld_bytes % pitch != 0;
}
/// Row stride in elements of a padded copy of 16-bit rows of `cols` elements: a multiple of
/// 128 bytes (= padded_copy_ld), so each row of a 128-byte TMA box lies within one line.
__host__ __device__ constexpr long long padded_ld(long long cols) { return (cols + 63) / 64 * 64; }

/// Stored rows and columns of A (K×M when TA, else M×K) and B (N×K when TB, else K×N).
template <bool TA>
__host__ __device__ inline void stored_a(GemmArgs const& args, long long& rows, long long& cols) {
  rows = TA ? args.K : args.M;
  cols = TA ? args.M : args.K;
}
template <bool TB>
__host__ __device__ inline void stored_b(GemmArgs const& args, long long& rows, long long& cols) {
  rows = TB ? args.N : args.K;
  cols = TB ? args.K : args.N;
}

/// Byte offsets in the workspace of the padded copies of A and B: after the split-K partials,
/// each on a 128-byte boundary, A's before B's. Space for both is always there; a launch fills
/// the ones its operands need. The host's launch plan computes the same offsets
/// (wgmma_family.cpp).
template <int SK, bool TA>
__host__ __device__ inline void padded_copy_offsets(GemmArgs const& args, long long& off_a,
                                                    long long& off_b) {
  long long const partials = SK > 1 ? SK * args.M * ((args.N + 3) / 4 * 4) * 4 : 0;
  long long rows, cols;
  stored_a<TA>(args, rows, cols);
  off_a = (partials + 127) / 128 * 128;
  off_b = off_a + (rows * padded_ld(cols) * 2 + 127) / 128 * 128;
}

}  // namespace wgmma_detail

/// One block moves kPadChunk elements of one stored row; the grid covers every row of A, then
/// every row of B (rows × ceil(cols / kPadChunk) blocks each). Blocks of an operand the plan reads
/// in place (row stride a multiple of RP bytes) return at once. The padding at the end of a row
/// is never written: the descriptor's extent stops at the stored columns.
template <int SK, bool TA, bool TB, int RP = 16>
__global__ void __launch_bounds__(wgmma_detail::kPadThreads) wgmma_padded_copy(GemmArgs const args) {
  using namespace wgmma_detail;
  static_assert(RP == 16 || RP == 128, "rows read in place at 16- or 128-byte pitches");
  grid_dependency::wait_for_prior_grids();
  long long rows_a, cols_a, rows_b, cols_b;
  stored_a<TA>(args, rows_a, cols_a);
  stored_b<TB>(args, rows_b, cols_b);
  long long const chunks_a = (cols_a + kPadChunk - 1) / kPadChunk;
  long long b = blockIdx.x;
  bool const is_a = b < rows_a * chunks_a;
  if (!is_a) b -= rows_a * chunks_a;
  long long const cols = is_a ? cols_a : cols_b, rows = is_a ? rows_a : rows_b;
  long long const ld = is_a ? args.lda : args.ldb;
  void const* const src_base = is_a ? args.A : args.B;
  if (!needs_padded_copy(src_base, ld * 2, RP)) return;
  long long const chunks = (cols + kPadChunk - 1) / kPadChunk;
  long long const row = b / chunks, c0 = b % chunks * kPadChunk + threadIdx.x;
  if (row >= rows) return;
  long long off_a, off_b;
  padded_copy_offsets<SK, TA>(args, off_a, off_b);
  unsigned short const* const src = static_cast<unsigned short const*>(src_base) + row * ld;
  unsigned short* const dst = reinterpret_cast<unsigned short*>(
                                  static_cast<char*>(args.workspace) + (is_a ? off_a : off_b)) +
                              row * padded_ld(cols);
  unsigned short v[kPadPerThread];
#pragma unroll
  for (int j = 0; j < kPadPerThread; ++j) {
    long long const c = c0 + j * kPadThreads;
    v[j] = c < cols ? src[c] : static_cast<unsigned short>(0);
  }
#pragma unroll
  for (int j = 0; j < kPadPerThread; ++j) {
    long long const c = c0 + j * kPadThreads;
    if (c < cols) dst[c] = v[j];
  }
}

}  // namespace gemmtune

#endif  // GEMMTUNE_WGMMA_PADDED_COPY_CUH
