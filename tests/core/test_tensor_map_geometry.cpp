// The stored extent of each TMA operand per layout, and the encoding rules with their reasons.
#include <gtest/gtest.h>

#include "src/core/tensor_map_geometry.hpp"

namespace gemmtune {
namespace {

Problem problem(Layout layout, Precision p = Precision::kBF16) {
  return parse_shape("100x200x300", p, layout).resolved();
}

TEST(TensorMapGeometry, StoredExtentFollowsTheLayout) {
  TensorMapGeometry g;
  // A: M×K (NN) or K×M (TN); B: K×N (NN) or N×K (NT); C: M×N.
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kA, 64, 64, 128}, problem(Layout::kNN), 304, g), "");
  EXPECT_EQ(g.rows, 100u);
  EXPECT_EQ(g.cols, 300u);
  EXPECT_EQ(g.row_stride_bytes, 608u);
  EXPECT_EQ(g.element, TensorElement::kBFloat16);
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kA, 64, 64, 128}, problem(Layout::kTN), 104, g), "");
  EXPECT_EQ(g.rows, 300u);
  EXPECT_EQ(g.cols, 100u);
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kB, 64, 64, 128}, problem(Layout::kNN), 200, g), "");
  EXPECT_EQ(g.rows, 300u);
  EXPECT_EQ(g.cols, 200u);
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kB, 64, 64, 128}, problem(Layout::kNT), 304, g), "");
  EXPECT_EQ(g.rows, 200u);
  EXPECT_EQ(g.cols, 300u);
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kC, 32, 64, 0}, problem(Layout::kTT), 200, g), "");
  EXPECT_EQ(g.rows, 100u);
  EXPECT_EQ(g.cols, 200u);
  EXPECT_EQ(g.box_rows, 32u);
  EXPECT_EQ(g.box_cols, 64u);
}

TEST(TensorMapGeometry, Fp32AndTf32AreFourByteFloats) {
  TensorMapGeometry g;
  ASSERT_EQ(tensor_map_geometry({TmaOperand::kA, 64, 32, 128},
                                problem(Layout::kNN, Precision::kTF32), 300, g),
            "");
  EXPECT_EQ(g.element, TensorElement::kFloat32);
  EXPECT_EQ(g.element_bytes, 4);
  EXPECT_EQ(g.row_stride_bytes, 1200u);
}

TEST(TensorMapGeometry, WorkspaceCopyIsKMajorWithAPaddedStride) {
  TensorMapGeometry g;
  // tf32 B of NN (stored K×N) read from a K-major copy N×K; K=300 padded to 300 (16 bytes =
  // 4 floats), bf16 K=300 padded to 304.
  Problem const tf32 = problem(Layout::kNN, Precision::kTF32);
  TensorMapSpec b{TmaOperand::kB, 64, 32, 128, 4096};
  ASSERT_EQ(tensor_map_geometry(b, tf32, 0, g), "");
  EXPECT_EQ(g.rows, 200u);
  EXPECT_EQ(g.cols, 300u);
  EXPECT_EQ(g.row_stride_bytes, 1200u);
  EXPECT_EQ(kmajor_copy_ld(problem(Layout::kTT)), 304);
  TensorMapSpec a{TmaOperand::kA, 64, 64, 128, 0};
  ASSERT_EQ(tensor_map_geometry(a, problem(Layout::kTT), 0, g), "");
  EXPECT_EQ(g.rows, 100u);
  EXPECT_EQ(g.row_stride_bytes, 608u);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kC, 64, 64, 128, 0}, tf32, 0, g).find("C has no"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 32, 128, 100}, tf32, 0, g)
                .find("multiple of 128"),
            std::string::npos);
}

TEST(TensorMapGeometry, PaddedCopyKeepsTheOrientationWithA128ByteStride) {
  // 100x200x300: A stored 100×300 (NN) or 300×100 (TN), B 300×200 (NN) or 200×300 (NT).
  EXPECT_EQ(padded_copy_ld(TmaOperand::kA, problem(Layout::kNN)), 320);
  EXPECT_EQ(padded_copy_ld(TmaOperand::kA, problem(Layout::kTN)), 128);
  EXPECT_EQ(padded_copy_ld(TmaOperand::kB, problem(Layout::kNN)), 256);
  EXPECT_EQ(padded_copy_ld(TmaOperand::kB, problem(Layout::kNT)), 320);
  EXPECT_EQ(padded_copy_ld(TmaOperand::kA, parse_shape("1x1x1", Precision::kFP16, Layout::kNN)),
            64);
  // The copy has the stored extent; the caller names the stride the descriptor reads.
  TensorMapSpec spec{TmaOperand::kA, 64, 64, 128, 256, true};
  TensorMapGeometry g;
  ASSERT_EQ(tensor_map_geometry(spec, problem(Layout::kTN), 104, g), "");
  EXPECT_EQ(g.rows, 300u);
  EXPECT_EQ(g.cols, 100u);
  EXPECT_EQ(g.row_stride_bytes, 208u);
  // ... and a caller's stride TMA cannot take is refused, not encoded.
  EXPECT_NE(tensor_map_geometry(spec, problem(Layout::kTN), 101, g), "");
  // A padded copy without a place in the workspace is a malformed plan.
  spec.workspace_offset = -1;
  EXPECT_NE(tensor_map_geometry(spec, problem(Layout::kTN), 104, g).find("workspace offset"),
            std::string::npos);
}

TEST(TensorMapGeometry, PaddedCopyOnlyWhereTmaCannotReadInPlace) {
  EXPECT_FALSE(needs_padded_copy(0x1000, 64, 2));
  EXPECT_FALSE(needs_padded_copy(0x1010, 8, 2));
  EXPECT_TRUE(needs_padded_copy(0x1002, 64, 2));   // base off 16 bytes
  EXPECT_TRUE(needs_padded_copy(0x1008, 64, 2));
  EXPECT_TRUE(needs_padded_copy(0x1000, 4095, 2)); // odd stride
  EXPECT_TRUE(needs_padded_copy(0x1000, 12, 2));   // 24-byte rows
  EXPECT_FALSE(needs_padded_copy(0x1000, 12, 4));  // 48-byte rows
}

TEST(TensorMapGeometry, RejectsWhatTheHardwareCannotEncode) {
  TensorMapGeometry g;
  Problem const p = problem(Layout::kNN);
  // bf16 row of 300 elements = 600 bytes: not a multiple of 16.
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 64, 128}, p, 300, g)
                .find("row stride of 600 bytes"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 128, 128}, p, 304, g)
                .find("wider than the 128-byte swizzle"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 300, 64, 128}, p, 304, g).find("outside 1…256"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 4, 0}, p, 304, g)
                .find("not a multiple of 16"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 64, 96}, p, 304, g).find("swizzle of 96"),
            std::string::npos);
  EXPECT_NE(tensor_map_geometry({TmaOperand::kA, 64, 64, 128}, p, 200, g)
                .find("leading dimension 200 < 300"),
            std::string::npos);
}

TEST(TensorMapGeometry, Fp8StoresCInItsOutputType) {
  EXPECT_EQ(stored_precision(TmaOperand::kA, Precision::kE4M3), Precision::kE4M3);
  EXPECT_EQ(stored_precision(TmaOperand::kB, Precision::kE4M3), Precision::kE4M3);
  EXPECT_EQ(stored_precision(TmaOperand::kC, Precision::kE4M3), Precision::kBF16);
  EXPECT_EQ(stored_precision(TmaOperand::kC, Precision::kFP16), Precision::kFP16);
}

}  // namespace
}  // namespace gemmtune
