// Problem: shape parsing, packed leading dimensions, alignment classes.
#include <gtest/gtest.h>

#include "src/core/error.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

TEST(Problem, ParsesShapes) {
  Problem p = parse_shape("4096x1024x512");
  EXPECT_EQ(p.m, 4096);
  EXPECT_EQ(p.n, 1024);
  EXPECT_EQ(p.k, 512);
  EXPECT_EQ(parse_shape("7,8,9").n, 8);
  EXPECT_EQ(parse_shape("1X1X1").k, 1);
  EXPECT_EQ(p.shape(), "4096x1024x512");
}

TEST(Problem, RejectsBadShapesNamingTheText) {
  for (char const* bad : {"", "0x4x4", "4x4", "-1x2x3", "4x4x4x4", "axbxc", "4x4x", "99999999999x1x1",
                          "4x4x16777217", "1.5x2x3", " 4x4x4"}) {
    try {
      parse_shape(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (UsageError const& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("MxNxK"), std::string::npos);
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

TEST(Problem, LeadingDimensionsFollowTheLayout) {
  Problem p = parse_shape("3x5x7", Precision::kFP32, Layout::kNN);
  EXPECT_EQ(p.lda(), 7);
  EXPECT_EQ(p.ldb(), 5);
  EXPECT_EQ(p.ldc(), 5);
  p.layout = Layout::kTT;
  EXPECT_EQ(p.lda(), 3);
  EXPECT_EQ(p.ldb(), 7);
}

// Cᵀ = op(B)ᵀ·op(A)ᵀ over the same storage: the operands trade places with their leading
// dimensions, and the layout flags with them.
TEST(Problem, TransposedTradesTheOperands) {
  for (Layout layout : kAllLayouts) {
    Problem const p = parse_shape("3x5x7", Precision::kBF16, layout);
    Problem const t = p.transposed();
    EXPECT_EQ(t.m, 5);
    EXPECT_EQ(t.n, 3);
    EXPECT_EQ(t.k, 7);
    EXPECT_EQ(t.lda(), p.ldb()) << to_string(layout);
    EXPECT_EQ(t.ldb(), p.lda()) << to_string(layout);
    EXPECT_EQ(a_transposed(t.layout), !b_transposed(layout));
    EXPECT_EQ(b_transposed(t.layout), !a_transposed(layout));
    EXPECT_EQ(t.transposed(), p);
  }
  EXPECT_EQ(parse_shape("3x5x7", Precision::kFP16, Layout::kNN).transposed().layout, Layout::kTT);
  EXPECT_EQ(parse_shape("3x5x7", Precision::kFP16, Layout::kNT).transposed().layout, Layout::kNT);
}

TEST(Problem, AlignmentClass) {
  EXPECT_EQ(alignment_class(0), 16);
  EXPECT_EQ(alignment_class(4), 4);
  EXPECT_EQ(alignment_class(12), 4);
  EXPECT_EQ(alignment_class(4000), 16);
  EXPECT_EQ(alignment_class(6), 2);
  EXPECT_EQ(parse_shape("4096x4096x4096").resolved().align, 16);
  EXPECT_EQ(parse_shape("1000x1000x1000").resolved().align, 16);  // 4000-byte rows
  EXPECT_EQ(parse_shape("128x128x7").resolved().align, 4);        // lda = 7 floats
  EXPECT_EQ(parse_shape("8x8x6", Precision::kBF16).resolved().align, 4);
  Problem q = parse_shape("8x8x8");
  q.align = 4;
  EXPECT_EQ(q.resolved().align, 4);  // an explicit class is kept
}

TEST(Problem, FlopsAndBytes) {
  Problem p = parse_shape("2x3x4");
  EXPECT_DOUBLE_EQ(p.flops(), 48.0);
  EXPECT_DOUBLE_EQ(p.min_bytes(), 4.0 * (8 + 12 + 6));
  EXPECT_EQ(p.describe(), "2x3x4 fp32 NN a4");  // 12-byte rows of B and C
  // e4m3: 1-byte A and B, 2-byte (bf16) C.
  Problem const q = parse_shape("2x8x16", Precision::kE4M3, Layout::kNT);
  EXPECT_DOUBLE_EQ(q.min_bytes(), 1.0 * (32 + 128) + 2.0 * 16);
  EXPECT_EQ(q.packed_alignment(), 16);  // 16-byte rows of A and B, 16-byte rows of C
  EXPECT_EQ(parse_shape("2x8x24", Precision::kE4M3, Layout::kNT).packed_alignment(), 8);
}

TEST(Problem, Fp8TakesWhole16ByteRowsInEveryLayout) {
  EXPECT_EQ(parse_shape("100x4096x4096", Precision::kE4M3, Layout::kNT).unsupported_reason(), "");
  EXPECT_EQ(parse_shape("7x8x16", Precision::kE4M3, Layout::kNT).unsupported_reason(), "");
  for (Layout l : kAllLayouts) {
    EXPECT_EQ(parse_shape("64x64x64", Precision::kE4M3, l).unsupported_reason(), "") << to_string(l);
  }
  // An operand stored MN-major needs its M (A stored K×M) or N (B stored K×N) in 16 bytes.
  std::string const tn = parse_shape("100x64x64", Precision::kE4M3, Layout::kTN).unsupported_reason();
  EXPECT_NE(tn.find("A stored K×M (layout TN) needs M a multiple of 16"), std::string::npos) << tn;
  std::string const nn = parse_shape("64x40x64", Precision::kE4M3, Layout::kNN).unsupported_reason();
  EXPECT_NE(nn.find("B stored K×N (layout NN) needs N a multiple of 16"), std::string::npos) << nn;
  EXPECT_EQ(parse_shape("100x40x64", Precision::kE4M3, Layout::kNT).unsupported_reason(), "");
  std::string const k = parse_shape("64x64x40", Precision::kE4M3, Layout::kNT).unsupported_reason();
  EXPECT_NE(k.find("K=40"), std::string::npos) << k;
  EXPECT_NE(parse_shape("64x60x64", Precision::kE4M3, Layout::kNT).unsupported_reason(), "");
  // Row-wise scales change nothing of what FP8 storage can take.
  EXPECT_EQ(parse_shape("100x4096x4096", Precision::kE4M3Row, Layout::kNT).unsupported_reason(), "");
  EXPECT_EQ(parse_shape("72x64x64", Precision::kE4M3Row, Layout::kTN).unsupported_reason().rfind("e4m3-row with A stored K×M", 0), 0u);
  EXPECT_EQ(parse_shape("100x4096x4112", Precision::kE4M3Blk, Layout::kNT).unsupported_reason(), "");
  EXPECT_EQ(parse_shape("64x72x64", Precision::kE4M3Blk, Layout::kNN).unsupported_reason().rfind("e4m3-blk with B stored K×N", 0), 0u);
  for (Precision p : {Precision::kFP32, Precision::kTF32, Precision::kFP16, Precision::kBF16}) {
    for (Layout l : kAllLayouts) {
      EXPECT_EQ(parse_shape("33x17x9", p, l).unsupported_reason(), "");
    }
  }
}

}  // namespace gemmtune
