// TunableOp CSV records: column-major signatures to row-major problems, counts, skipped ops,
// and bad lines named by number.
#include "tuner/shapes/tunableop_shapes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

std::string error_of(std::string const& text) {
  try {
    read_tunableop_csv(text, "untuned.csv");
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

TEST(TunableOpShapes, SignaturesBecomeRowMajorProblems) {
  // nn.Linear(4096 -> 1024) on 16 tokens: torch calls gemm('t', 'n', m=1024, n=16, k=4096).
  TunableOpShapes const s = read_tunableop_csv(
      "Validator,PT_VERSION,2.11.0\r\n"
      "GemmTunableOp_BFloat16_TN,tn_1024_16_4096_ld_4096_4096_1024\r\n"
      "GemmTunableOp_BFloat16_TN,tn_1024_16_4096_ld_4096_4096_1024\n"
      "GemmAndBiasTunableOp_Half_NN,nn_512_64_256\n"
      "GemmTunableOp_float_NT,nt_300_200_100\n"
      "GemmStridedBatchedTunableOp_BFloat16_NN,nn_64_64_64_B_8_ld_64_64_64\n"
      "GemmTunableOp_double_NN,nn_8_8_8\n"
      "ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN,tn_4096_4096_4096\n"
      "\n",
      "untuned.csv");
  ASSERT_EQ(s.gemms.size(), 3u);
  Problem const& linear = s.gemms[0].problem;
  EXPECT_EQ(linear.m, 16);
  EXPECT_EQ(linear.n, 1024);
  EXPECT_EQ(linear.k, 4096);
  EXPECT_EQ(linear.precision, Precision::kBF16);
  EXPECT_EQ(linear.layout, Layout::kNT);
  EXPECT_EQ(s.gemms[0].calls, 2);
  EXPECT_EQ(s.gemms[1].problem.m, 64);
  EXPECT_EQ(s.gemms[1].problem.n, 512);
  EXPECT_EQ(s.gemms[1].problem.precision, Precision::kFP16);
  EXPECT_EQ(s.gemms[1].problem.layout, Layout::kNN);
  EXPECT_EQ(s.gemms[1].op, "GemmAndBiasTunableOp");
  EXPECT_EQ(s.gemms[2].problem.layout, Layout::kTN);  // transa n, transb t: A transposed
  EXPECT_EQ(s.gemms[2].problem.precision, Precision::kFP32);
  ASSERT_EQ(s.skipped.size(), 3u);
  EXPECT_EQ(s.skipped[0].first, "GemmStridedBatchedTunableOp (BFloat16)");
  EXPECT_EQ(s.skipped[1].first, "GemmTunableOp (double)");
  EXPECT_EQ(s.skipped[2].first, "ScaledGemmTunableOp (Float8_e4m3fn_Float8_e4m3fn_BFloat16)");
}

TEST(TunableOpShapes, BadLinesNameTheLine) {
  EXPECT_NE(error_of("Validator,x\nGemmTunableOp_Half_NN\n").find("untuned.csv:2: expected OpSignature,ParamSignature"),
            std::string::npos);
  EXPECT_NE(error_of("Gemm,nn_1_2_3\n").find("untuned.csv:1: expected an op signature"),
            std::string::npos);
  EXPECT_NE(error_of("GemmTunableOp_Half_NN,nn_1_2\n").find("expected a parameter signature"),
            std::string::npos);
  EXPECT_NE(error_of("GemmTunableOp_Half_NN,xn_1_2_3\n").find("expected the transposes"),
            std::string::npos);
  EXPECT_NE(error_of("GemmTunableOp_Half_NT,nn_1_2_3\n").find("the op's layout NT and the "
                                                             "parameters' nn differ"),
            std::string::npos);
  EXPECT_NE(error_of("GemmTunableOp_Half_NN,nn_1_0_3\n").find("expected M, N and K from 1"),
            std::string::npos);
  EXPECT_NE(error_of("GemmTunableOp_Half_NN,nn_1_2_3_ld_1_2\n").find("parameter signature"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmtune
