// The GEMMs of a PyTorch profiler trace (Chrome-trace JSON written with record_shapes=True):
// aten::mm, aten::addmm and aten::linear events as row-major problems, with call counts and
// their share of the GEMMs' recorded time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/problem.hpp"

namespace gemmtune {

/// One GEMM shape of a trace.
struct TracedGemm {
  Problem problem;
  std::int64_t calls = 0;
  double duration_us = 0.0;  ///< summed over its calls
  std::string op;            ///< the aten op that ran it ("aten::linear", "aten::mm", ...)
};

/// What a trace held.
struct TraceShapes {
  std::vector<TracedGemm> gemms;  ///< in order of first appearance
  /// GEMM-like events gemmtune does not tune (aten::bmm and aten::baddbmm, other dtypes), and
  /// events without recorded shapes, by kind.
  std::vector<std::pair<std::string, std::int64_t>> skipped;
};

/// Reads a Chrome-trace JSON ({"traceEvents": [...]}, or the bare array) of the PyTorch
/// profiler. An event's "args" give "Input Dims" and "Input type" (record_shapes=True), and
/// "Input Strides" where the profiler wrote them. aten::linear(x, W[, bias]) is y = x·Wᵀ: M is
/// the product of x's leading dimensions, N and K are W's, layout NT. aten::mm(A, B) and
/// aten::addmm(C, A, B) take their layout from the strides (a unit row stride is a transposed
/// operand), else from an enclosing aten::linear (NT), else NN. An mm or addmm inside a linear on
/// the same thread is that linear's GEMM and is counted once. float, c10::Half and c10::BFloat16
/// are fp32, fp16 and bf16. Throws Error "<source>: …" when the text is no such trace.
TraceShapes read_profiler_trace(std::string_view json_text, std::string_view source);

}  // namespace gemmtune
