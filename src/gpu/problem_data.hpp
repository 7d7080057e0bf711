// ProblemData: everything a session keeps for the problem it is working on — seeded input
// sets on the device (guarded), their host copies, the cuBLAS references and error-bound
// matrix, the guarded output buffer, the rotation pool and the host staging for read-backs. Only the most recent problem is
// kept, since large shapes need gigabytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <cublas_v2.h>

#include "src/core/problem.hpp"
#include "src/gpu/device_buffer.hpp"
#include "src/gpu/pinned_buffer.hpp"
#include "src/gpu/rotation_pool.hpp"

namespace gemmtune {

/// One set of inputs with what verifying against it needs.
struct InputSet {
  DeviceBuffer a, b;                  ///< guarded, packed storage of the problem's layout
  std::vector<std::byte> host_a, host_b;  ///< what a and b must still hold after a run
  std::vector<std::byte> host_c0;     ///< initial C in storage type (only when beta ≠ 0)
  DeviceBuffer c0;                    ///< host_c0 on the device, copied into C before a run
  std::vector<float> reference;       ///< R = alpha·op(A)·op(B) + beta·C0, float, row-major
  std::vector<float> bound_s;         ///< S = |alpha|·|A|·|B| + |beta|·|C0| (tolerance set only)
  double max_s = 0.0;
  bool has_reference = false;
  float ref_alpha = 0.0f, ref_beta = 0.0f;  ///< what `reference` was computed with
};

class ProblemData {
 public:
  /// Generates and uploads the normal-valued set for (p, seed) and allocates the guarded C.
  ProblemData(Problem const& p, std::uint64_t seed, cudaStream_t stream);

  Problem const& problem() const { return problem_; }
  std::uint64_t seed() const { return seed_; }
  /// Whether this object holds (p, seed) (alignment class ignored: storage is packed).
  bool holds(Problem const& p, std::uint64_t seed) const;

  /// Normal(0,1) inputs: the tolerance pass and timing.
  InputSet& normal() { return normal_; }
  /// Small-integer inputs for the exact pass (created on first use).
  InputSet& exact();
  /// Computes the set's float reference (and S when `with_bound`) with cuBLAS unless it is
  /// already there for this alpha and beta. Throws Error when cuBLAS refuses.
  void ensure_reference(InputSet& set, float alpha, float beta, bool with_bound,
                        cublasHandle_t handle);

  /// The guarded output buffer (packed M×N, storage type).
  DeviceBuffer& c() { return c_; }
  /// The FP8 scales of A and B in device memory: kScaleA and kScaleB (per-tensor),
  /// row_scale_a(i) for each of the M rows and row_scale_b(j) for each of the N columns
  /// (row-wise), or block_scale_a and block_scale_b in the block layouts of
  /// src/core/precision.hpp (block-scaled), each 16-byte aligned; null for the other precisions.
  float const* scale_a() const;
  float const* scale_b() const;
  /// Rotation sets built from the normal inputs for `rotate_bytes` (rebuilt when it changes).
  RotationPool const& pool(std::int64_t rotate_bytes);

  /// Page-locked staging for reading back C, A or B (the largest of them), made on first use
  /// and kept with the problem.
  PinnedBuffer& staging();
  /// A float buffer of M×N for converting a 16-bit C, made on first use and kept.
  std::span<float> c_values();

  std::size_t a_bytes() const;
  std::size_t b_bytes() const;
  std::size_t c_bytes() const;

 private:
  InputSet make_set(std::vector<float> const& a, std::vector<float> const& b);
  std::vector<float> initial_c(InputSet const& set) const;

  Problem problem_;
  std::uint64_t seed_;
  cudaStream_t stream_;
  InputSet normal_;
  std::unique_ptr<InputSet> exact_;
  DeviceBuffer c_;
  DeviceBuffer scales_;  ///< FP8 scales: A's, then B's from scale_b_at_ floats in; else empty
  std::size_t scale_b_at_ = 0;
  std::unique_ptr<RotationPool> pool_;
  PinnedBuffer staging_;
  std::vector<float> c_values_;
};

/// The per-tensor scales every FP8 problem is run with: powers of two, so the reference's
/// products stay exact, and different, so a kernel that swaps or drops one is caught.
inline constexpr float kScaleA = 0.5f;
inline constexpr float kScaleB = 0.25f;

/// The row-wise scales every row-scaled FP8 problem is run with: powers of two (the reference's
/// products stay exact, and so do the exact pass's small integers), varying along the rows of
/// A and the columns of B with different periods, so a kernel that swaps rows and columns,
/// reads one vector for both or drops one is caught.
inline float row_scale_a(std::int64_t i) { return i % 3 == 0 ? 1.0f : i % 3 == 1 ? 0.5f : 0.25f; }
inline float row_scale_b(std::int64_t j) { return j % 2 == 0 ? 0.5f : 2.0f; }

/// The block scales every block-scaled FP8 problem is run with: powers of two varying with the
/// row of A (the N block of B) and with the K block, in different patterns, so a kernel that
/// applies a block's scale to the wrong K block, row or N block, or promotes at the wrong
/// interval, is caught.
inline float block_scale_a(std::int64_t i, std::int64_t kb) {
  std::int64_t const v = (i + 2 * kb) % 3;
  return v == 0 ? 1.0f : v == 1 ? 0.5f : 0.25f;
}
inline float block_scale_b(std::int64_t nb, std::int64_t kb) {
  std::int64_t const v = (2 * nb + kb) % 4;
  return v == 0 ? 0.5f : v == 1 ? 2.0f : v == 2 ? 1.0f : 0.25f;
}

/// Copies host → device on `stream` and waits. Throws CudaFailure.
void upload(void* device, void const* host, std::size_t bytes, cudaStream_t stream);
/// Waits for `stream`, then copies device → host. Throws CudaFailure.
void download(void* host, void const* device, std::size_t bytes, cudaStream_t stream);

}  // namespace gemmtune
