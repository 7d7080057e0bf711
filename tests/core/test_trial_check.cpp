// trial_defect and baseline_defect: every figure a search writes passes; each impossible value
// (negative, NaN or infinite times, spreads that miss the median, impossible resources) is named.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "src/core/trial_check.hpp"

namespace gemmtune {
namespace {

Trial good() {
  Trial t;
  t.problem = parse_shape("256x128x64").resolved();
  t.config = parse_kernel_id("naive:BM=32,BN=32");
  t.disposition = Disposition::kOk;
  t.time_ms = 0.5;
  t.min_ms = 0.45;
  t.spread_lo_ms = 0.48;
  t.spread_hi_ms = 0.52;
  t.spread_rounds = 6;
  t.tflops = t.problem.flops() / (t.time_ms * 1e-3) / 1e12;
  t.cublas_ms = 0.4;
  t.max_err_ratio = 0.1;
  t.registers = 64;
  t.created_at = 1764633600;
  return t;
}

TEST(TrialCheck, WhatASearchWritesPasses) {
  EXPECT_EQ(trial_defect(good()), "");
  Trial failed = good();
  failed.disposition = Disposition::kWrongResult;
  failed.time_ms = failed.tflops = failed.min_ms = 0.0;
  failed.spread_lo_ms = failed.spread_hi_ms = 0.0;
  failed.spread_rounds = 0;
  failed.max_abs_err = std::numeric_limits<double>::infinity();  // a NaN/inf output was caught
  EXPECT_EQ(trial_defect(failed), "");
  Trial old = good();  // rows of caches from before the spread was stored
  old.spread_lo_ms = old.spread_hi_ms = 0.0;
  old.spread_rounds = 0;
  EXPECT_EQ(trial_defect(old), "");
}

TEST(TrialCheck, EachImpossibleFigureIsNamed) {
  struct Case {
    void (*edit)(Trial&);
    char const* field;
  };
  Case const cases[] = {
      {[](Trial& t) { t.time_ms = -5.0; }, "time_ms: -5 is not a positive"},
      {[](Trial& t) { t.time_ms = 0.0; }, "time_ms: 0 is not a positive"},
      {[](Trial& t) { t.time_ms = std::nan(""); }, "time_ms: NaN"},
      {[](Trial& t) { t.tflops = std::numeric_limits<double>::infinity(); }, "tflops: inf"},
      {[](Trial& t) { t.cublas_ms = -1.0; }, "cublas_ms: -1"},
      {[](Trial& t) { t.cublaslt_ms = std::nan(""); }, "cublaslt_ms: NaN"},
      {[](Trial& t) { t.min_ms = 0.9; }, "min_ms: 0.9 is above the median"},
      {[](Trial& t) { t.spread_hi_ms = 0.49; }, "spread: [0.48, 0.49] ms does not contain"},
      {[](Trial& t) { t.spread_rounds = -2; }, "spread_rounds: -2"},
      {[](Trial& t) { t.max_err_ratio = std::nan(""); }, "max_err_ratio: NaN is not a possible error of a verified"},
      {[](Trial& t) { t.registers = 300; }, "registers: 300"},
      {[](Trial& t) { t.spill_bytes = -4; }, "spill_bytes: -4"},
      {[](Trial& t) { t.smem_bytes = 1 << 24; }, "smem_bytes"},
      {[](Trial& t) { t.exact_mismatches = -1; }, "exact_mismatches: -1"},
      {[](Trial& t) { t.problem.m = 0; }, "problem m: 0 is not in"},
      {[](Trial& t) { t.problem.align = 3; }, "problem align: 3"},
      {[](Trial& t) { t.compile_ms = -0.5; }, "compile_ms"},
  };
  for (Case const& c : cases) {
    Trial t = good();
    c.edit(t);
    std::string const why = trial_defect(t);
    EXPECT_NE(why.find(c.field), std::string::npos) << "expected '" << c.field << "', got '" << why << "'";
  }
  Trial failed = good();
  failed.disposition = Disposition::kTimeout;
  failed.time_ms = -1.0;  // no figure, but still no negative one
  EXPECT_NE(trial_defect(failed).find("time_ms"), std::string::npos);
}

TEST(TrialCheck, BaselineFiguresAreNonNegativeAndFinite) {
  Problem const p = parse_shape("64x64x64").resolved();
  EXPECT_EQ(baseline_defect(p, 0.1, 0.0), "");
  EXPECT_NE(baseline_defect(p, -0.1, 0.1).find("cublas_ms: -0.1"), std::string::npos);
  EXPECT_NE(baseline_defect(p, 0.1, std::numeric_limits<double>::infinity()).find("cublaslt_ms: inf"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmtune
