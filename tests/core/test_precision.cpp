// Precision, layout and disposition text forms.
#include <gtest/gtest.h>

#include "src/core/disposition.hpp"
#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {

TEST(Precision, RoundTripsAndRejects) {
  for (Precision p : kAllPrecisions) EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_EQ(parse_precision("BF16"), Precision::kBF16);
  EXPECT_THROW(parse_precision("fp64"), UsageError);
  EXPECT_THROW(parse_precision(""), UsageError);
  EXPECT_EQ(input_bytes(Precision::kTF32), 4);
  EXPECT_EQ(input_bytes(Precision::kFP16), 2);
  EXPECT_EQ(input_bytes(Precision::kE4M3), 1);
  EXPECT_EQ(output_bytes(Precision::kE4M3), 2);
  EXPECT_EQ(output_precision(Precision::kE4M3), Precision::kBF16);
  EXPECT_EQ(output_precision(Precision::kFP16), Precision::kFP16);
  EXPECT_TRUE(is_fp8(Precision::kE4M3));
  EXPECT_FALSE(is_fp8(Precision::kBF16));
  EXPECT_EQ(parse_precision("E4M3"), Precision::kE4M3);
  // Row-wise FP8: the same storage, its own name (the scaling is part of the problem key).
  EXPECT_EQ(parse_precision("e4m3-row"), Precision::kE4M3Row);
  EXPECT_EQ(to_string(Precision::kE4M3Row), "e4m3-row");
  EXPECT_EQ(input_bytes(Precision::kE4M3Row), 1);
  EXPECT_EQ(output_precision(Precision::kE4M3Row), Precision::kBF16);
  EXPECT_TRUE(is_fp8(Precision::kE4M3Row));
  EXPECT_TRUE(row_scaled(Precision::kE4M3Row));
  EXPECT_FALSE(row_scaled(Precision::kE4M3));
  EXPECT_FALSE(block_scaled(Precision::kE4M3Row));
  // Block-scaled FP8: its own name too.
  EXPECT_EQ(parse_precision("E4M3-BLK"), Precision::kE4M3Blk);
  EXPECT_EQ(to_string(Precision::kE4M3Blk), "e4m3-blk");
  EXPECT_EQ(input_bytes(Precision::kE4M3Blk), 1);
  EXPECT_EQ(output_precision(Precision::kE4M3Blk), Precision::kBF16);
  EXPECT_TRUE(is_fp8(Precision::kE4M3Blk));
  EXPECT_TRUE(block_scaled(Precision::kE4M3Blk));
  EXPECT_FALSE(row_scaled(Precision::kE4M3Blk));
  EXPECT_EQ(precision_names(),
            "fp32, tf32, fp16, bf16, e4m3, e4m3-row, e4m3-blk, e5m2, e5m2-row or e5m2-blk");
  try {
    parse_precision("e4m3-col");
    ADD_FAILURE() << "accepted";
  } catch (UsageError const& e) {
    EXPECT_STREQ(e.what(),
                 "bad precision 'e4m3-col': expected fp32, tf32, fp16, bf16, e4m3, e4m3-row, "
                 "e4m3-blk, e5m2, e5m2-row or e5m2-blk");
  }
}

// e5m2: an e5m2 A with an e4m3 B, in each of e4m3's scalings, which decide the scale layouts.
TEST(Precision, E5m2TakesTheE4m3Scalings) {
  struct Row {
    Precision p, scaling;
    char const* name;
  };
  for (Row const r : {Row{Precision::kE5M2, Precision::kE4M3, "e5m2"},
                      Row{Precision::kE5M2Row, Precision::kE4M3Row, "e5m2-row"},
                      Row{Precision::kE5M2Blk, Precision::kE4M3Blk, "e5m2-blk"}}) {
    EXPECT_EQ(parse_precision(r.name), r.p);
    EXPECT_EQ(to_string(r.p), r.name);
    EXPECT_TRUE(is_fp8(r.p));
    EXPECT_TRUE(a_is_e5m2(r.p));
    EXPECT_FALSE(a_is_e5m2(r.scaling));
    EXPECT_EQ(fp8_scaling(r.p), r.scaling);
    EXPECT_EQ(fp8_scaling(r.scaling), r.scaling);
    EXPECT_EQ(b_storage_precision(r.p), Precision::kE4M3);
    EXPECT_EQ(input_bytes(r.p), 1);
    EXPECT_EQ(output_precision(r.p), Precision::kBF16);
    EXPECT_EQ(row_scaled(r.p), row_scaled(r.scaling));
    EXPECT_EQ(block_scaled(r.p), block_scaled(r.scaling));
    EXPECT_EQ(scale_a_count(r.p, 100, 4100), scale_a_count(r.scaling, 100, 4100));
    EXPECT_EQ(scale_b_count(r.p, 300, 4100), scale_b_count(r.scaling, 300, 4100));
  }
  for (Precision p : {Precision::kFP32, Precision::kTF32, Precision::kFP16, Precision::kBF16}) {
    EXPECT_FALSE(is_fp8(p));
    EXPECT_EQ(fp8_scaling(p), p);
    EXPECT_EQ(b_storage_precision(p), p);
  }
}

// The block-scale layouts are cuBLASLt's VEC128_32F (A: the M rows of a K block adjacent) and
// BLK128x128_32F (B: a row of K blocks per 128 columns, padded to 4 floats).
TEST(Precision, ScaleCountsAndBlockLayouts) {
  EXPECT_EQ(scale_a_count(Precision::kBF16, 64, 64), 0);
  EXPECT_EQ(scale_b_count(Precision::kBF16, 64, 64), 0);
  EXPECT_EQ(scale_a_count(Precision::kE4M3, 100, 4096), 1);
  EXPECT_EQ(scale_b_count(Precision::kE4M3, 200, 4096), 1);
  EXPECT_EQ(scale_a_count(Precision::kE4M3Row, 100, 4096), 100);
  EXPECT_EQ(scale_b_count(Precision::kE4M3Row, 200, 4096), 200);
  EXPECT_EQ(scale_blocks(128), 1);
  EXPECT_EQ(scale_blocks(129), 2);
  // K = 4096: 32 K blocks; K = 4112: 33, whose B rows pad to 36.
  EXPECT_EQ(scale_a_count(Precision::kE4M3Blk, 100, 4096), 100 * 32);
  EXPECT_EQ(scale_b_count(Precision::kE4M3Blk, 200, 4096), 2 * 32);
  EXPECT_EQ(block_scale_b_stride(4112), 36);
  EXPECT_EQ(scale_b_count(Precision::kE4M3Blk, 257, 4112), 3 * 36);
  EXPECT_EQ(block_scale_a_index(100, 7, 0), 7);
  EXPECT_EQ(block_scale_a_index(100, 7, 3), 307);
  EXPECT_EQ(block_scale_b_index(4112, 127, 5), 5);
  EXPECT_EQ(block_scale_b_index(4112, 128, 5), 41);
  EXPECT_EQ(block_scale_b_index(4112, 300, 32), 2 * 36 + 32);
}

TEST(Layout, RoundTripsAndRejects) {
  for (Layout l : kAllLayouts) EXPECT_EQ(parse_layout(to_string(l)), l);
  EXPECT_EQ(parse_layout("tn"), Layout::kTN);
  EXPECT_TRUE(a_transposed(Layout::kTN));
  EXPECT_FALSE(b_transposed(Layout::kTN));
  EXPECT_THROW(parse_layout("NX"), UsageError);
}

TEST(Disposition, RoundTrips) {
  for (Disposition d : {Disposition::kOk, Disposition::kRejected, Disposition::kCompileError,
                        Disposition::kLaunchError, Disposition::kFault, Disposition::kTimeout,
                        Disposition::kCrash, Disposition::kWrongResult, Disposition::kSkipped}) {
    EXPECT_EQ(parse_disposition(to_string(d)), d);
  }
  EXPECT_THROW(parse_disposition("passed"), Error);
}

TEST(GpuIdentity, ArchTable) {
  EXPECT_EQ(arch_number("sm_90a"), 90);
  EXPECT_EQ(arch_number("sm_86"), 86);
  EXPECT_EQ(arch_number("compute_90"), 0);
  EXPECT_EQ(arch_number("sm_9b"), 0);
  ASSERT_TRUE(arch_limits("sm_86").has_value());
  EXPECT_EQ(arch_limits("sm_86")->max_smem_per_block_optin, 99 * 1024);
  EXPECT_FALSE(arch_limits("sm_75").has_value());
  GpuIdentity g{"NVIDIA H200", 9, 0, 132};
  EXPECT_EQ(g.describe(), "NVIDIA H200 / sm_90 / 132 SMs");
}

}  // namespace gemmtune
