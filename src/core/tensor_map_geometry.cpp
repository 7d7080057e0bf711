// The stored extent of each operand and the TMA encoding rules (box ≤ 256 per dimension,
// 16-byte inner box and row stride, inner box within the swizzle span).
#include "src/core/tensor_map_geometry.hpp"

namespace gemmtune {
namespace {

constexpr std::uint32_t kMaxBox = 256;
constexpr std::uint64_t kMaxStride = std::uint64_t{1} << 40;

std::string str(std::int64_t v) { return std::to_string(v); }

/// `elements` of the problem's input type rounded up to whole multiples of `bytes`.
std::int64_t round_to_bytes(std::int64_t elements, int bytes, Problem const& problem) {
  std::int64_t const per = bytes / input_bytes(problem.precision);
  return (elements + per - 1) / per * per;
}
std::int64_t round_to_16_bytes(std::int64_t elements, Problem const& problem) {
  return round_to_bytes(elements, 16, problem);
}

}  // namespace

Precision stored_precision(TmaOperand operand, Precision precision) {
  switch (operand) {
    case TmaOperand::kC: return output_precision(precision);
    case TmaOperand::kB: return b_storage_precision(precision);
    default: return precision;
  }
}

StoredExtent stored_extent(TmaOperand operand, Problem const& problem) {
  switch (operand) {
    case TmaOperand::kA:
      return a_transposed(problem.layout) ? StoredExtent{problem.k, problem.m}
                                          : StoredExtent{problem.m, problem.k};
    case TmaOperand::kB:
      return b_transposed(problem.layout) ? StoredExtent{problem.n, problem.k}
                                          : StoredExtent{problem.k, problem.n};
    case TmaOperand::kC: break;
  }
  return {problem.m, problem.n};
}

std::int64_t kmajor_copy_ld(Problem const& problem) {
  return round_to_16_bytes(problem.k, problem);
}

bool needs_padded_copy(std::uintptr_t base, std::int64_t ld, int element_bytes,
                       int in_place_pitch) {
  return base % 16 != 0 || (ld * element_bytes) % in_place_pitch != 0;
}

std::int64_t padded_copy_ld(TmaOperand operand, Problem const& problem) {
  return round_to_bytes(stored_extent(operand, problem).cols, 128, problem);
}

char const* to_string(TmaOperand operand) {
  switch (operand) {
    case TmaOperand::kA: return "A";
    case TmaOperand::kB: return "B";
    case TmaOperand::kC: return "C";
  }
  return "?";
}

std::string tensor_map_geometry(TensorMapSpec const& spec, Problem const& problem,
                                std::int64_t ld, TensorMapGeometry& out) {
  out = TensorMapGeometry{};
  Precision const stored = stored_precision(spec.operand, problem.precision);
  switch (stored) {
    case Precision::kFP32:
    case Precision::kTF32: out.element = TensorElement::kFloat32; break;
    case Precision::kFP16: out.element = TensorElement::kFloat16; break;
    case Precision::kBF16: out.element = TensorElement::kBFloat16; break;
    default: out.element = TensorElement::kUint8; break;  // FP8, moved as bytes
  }
  out.element_bytes = input_bytes(stored);
  std::string const what = std::string("tensor map of ") + to_string(spec.operand) + ": ";
  std::int64_t rows = 0, cols = 0;
  if (spec.workspace_offset >= 0) {
    if (spec.operand == TmaOperand::kC) return what + "C has no workspace copy";
    if (spec.workspace_offset % 128 != 0) {
      return what + "workspace offset " + str(spec.workspace_offset) +
             " is not a multiple of 128 bytes";
    }
  } else if (spec.workspace_offset != -1) {
    return what + "workspace offset " + str(spec.workspace_offset) + " (expected -1 or ≥ 0)";
  } else if (spec.padded_copy) {
    return what + "a padded copy needs a workspace offset";
  }
  if (spec.padded_copy && spec.in_place_pitch != 16 && spec.in_place_pitch != 128) {
    return what + "in-place pitch " + str(spec.in_place_pitch) + " bytes (expected 16 or 128)";
  }
  if (spec.workspace_offset >= 0 && !spec.padded_copy) {
    // The K-major copy: op(A) as M×K or op(B) as N×K.
    rows = spec.operand == TmaOperand::kA ? problem.m : problem.n;
    cols = problem.k;
    ld = kmajor_copy_ld(problem);
  } else {
    StoredExtent const e = stored_extent(spec.operand, problem);
    rows = e.rows;
    cols = e.cols;
  }
  if (rows < 1 || cols < 1) return what + "empty matrix " + str(rows) + "×" + str(cols);
  if (ld < cols) {
    return what + "leading dimension " + str(ld) + " < " + str(cols) + " stored columns";
  }
  if (spec.box_cols < 1 || spec.box_rows < 1 || spec.box_cols > static_cast<int>(kMaxBox) ||
      spec.box_rows > static_cast<int>(kMaxBox)) {
    return what + "box " + str(spec.box_cols) + "×" + str(spec.box_rows) +
           " outside 1…256 per dimension";
  }
  std::int64_t const inner_bytes = std::int64_t{spec.box_cols} * out.element_bytes;
  if (inner_bytes % 16 != 0) {
    return what + "inner box of " + str(inner_bytes) + " bytes is not a multiple of 16";
  }
  if (spec.swizzle_bytes != 0 && spec.swizzle_bytes != 32 && spec.swizzle_bytes != 64 &&
      spec.swizzle_bytes != 128) {
    return what + "swizzle of " + str(spec.swizzle_bytes) + " bytes (expected 0, 32, 64 or 128)";
  }
  if (spec.swizzle_bytes != 0 && inner_bytes > spec.swizzle_bytes) {
    return what + "inner box of " + str(inner_bytes) + " bytes is wider than the " +
           str(spec.swizzle_bytes) + "-byte swizzle span";
  }
  std::uint64_t const stride = static_cast<std::uint64_t>(ld) * out.element_bytes;
  if (stride % 16 != 0 || stride >= kMaxStride) {
    return what + "row stride of " + str(static_cast<std::int64_t>(stride)) +
           " bytes is not a multiple of 16 below 2^40";
  }
  out.rows = static_cast<std::uint64_t>(rows);
  out.cols = static_cast<std::uint64_t>(cols);
  out.row_stride_bytes = stride;
  out.box_cols = static_cast<std::uint32_t>(spec.box_cols);
  out.box_rows = static_cast<std::uint32_t>(spec.box_rows);
  out.swizzle_bytes = spec.swizzle_bytes;
  return {};
}

}  // namespace gemmtune
