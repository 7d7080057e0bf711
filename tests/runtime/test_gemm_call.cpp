// The runtime's argument checks and the alignment class it computes from real pointers and
// leading dimensions (which decides whether a vectorised config may run).
#include <gtest/gtest.h>

#include <cstdint>

#include "src/runtime/gemm_call.hpp"

namespace gemmtune {
namespace {

void const* at(std::uintptr_t address) { return reinterpret_cast<void const*>(address); }

GemmCall packed(Precision p, Layout l, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmCall c;
  c.precision = p;
  c.layout = l;
  c.m = m;
  c.n = n;
  c.k = k;
  c.a = at(0x10000);
  c.b = at(0x20000);
  c.c = const_cast<void*>(at(0x30000));
  c.lda = a_transposed(l) ? m : k;
  c.ldb = b_transposed(l) ? k : n;
  c.ldc = n;
  return c;
}

TEST(GemmCall, PackedCallsMatchProblemPackedAlignment) {
  for (Precision p : kAllPrecisions) {
    if (is_fp8(p)) {
      EXPECT_NE(invalid_reason(packed(p, Layout::kNT, 128, 64, 32)).find("scale"), std::string::npos);
      GemmCall c = packed(p, Layout::kNT, 128, 64, 32);
      c.scale_a = static_cast<float const*>(at(0x40000));
      c.scale_b = static_cast<float const*>(at(0x40010));
      EXPECT_EQ(invalid_reason(c), "");
      EXPECT_EQ(call_alignment(c), 16);
      continue;
    }
    for (Layout l : kAllLayouts) {
      for (auto [m, n, k] : {std::tuple{128, 64, 32}, std::tuple{100, 70, 50}, std::tuple{33, 17, 9}}) {
        GemmCall const c = packed(p, l, m, n, k);
        EXPECT_EQ(invalid_reason(c), "");
        Problem q;
        q.m = m; q.n = n; q.k = k; q.precision = p; q.layout = l;
        EXPECT_EQ(call_alignment(c), q.packed_alignment()) << q.describe();
        EXPECT_EQ(call_problem(c).align, call_alignment(c));
      }
    }
  }
}

TEST(GemmCall, PointerOffsetsAndPaddedLeadingDimensionsSetTheClass) {
  GemmCall c = packed(Precision::kFP32, Layout::kNN, 128, 128, 128);
  EXPECT_EQ(call_alignment(c), 16);
  c.a = at(0x10004);  // one float in
  EXPECT_EQ(call_alignment(c), 4);
  c.a = at(0x10008);
  EXPECT_EQ(call_alignment(c), 8);
  c.a = at(0x10000);
  c.ldb = 130;  // 520 bytes: 8-byte class
  EXPECT_EQ(call_alignment(c), 8);
  c.ldb = 132;
  EXPECT_EQ(call_alignment(c), 16);
  c.ldc = 129;
  EXPECT_EQ(call_alignment(c), 4);
  GemmCall h = packed(Precision::kBF16, Layout::kTN, 64, 64, 64);
  h.c = const_cast<void*>(at(0x30002));
  EXPECT_EQ(call_alignment(h), 2);
}

TEST(GemmCall, BadArgumentsAreNamed) {
  GemmCall c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.lda = 15;
  EXPECT_NE(invalid_reason(c).find("lda = 15 is less than max(1, K) = 16"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kTN, 64, 32, 16);
  c.lda = 63;
  EXPECT_NE(invalid_reason(c).find("lda = 63 is less than max(1, M) = 64"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNT, 64, 32, 16);
  c.ldb = 15;
  EXPECT_NE(invalid_reason(c).find("ldb"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.ldc = 31;
  EXPECT_NE(invalid_reason(c).find("ldc"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNN, -1, 32, 16);
  EXPECT_NE(invalid_reason(c).find("M = -1"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.k = std::int64_t{1} << 32;
  EXPECT_NE(invalid_reason(c).find("out of range"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.c = nullptr;
  EXPECT_EQ(invalid_reason(c), "C is null");
  c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.b = nullptr;
  EXPECT_EQ(invalid_reason(c), "A or B is null");
  c.k = 0;  // nothing is read from A or B
  c.lda = 1;
  c.ldb = 32;
  EXPECT_EQ(invalid_reason(c), "");
  c = packed(Precision::kFP32, Layout::kNN, 64, 32, 16);
  c.a = at(0x10002);
  EXPECT_NE(invalid_reason(c).find("4-byte fp32 element"), std::string::npos);
  c = packed(Precision::kFP32, Layout::kNN, 0, 32, 16);
  c.a = c.b = nullptr;
  c.c = nullptr;
  EXPECT_EQ(invalid_reason(c), "");  // empty C: nothing to touch
}

TEST(GemmCall, Fp8CallsNeedAlignedScalesLayoutNtAndWholeSixteenByteRows) {
  auto const scaled = [](GemmCall c) {
    c.scale_a = static_cast<float const*>(at(0x40000));
    c.scale_b = static_cast<float const*>(at(0x40010));
    return c;
  };
  GemmCall const ok = scaled(packed(Precision::kE4M3, Layout::kNT, 100, 64, 64));
  EXPECT_EQ(invalid_reason(ok), "");
  GemmCall c = ok;
  c.scale_b = nullptr;
  EXPECT_NE(invalid_reason(c).find("one scale per operand"), std::string::npos);
  c = ok;
  c.scale_a = static_cast<float const*>(at(0x40004));  // cuBLASLt refuses 4-byte offsets
  EXPECT_NE(invalid_reason(c).find("16-byte aligned"), std::string::npos);
  // Every layout (operands stored MN-major are copied K-major first), but whole 16-byte rows:
  // K off 16, and an operand stored MN-major whose M or N is off 16.
  for (Layout l : kAllLayouts) {
    EXPECT_EQ(invalid_reason(scaled(packed(Precision::kE4M3, l, 64, 64, 64))), "") << to_string(l);
  }
  EXPECT_NE(invalid_reason(scaled(packed(Precision::kE4M3, Layout::kNN, 64, 40, 64)))
                .find("B stored K×N (layout NN) needs N a multiple of 16"),
            std::string::npos);
  EXPECT_NE(invalid_reason(scaled(packed(Precision::kE4M3, Layout::kNT, 64, 64, 40)))
                .find("K a multiple of 16"),
            std::string::npos);
  // Whole 16-byte rows and bases: a padded lda of 72 bytes, or C two bytes in.
  c = ok;
  c.lda = 72;
  EXPECT_NE(invalid_reason(c).find("alignment class is 8"), std::string::npos);
  c = ok;
  c.c = const_cast<void*>(at(0x30002));
  EXPECT_NE(invalid_reason(c).find("alignment class is 2"), std::string::npos);
  // Scales belong to FP8 calls only.
  for (Precision p : {Precision::kFP32, Precision::kTF32, Precision::kFP16, Precision::kBF16}) {
    EXPECT_NE(invalid_reason(scaled(packed(p, Layout::kNT, 64, 64, 64)))
                  .find("scales apply to FP8 calls only"),
              std::string::npos)
        << to_string(p);
  }
  // An empty C needs nothing, scales included.
  c = packed(Precision::kE4M3, Layout::kNT, 0, 64, 64);
  EXPECT_EQ(invalid_reason(c), "");
  // Row-wise: the same rules, and a missing vector is named as one.
  GemmCall const row = scaled(packed(Precision::kE4M3Row, Layout::kNT, 100, 64, 64));
  EXPECT_EQ(invalid_reason(row), "");
  c = row;
  c.scale_a = nullptr;
  EXPECT_NE(invalid_reason(c).find("e4m3-row calls need a vector of scales per operand"),
            std::string::npos)
      << invalid_reason(c);
  EXPECT_NE(invalid_reason(scaled(packed(Precision::kE4M3Row, Layout::kTT, 72, 64, 64)))
                .find("A stored K×M (layout TT) needs M a multiple of 16"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmtune
