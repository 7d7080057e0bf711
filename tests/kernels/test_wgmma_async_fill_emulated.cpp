// Holds the wgmma family's cp.async fill (LD = 1, kernel_templates/wgmma/async_fill.cuh) to the
// layout TMA's 128-byte swizzle leaves, on the CPU: every chunk the producer's 128 threads copy
// for K-major and MN-major tiles of every width the family has, at the matrix's edges along M or
// N and K, lands where the consumers' descriptors read that element; what lies past K is zeros;
// no 16-byte slot of the stage is written twice; every copy reads 16-byte aligned bytes inside
// one stored row.
#include "tests/kernels/cuda_emulation.hpp"
#include "kernel_templates/wgmma/async_fill.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gemmtune {
namespace {

using wgmma_detail::fill_chunks;
using wgmma_detail::for_each_fill_chunk;
using wgmma_detail::kFillThreads;

constexpr int kUnwritten = 0xEE;

/// Where TMA's 128-byte swizzle puts byte b of swizzled row r (the tile starts on a 1024-byte
/// atom): its 16-byte chunk is XORed with r mod 8.
int swizzled(int r, int b) { return r * 128 + (((b / 16) ^ (r % 8)) * 16) + b % 16; }

/// Fills one tile the way the fill threads do and checks it. The operand is stored as
/// `rows` × `cols` elements of EB bytes (K-major: rows along M or N, columns along K;
/// MN-major: rows along K), element (i, j) holding a pattern of i and j.
template <bool KMAJOR, int X, int EB>
void check(long long mn0, long long k0, long long mn_extent, long long k_extent) {
  SCOPED_TRACE(std::string(KMAJOR ? "K-major" : "MN-major") + " X=" + std::to_string(X) +
               " EB=" + std::to_string(EB) + " mn0=" + std::to_string(mn0) +
               " k0=" + std::to_string(k0) + " extents " + std::to_string(mn_extent) + "x" +
               std::to_string(k_extent));
  constexpr int kBoxRows = 128 / EB;  // BK: K elements of one stage
  long long const rows = KMAJOR ? mn_extent : k_extent;
  long long const cols = KMAJOR ? k_extent : mn_extent;
  long long const ld = (cols + 16 / EB - 1) / (16 / EB) * (16 / EB) + 16 / EB;  // 16-byte rows
  std::vector<unsigned char> global(static_cast<std::size_t>(rows * ld * EB));
  for (long long i = 0; i < rows; ++i) {
    for (long long j = 0; j < ld * EB; ++j) {
      global[static_cast<std::size_t>(i * ld * EB + j)] =
          static_cast<unsigned char>((i * 131 + j * 7 + 1) % 251);
    }
  }
  int const tile_bytes = KMAJOR ? X * 128 : X / 64 * kBoxRows * 128;
  std::vector<unsigned char> smem_bytes(static_cast<std::size_t>(tile_bytes), kUnwritten);
  std::vector<int> writes(static_cast<std::size_t>(tile_bytes / 16), 0);

  constexpr int kChunks = fill_chunks<KMAJOR, X, EB>();
  ASSERT_EQ(kChunks * kFillThreads * 16, tile_bytes) << "the threads' chunks make up the tile";
  long long const row_bytes = ld * EB;
  for (int t = 0; t < kFillThreads; ++t) {
    for_each_fill_chunk<KMAJOR, X, EB>(
        t, mn0, k0, mn_extent, k_extent, ld, [&](int smem, long long offset, int bytes) {
          ASSERT_GE(smem, 0);
          ASSERT_LT(smem, tile_bytes);
          ASSERT_EQ(smem % 16, 0);
          ASSERT_GE(bytes, 0);
          ASSERT_LE(bytes, 16);
          ++writes[static_cast<std::size_t>(smem / 16)];
          // cp.async's zero-fill form: the first `bytes` from global, the rest zeros; the
          // source is 16-byte aligned and its bytes lie inside one stored row.
          if (bytes > 0) {
            ASSERT_EQ(offset % 16, 0);
            ASSERT_LT(offset / row_bytes, rows);
            ASSERT_LE(offset % row_bytes + bytes, cols * EB);
            std::memcpy(&smem_bytes[static_cast<std::size_t>(smem)],
                        &global[static_cast<std::size_t>(offset)], static_cast<std::size_t>(bytes));
          }
          std::memset(&smem_bytes[static_cast<std::size_t>(smem + bytes)], 0,
                      static_cast<std::size_t>(16 - bytes));
        });
  }
  for (int w : writes) ASSERT_LE(w, 1) << "a 16-byte slot of the stage was written twice";

  // Every element of the tile inside the matrix along M or N: its value where the swizzle puts
  // it, or zero past K.
  int mismatches = 0;
  int const tile_mn = X, tile_k = kBoxRows;
  for (int m = 0; m < tile_mn; ++m) {
    long long const gm = mn0 + m;
    if (gm >= mn_extent) continue;  // never stored: anything may lie there
    for (int k = 0; k < tile_k; ++k) {
      long long const gk = k0 + k;
      int at;
      if (KMAJOR) {
        at = swizzled(m, k * EB);
      } else {
        at = m / 64 * kBoxRows * 128 + swizzled(k, (m % 64) * EB);
      }
      for (int b = 0; b < EB; ++b) {
        unsigned char want = 0;
        if (gk < k_extent) {
          long long const gi = KMAJOR ? gm : gk, gj = KMAJOR ? gk : gm;
          want = global[static_cast<std::size_t>((gi * ld + gj) * EB + b)];
        }
        unsigned char const got = smem_bytes[static_cast<std::size_t>(at + b)];
        if (got != want && ++mismatches <= 5) {
          ADD_FAILURE() << "element (mn " << m << ", k " << k << ") byte " << b << " = "
                        << int(got) << ", expected " << int(want);
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(WgmmaAsyncFillEmulated, KMajorTilesLandInTheSwizzledLayout) {
  // Whole tiles, then edges: rows past M or N, a K block cut at a chunk and at 8 elements.
  check<true, 64, 2>(0, 0, 1000, 1000);
  check<true, 128, 2>(128, 64, 1000, 1000);
  check<true, 256, 2>(0, 960, 1000, 1000);    // 40 of 64 K elements left
  check<true, 96, 2>(960, 0, 1000, 1000);     // 40 of 96 rows left
  check<true, 208, 2>(896, 992, 1000, 1000);  // both edges: 104 rows, 8 K elements
  check<true, 128, 2>(0, 0, 3, 8);            // smaller than one chunk row
  check<true, 128, 2>(0, 0, 128, 12);         // K ends inside a chunk (rows padded to 16 B)
  // The same arithmetic for the family's other element widths.
  check<true, 128, 4>(0, 32, 200, 50);
  check<true, 128, 1>(64, 128, 200, 300);
}

TEST(WgmmaAsyncFillEmulated, MnMajorTilesLandInTheSwizzledLayout) {
  check<false, 64, 2>(0, 0, 1000, 1000);
  check<false, 128, 2>(64, 64, 1000, 1000);
  check<false, 256, 2>(768, 960, 1000, 1000);  // 232 of 256 columns, 40 of 64 K rows
  check<false, 192, 2>(896, 0, 1000, 1000);    // columns end inside the second box
  check<false, 128, 2>(0, 0, 12, 5);           // N ends inside a chunk, K after 5 rows
}

}  // namespace
}  // namespace gemmtune
