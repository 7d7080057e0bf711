// Where a TMA descriptor of a launch plan points: the stored matrix of an operand (extent,
// row stride, element type) and the box, checked against the hardware's encoding rules. Plain
// arithmetic, so the rules are tested without a GPU; src/gpu encodes the result.
#pragma once

#include <cstdint>
#include <string>

#include "src/core/kernel_abi.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// Element type of a descriptor (the operand's storage type; FP8 A and B are plain bytes).
enum class TensorElement { kFloat32, kFloat16, kBFloat16, kUint8 };

/// A 2-D tiled descriptor: `cols` is the contiguous (inner) dimension, `rows` the outer one.
struct TensorMapGeometry {
  TensorElement element = TensorElement::kFloat32;
  int element_bytes = 4;
  std::uint64_t cols = 0;
  std::uint64_t rows = 0;
  std::uint64_t row_stride_bytes = 0;
  std::uint32_t box_cols = 0;
  std::uint32_t box_rows = 0;
  int swizzle_bytes = 0;
};

/// The geometry of `spec` over the problem's matrix stored with leading dimension `ld`
/// (elements; ignored for a K-major workspace copy, which has kmajor_copy_ld(); for a padded
/// copy, the caller's or padded_copy_ld(), whichever the descriptor reads), or the reason it cannot
/// be encoded: a box extent outside 1…256, an inner box
/// not a multiple of 16 bytes or wider than the swizzle span, a row stride that is not a
/// multiple of 16 bytes, or an unknown swizzle. Returns "" on success.
std::string tensor_map_geometry(TensorMapSpec const& spec, Problem const& problem,
                                std::int64_t ld, TensorMapGeometry& out);

/// The precision whose storage a descriptor's matrix uses: C of an FP8 problem is stored in
/// its output type (bf16), everything else in the problem's precision.
Precision stored_precision(TmaOperand operand, Precision precision);

/// Rows and columns (the contiguous dimension) of an operand as the caller stores it, row-major:
/// A is M×K (K×M when op(A) = Aᵀ), B is K×N (N×K when op(B) = Bᵀ), C is M×N.
struct StoredExtent {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
StoredExtent stored_extent(TmaOperand operand, Problem const& problem);

/// Row stride in elements of a K-major workspace copy of an operand: K rounded up to 16 bytes.
std::int64_t kmajor_copy_ld(Problem const& problem);

/// Whether a padded copy stands in for a matrix: its base address is not a multiple of 16 bytes
/// (TMA cannot read it), or its row stride (`ld` elements of `element_bytes`) is not a multiple
/// of `in_place_pitch` bytes (16: TMA cannot read it; 128: its box rows would straddle lines).
/// The padded copy kernel (kernel_templates/wgmma/padded_copy.cuh) applies the same rule on the
/// device.
bool needs_padded_copy(std::uintptr_t base, std::int64_t ld, int element_bytes,
                       int in_place_pitch = 16);

/// Row stride in elements of a padded workspace copy of operand A or B: its stored columns
/// (A: K, or M when stored K×M; B: N, or K when stored N×K) rounded up to 128 bytes, so that
/// every row starts where a 128-byte TMA box row lies within one 128-byte line (16 bytes is
/// all TMA requires).
std::int64_t padded_copy_ld(TmaOperand operand, Problem const& problem);

/// "A", "B" or "C".
char const* to_string(TmaOperand operand);

}  // namespace gemmtune
