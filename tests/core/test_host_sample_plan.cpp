// The host-cost sample plan: within its GPU budget, fewer samples before fewer calls, floors kept.
#include <gtest/gtest.h>

#include "src/core/host_sample_plan.hpp"

namespace gemmtune {
namespace {

TEST(HostSamplePlan, ShortGemmsGetTheFullPlan) {
  HostSampleLimits const l;  // 5 × 32 within 20 ms
  EXPECT_EQ(host_sample_plan(l, 0.0035), (HostSamplePlan{5, 32}));
  EXPECT_EQ(host_sample_plan(l, 0.125), (HostSamplePlan{5, 32}));  // 20 ms exactly
  EXPECT_EQ(host_sample_plan(l, 0.0), (HostSamplePlan{5, 32}));    // unknown time
  EXPECT_EQ(host_sample_plan(l, -1.0), (HostSamplePlan{5, 32}));
}

TEST(HostSamplePlan, LongGemmsLoseSamplesThenCallsAndStayWithinTheBudget) {
  HostSampleLimits const l;
  // 0.2 ms: 5 × 32 × 0.2 = 32 ms; 4 × 32 = 25.6; 3 × 32 = 19.2 fits.
  EXPECT_EQ(host_sample_plan(l, 0.2), (HostSamplePlan{3, 32}));
  // 1.6 ms (8192³ bf16): 3 samples of 4 calls, 19.2 ms.
  EXPECT_EQ(host_sample_plan(l, 1.6), (HostSamplePlan{3, 4}));
  for (double ms : {0.13, 0.5, 1.0, 3.3, 6.6}) {
    HostSamplePlan const p = host_sample_plan(l, ms);
    EXPECT_LE(p.samples * p.calls * ms, l.gpu_budget_ms) << ms;
    EXPECT_GE(p.samples, l.min_samples) << ms;
  }
}

TEST(HostSamplePlan, FloorsHoldWhenEvenOneCallIsOverTheBudget) {
  HostSampleLimits const l;
  // 48 ms (8192³ fp32): the floors, 3 samples of 1 call, are all that is left.
  EXPECT_EQ(host_sample_plan(l, 48.0), (HostSamplePlan{3, 1}));
  HostSampleLimits bench{5, 3, 64, 16, 1000.0};
  EXPECT_EQ(host_sample_plan(bench, 21.0), (HostSamplePlan{3, 16}));  // 15 fit; floor 16
  EXPECT_EQ(host_sample_plan(bench, 5.0), (HostSamplePlan{3, 64}));   // 3 × 64 × 5 = 960
  EXPECT_EQ(host_sample_plan(bench, 10.0), (HostSamplePlan{3, 33}));  // 1000 / 30 = 33
}

TEST(HostSamplePlan, InconsistentLimitsAreClamped) {
  // Floors above the maxima, zero maxima: still a plan of at least one call.
  EXPECT_EQ(host_sample_plan({2, 9, 4, 99, 1.0}, 50.0), (HostSamplePlan{2, 4}));
  EXPECT_EQ(host_sample_plan({0, 0, 0, 0, 1.0}, 50.0), (HostSamplePlan{1, 1}));
}

}  // namespace
}  // namespace gemmtune
