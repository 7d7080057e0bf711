// Profiler traces: linear, mm and addmm events as problems, a linear's own GEMM counted once,
// layouts from strides, skipped kinds named, bad traces refused.
#include "tuner/shapes/profiler_shapes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

constexpr char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "name": "aten::linear", "pid": 1, "tid": 7, "ts": 100, "dur": 50,
   "args": {"Input Dims": [[4, 16, 4096], [1024, 4096], [1024]],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]}},
  {"ph": "X", "name": "aten::addmm", "pid": 1, "tid": 7, "ts": 110, "dur": 30,
   "args": {"Input Dims": [[1024], [64, 4096], [4096, 1024]],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"],
            "Input Strides": [[1], [4096, 1], [1, 4096]]}},
  {"ph": "X", "name": "aten::linear", "pid": 1, "tid": 7, "ts": 300, "dur": 20,
   "args": {"Input Dims": [[8, 512], [256, 512]], "Input type": ["c10::Half", "c10::Half"]}},
  {"ph": "X", "name": "aten::linear", "pid": 1, "tid": 7, "ts": 500, "dur": 40,
   "args": {"Input Dims": [[64, 4096], [1024, 4096], [1024]],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]}},
  {"ph": "X", "name": "aten::addmm", "pid": 1, "tid": 7, "ts": 505, "dur": 34,
   "args": {"Input Dims": [[1024], [64, 4096], [4096, 1024]],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]}},
  {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 8, "ts": 100, "dur": 5,
   "args": {"Input Dims": [[128, 64], [64, 32]], "Input type": ["float", "float"],
            "Input Strides": [[64, 1], [32, 1]]}},
  {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 8, "ts": 200, "dur": 5,
   "args": {"Input Dims": [[128, 64], [64, 32]], "Input type": ["float", "float"],
            "Input Strides": [[1, 128], [32, 1]]}},
  {"ph": "X", "name": "aten::bmm", "pid": 1, "tid": 8, "ts": 300, "dur": 5, "args": {}},
  {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 8, "ts": 400, "dur": 5},
  {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 8, "ts": 500, "dur": 5,
   "args": {"Input Dims": [[2, 2], [2, 2]], "Input type": ["double", "double"]}},
  {"ph": "X", "name": "aten::relu", "pid": 1, "tid": 8, "ts": 600, "dur": 5}
]})";

std::string error_of(std::string const& text) {
  try {
    read_profiler_trace(text, "trace.json");
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

TEST(ProfilerShapes, EventsBecomeProblems) {
  TraceShapes const t = read_profiler_trace(kTrace, "trace.json");
  ASSERT_EQ(t.gemms.size(), 4u);
  // The first linear ran as its addmm (x of 4×16 tokens, strides show Wᵀ): counted once, twice
  // over with the third linear of the same shape, whose addmm has no strides (NT from the linear).
  TracedGemm const& a = t.gemms[0];
  EXPECT_EQ(a.problem.m, 64);
  EXPECT_EQ(a.problem.n, 1024);
  EXPECT_EQ(a.problem.k, 4096);
  EXPECT_EQ(a.problem.precision, Precision::kBF16);
  EXPECT_EQ(a.problem.layout, Layout::kNT);
  EXPECT_EQ(a.calls, 2);
  EXPECT_DOUBLE_EQ(a.duration_us, 30 + 34);
  EXPECT_EQ(a.op, "aten::linear");
  // A linear with no child: its own shape.
  EXPECT_EQ(t.gemms[1].problem.m, 8);
  EXPECT_EQ(t.gemms[1].problem.n, 256);
  EXPECT_EQ(t.gemms[1].problem.precision, Precision::kFP16);
  EXPECT_EQ(t.gemms[1].problem.layout, Layout::kNT);
  // mm: the layout from the strides.
  EXPECT_EQ(t.gemms[2].problem.layout, Layout::kNN);
  EXPECT_EQ(t.gemms[2].problem.precision, Precision::kFP32);
  EXPECT_EQ(t.gemms[3].problem.layout, Layout::kTN);
  ASSERT_EQ(t.skipped.size(), 3u);
  EXPECT_EQ(t.skipped[0].first, "aten::bmm (batched)");
  EXPECT_EQ(t.skipped[1].first,
            "aten::mm without recorded shapes (profile with record_shapes=True)");
  EXPECT_EQ(t.skipped[2].first, "aten::mm (double)");
}

TEST(ProfilerShapes, BadTracesAreRefused) {
  EXPECT_NE(error_of("{").find("trace.json: not JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"events": []})").find("expected a Chrome trace"), std::string::npos);
  EXPECT_TRUE(read_profiler_trace("[]", "t").gemms.empty());
  EXPECT_NE(error_of(R"([{"ph": "X", "name": "aten::mm", "args": {"Input Dims": [[4, 0], [0, 4]],
                          "Input type": ["float", "float"]}}])")
                .find("trace.json: traceEvents[0] (aten::mm): Input Dims[0]: expected sizes"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"ph": "X", "name": "aten::mm", "args": {"Input Dims": [[4, 8], [4, 4]],
                          "Input type": ["float", "float"]}}])")
                .find("expected 2-D operands M×K and K×N"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"ph": "X", "name": "aten::linear", "args": {"Input Dims": [[4, 8],
                          [16, 4]], "Input type": ["float", "float"]}}])")
                .find("the weight's K 4 is not the input's 8"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmtune
