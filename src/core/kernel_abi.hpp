// Host view of the kernel ABI: the GemmArgs struct every template takes, and what one launch
// of a candidate looks like (kernel name, grid, block, dynamic shared memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_templates/common/gemm_args.cuh"
#include "src/core/problem.hpp"

namespace gemmtune {

static_assert(sizeof(GemmArgs) == 112, "GemmArgs layout must match the device side");
static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 64,
              "TmaDescriptor must have CUtensorMap's size and alignment");
static_assert(sizeof(TensorMaps) == 384, "TensorMaps layout must match the device side");

/// Which matrix a TMA descriptor covers. Its global extent is the matrix as stored
/// (row-major): A is M×K (K×M when op(A) = Aᵀ), B is K×N (N×K when op(B) = Bᵀ), C is M×N;
/// the row stride is the leading dimension. The element type follows the precision
/// (fp32 and tf32: 4-byte floats; fp16; bf16; e4m3: bytes for A and B, bf16 for C).
enum class TmaOperand { kA, kB, kC };

/// A TMA descriptor the runner encodes before launching: the operand, the box copied per
/// request (`box_cols` elements along the contiguous dimension × `box_rows` rows) and the
/// shared-memory swizzle (0 = none, 32, 64 or 128 bytes). Encoding uses tiled mode,
/// interleave none, L2 promotion 256 B and zero fill out of bounds.
struct TensorMapSpec {
  TmaOperand operand = TmaOperand::kA;
  int box_rows = 0;
  int box_cols = 0;
  int swizzle_bytes = 0;
  /// -1: the operand as the caller stores it. Otherwise the descriptor reads a K-major copy of
  /// op(A) or op(B) that an earlier launch of the plan wrote into the workspace at this byte
  /// offset: A as M×K, B as N×K, K contiguous, row stride kmajor_copy_ld() elements (a
  /// transpose for an operand the tensor cores cannot read MN-major, e.g. tf32).
  std::int64_t workspace_offset = -1;
  /// With a workspace offset: the copy there is a padded one (the operand as stored, rows
  /// padded to 16 bytes, padded_copy_ld()), which the descriptor reads only where the caller's
  /// matrix has a base or row stride TMA cannot take (needs_padded_copy); an earlier launch of
  /// the plan writes it under the same rule. Otherwise the caller's matrix.
  bool padded_copy = false;
  /// With a padded copy: the row strides, in bytes, at which the caller's matrix is read in
  /// place: multiples of 16 (all TMA requires) or of 128 (each box row within one line).
  int in_place_pitch = 16;
  bool operator==(TensorMapSpec const&) const = default;
};

/// A 3-D launch extent.
struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  bool operator==(Dim3 const&) const = default;
};

/// One kernel launch of a candidate. `name_expression` is what the template registers with
/// NVRTC (e.g. "gemmtune::naive<32,8,false,false>"); `lowered_name` is filled in by the compiler.
struct KernelLaunch {
  std::string name_expression;
  std::string lowered_name;
  Dim3 grid;
  Dim3 block;
  int dynamic_smem = 0;  ///< bytes; above 48 KiB the runner raises the kernel's limit first
  /// The kernel takes `const __grid_constant__ TensorMaps` after GemmArgs, encoded from the
  /// plan's tensor_maps.
  bool takes_tensor_maps = false;
  /// The kernel executes griddepcontrol.wait before its first global memory access
  /// (kernel_templates/common/grid_dependency.cuh), so on sm_90+ it is launched with
  /// programmatic stream serialization: its launch overlaps the previous kernel's last blocks.
  bool waits_for_prior_grids = false;
  bool operator==(KernelLaunch const&) const = default;
};

/// How to run a candidate on a problem: launches in order on one stream, all from one cubin,
/// all taking the same GemmArgs.
struct LaunchPlan {
  std::vector<KernelLaunch> launches;
  std::int64_t workspace_bytes = 0;
  bool zero_workspace = false;  ///< memset the workspace to 0 before every run of the plan
  /// Bytes of split-K tile counters (GemmArgs::counters). They must be zero before the plan's
  /// first run; every run leaves them zero again, so they are cleared once, not per run, and
  /// may be shared by every plan run on one stream.
  std::int64_t counter_bytes = 0;
  /// Descriptors for the launches that take TensorMaps (at most one per operand).
  std::vector<TensorMapSpec> tensor_maps;
  bool operator==(LaunchPlan const&) const = default;
};

/// GemmArgs over the packed row-major storage of `p` (lda/ldb/ldc from Problem): how the worker
/// and the benchmarks call a candidate on their own buffers. `scale_a`, `scale_b`: the FP8
/// per-tensor scales in device memory (null for the other precisions).
inline GemmArgs packed_gemm_args(Problem const& p, void const* a, void const* b, void* c,
                                 void* workspace, unsigned* counters, float alpha, float beta,
                                 float const* scale_a = nullptr, float const* scale_b = nullptr) {
  return GemmArgs{p.m,  p.n,  p.k,       p.lda(),  p.ldb(), p.ldc(), a,      b,
                  c,    workspace,       counters, alpha,   beta,    scale_a, scale_b};
}

}  // namespace gemmtune
