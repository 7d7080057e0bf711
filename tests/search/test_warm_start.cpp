// Warm start: nearest tuned shapes of the same GPU and precision, their fastest configs first;
// and a search that starts from them.
#include <gtest/gtest.h>

#include "tests/search/fake_gpu.hpp"
#include "tests/search/memory_store.hpp"
#include "tuner/search/warm_start.hpp"

namespace gemmtune {
namespace {

Problem shape(std::string const& s, Precision p = Precision::kFP32) {
  Problem q = parse_shape(s);
  q.precision = p;
  return q.resolved();
}

Trial trial(GpuIdentity const& gpu, Problem const& p, std::string const& id, double ms,
            Disposition d = Disposition::kOk) {
  Trial t;
  t.gpu = gpu;
  t.problem = p;
  t.config = parse_kernel_id(id);
  t.disposition = d;
  t.time_ms = d == Disposition::kOk ? ms : 0.0;
  return t;
}

}  // namespace

TEST(WarmStart, DistanceIsLogScaleAndCountsLayout) {
  Problem a = shape("1024x1024x1024");
  Problem b = shape("2048x1024x1024");
  Problem c = a;
  c.layout = Layout::kTN;
  EXPECT_DOUBLE_EQ(shape_distance(a, b), 1.0);
  EXPECT_DOUBLE_EQ(shape_distance(a, c), 1.0);
  EXPECT_DOUBLE_EQ(shape_distance(a, shape("4096x4096x4096")), 6.0);
}

TEST(WarmStart, NearestProblemsFirstSamePrecisionOnly) {
  std::vector<TunedProblem> tuned = {
      {shape("4096x4096x4096"), {parse_kernel_id("f:X=4"), parse_kernel_id("f:X=5")}},
      {shape("1024x1024x1024", Precision::kFP16), {parse_kernel_id("f:X=9")}},
      {shape("1024x1024x2048"), {parse_kernel_id("f:X=1"), parse_kernel_id("f:X=4")}},
      {shape("1024x1024x1024"), {parse_kernel_id("f:X=7")}},  // the target itself
  };
  WarmStartOptions o;
  o.neighbours = 2;
  o.per_neighbour = 2;
  auto const w = warm_start_from(shape("1024x1024x1024"), tuned, o);
  std::vector<std::string> ids;
  for (auto const& c : w) ids.push_back(c.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"f:X=1", "f:X=4", "f:X=5"}));  // X=4 once
}

TEST(WarmStart, AnInvalidConfigIsStoodInForByItsValidOneKnobNeighbours) {
  std::vector<KernelConfig> const candidates = {
      parse_kernel_id("f:A=1,B=1,C=2"), parse_kernel_id("f:A=2,B=2,C=1"),
      parse_kernel_id("f:A=2,B=1,C=3"), parse_kernel_id("f:A=3,B=2,C=2"),
      parse_kernel_id("f:A=2,B=3,C=2"), parse_kernel_id("g:A=2,B=1,C=3"),
      parse_kernel_id("f:A=2,B=1"),     parse_kernel_id("f:A=2,B=1,C=4")};
  auto ids = [](std::vector<KernelConfig> const& v) {
    std::vector<std::string> out;
    for (auto const& c : v) out.push_back(c.id());
    return out;
  };
  // f:A=2,B=1,C=2 is not a candidate. One knob away, in candidate order: A=1, C=3, B=3, C=4;
  // two knobs away (B=2,C=1 and A=3,B=2), another family or another parameter list: not.
  EXPECT_EQ(ids(one_step_valid(parse_kernel_id("f:A=2,B=1,C=2"), candidates, 3)),
            (std::vector<std::string>{"f:A=1,B=1,C=2", "f:A=2,B=1,C=3", "f:A=2,B=3,C=2"}));
  EXPECT_EQ(ids(one_step_valid(parse_kernel_id("f:A=2,B=1,C=2"), candidates, 1)),
            (std::vector<std::string>{"f:A=1,B=1,C=2"}));
  EXPECT_TRUE(one_step_valid(parse_kernel_id("f:A=3,B=3,C=3"), candidates, 3).empty());
  EXPECT_TRUE(one_step_valid(parse_kernel_id("h:A=2,B=1,C=2"), candidates, 3).empty());
}

TEST(WarmStart, ReadsTheFastestVerifiedConfigsFromTheStore) {
  MemoryStore store;
  GpuIdentity const gpu{"Test GPU", 9, 0, 4};
  GpuIdentity const other{"Other GPU", 8, 0, 4};
  Problem const near = shape("128x64x64");
  store.record_trial(trial(gpu, near, "testfam:X=2,Y=1", 3.0));
  store.record_trial(trial(gpu, near, "testfam:X=5,Y=1", 1.0));
  store.record_trial(trial(gpu, near, "testfam:X=8,Y=1", 0.0, Disposition::kWrongResult));
  store.record_trial(trial(gpu, near, "testfam:X=4,Y=2", 2.0));
  store.record_trial(trial(other, shape("64x64x64"), "testfam:X=0,Y=1", 0.5));
  WarmStartOptions o;
  o.per_neighbour = 2;
  auto const w = warm_start_configs(store, gpu, shape("64x64x64"), o);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].id(), "testfam:X=5,Y=1");
  EXPECT_EQ(w[1].id(), "testfam:X=4,Y=2");
  EXPECT_EQ(store.tuned_problems(gpu, Precision::kFP32).size(), 1u);
  EXPECT_TRUE(store.tuned_problems(gpu, Precision::kFP16).empty());
}

TEST(WarmStart, AStoredIdWithoutALaterParameterComesBackCanonical) {
  MemoryStore store;
  GpuIdentity const gpu{"Test GPU", 9, 0, 4};
  Problem const near = shape("4096x4096x2048", Precision::kBF16);
  store.record_trial(trial(gpu, near, "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1", 1.0));
  auto const w = warm_start_configs(store, gpu, shape("4096x4096x4096", Precision::kBF16));
  ASSERT_EQ(w.size(), 1u);
  // The search compares warm configs with its candidates by id: EP=0, CA=0, TU=0, PL=1, ML=0,
  // SW=0, RP=16 and LD=0 are what the old id named.
  EXPECT_EQ(w[0].id(),
            "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=0,TU=0,PL=1,ML=0,SW=0,"
            "RP=16,LD=0");
}

TEST(WarmStart, AGuidedSearchOfANewShapeStartsFromItsNeighbour) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o;
  o.families = {&fam};
  o.retime_top = 0;
  o.strategy = "evolution";
  o.budget.evaluations = 3;
  // A tuned neighbour whose best is X=6,Y=2 (for 64x64x64 the best is X=5,Y=1).
  GpuIdentity const g = gpu.device().gpu;
  store.record_trial(trial(g, shape("128x64x64"), "testfam:X=6,Y=2", 0.4));
  o.problems = {parse_shape("64x64x64")};
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].warm_start, 1);
  EXPECT_EQ(r.problems[0].strategy, "evolution");
  ASSERT_GE(store.trials.size(), 2u);
  EXPECT_EQ(store.trials[1].config.id(), "testfam:X=6,Y=2");  // first trial of the new shape
  EXPECT_EQ(store.trials[1].problem, shape("64x64x64"));
}

TEST(WarmStart, AutoIsExhaustiveWithoutBudgetAndEvolutionWithOne) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o;
  o.families = {&fam};
  o.retime_top = 0;
  o.problems = {parse_shape("64x64x64")};
  EXPECT_EQ(SearchSession(gpu, store, fake_compile(), "/tmp").run(o).problems[0].strategy,
            "exhaustive");
  o.budget.evaluations = 4;
  o.problems = {parse_shape("32x64x64")};
  EXPECT_EQ(SearchSession(gpu, store, fake_compile(), "/tmp").run(o).problems[0].strategy,
            "evolution");
}

}  // namespace gemmtune
