// The search loop: pruning, dispositions, best, budget, resume.
#include <gtest/gtest.h>

#include <algorithm>

#include "src/core/error.hpp"
#include "tests/search/fake_gpu.hpp"
#include "tests/search/memory_store.hpp"

namespace gemmtune {
namespace {

SearchOptions options_for(TestFamily const& fam) {
  SearchOptions o;
  o.problems = {parse_shape("64x64x64")};
  o.families = {&fam};
  o.arguments = "test";
  o.retime_top = 0;  // re-timing has its own test
  return o;
}

}  // namespace

TEST(SearchSession, FindsTheBestAndRecordsEveryTrial) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchSession s(gpu, store, fake_compile(), "/tmp");
  SearchReport r = s.run(options_for(fam));
  ASSERT_EQ(r.problems.size(), 1u);
  ProblemOutcome const& o = r.problems[0];
  EXPECT_EQ(o.candidates, 20);  // 10 X × {1, 2}; Y = 64 pruned
  EXPECT_EQ(o.pruned, 10);
  EXPECT_EQ(o.evaluated, 20);
  EXPECT_EQ(store.trials.size(), 20u);
  ASSERT_TRUE(o.best.has_value());
  EXPECT_EQ(o.best->config.id(), "testfam:X=5,Y=1");
  EXPECT_DOUBLE_EQ(o.best->time_ms, 1.1);
  EXPECT_DOUBLE_EQ(o.best->cublas_ms, 2.0);
  EXPECT_EQ(o.dispositions.at("compile_error"), 2);
  EXPECT_EQ(o.dispositions.at("skipped"), 2);       // X = 7 spills: never timed
  EXPECT_EQ(o.dispositions.at("wrong_result"), 2);
  EXPECT_EQ(o.dispositions.at("timeout"), 2);
  EXPECT_EQ(o.dispositions.at("ok"), 12);
  EXPECT_EQ(gpu.evals, 20 - 2 - 2);                 // no GPU time for compile errors or spills
  EXPECT_EQ(store.searches.at(0).finished_at, 2);
  EXPECT_EQ(store.baselines.size(), 1u);
}

TEST(SearchSession, ResumeRedoesNothingFinishedOrFailed) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.budget.evaluations = 7;
  SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(store.trials.size(), 7u);
  o.budget = Budget{};
  int compiles = 0;
  ScriptedGpu gpu2;
  SearchReport r = SearchSession(gpu2, store, fake_compile(&compiles), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].resumed, 7);
  EXPECT_EQ(r.problems[0].evaluated, 13);
  EXPECT_EQ(compiles, 13);
  EXPECT_EQ(store.trials.size(), 20u);
  ASSERT_TRUE(r.problems[0].best.has_value());
  EXPECT_EQ(r.problems[0].best->config.id(), "testfam:X=5,Y=1");
}

TEST(SearchSession, TheSameBudgetedSearchTwiceRunsNothingNew) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.strategy = "random";
  o.budget.evaluations = 6;
  SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  int compiles = 0;
  SearchReport r = SearchSession(gpu, store, fake_compile(&compiles), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].evaluated, 0);
  EXPECT_EQ(r.problems[0].resumed, 6);
  EXPECT_EQ(compiles, 0);
  EXPECT_EQ(store.trials.size(), 6u);
}

TEST(SearchSession, RandomStrategyWithinBudget) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.strategy = "random";
  o.seed = 3;
  o.budget.evaluations = 5;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].evaluated, 5);
  EXPECT_EQ(store.trials.size(), 5u);
}

TEST(SearchSession, RetimesTheTopCandidatesInRoundsWithCublas) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  o.retime_rounds = 2;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ProblemOutcome const& out = r.problems[0];
  EXPECT_EQ(out.retimed, 3);
  EXPECT_EQ(store.trials.size(), 23u);   // 20 quick + 3 re-timed rows that supersede them
  EXPECT_EQ(gpu.evals, 16 + 3 * 2);      // two rounds of the top 3
  EXPECT_EQ(store.baselines.size(), 2u); // the quick baseline and the re-timed one
  ASSERT_TRUE(out.best.has_value());
  EXPECT_EQ(out.best->config.id(), "testfam:X=5,Y=1");
  EXPECT_NE(out.best->reason.find("re-timed"), std::string::npos);
  // The three re-timed rows are the three fastest configs.
  std::vector<std::string> ids;
  for (std::size_t i = 20; i < store.trials.size(); ++i) ids.push_back(store.trials[i].config.id());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"testfam:X=4,Y=1", "testfam:X=5,Y=1", "testfam:X=5,Y=2"}));
}

TEST(SearchSession, AFinishedSearchRunAgainRetimesNothing) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  std::size_t const rows = store.trials.size();
  ScriptedGpu gpu2;
  SearchReport r = SearchSession(gpu2, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].evaluated, 0);
  EXPECT_EQ(r.problems[0].retimed, 0);
  EXPECT_EQ(gpu2.evals, 0);
  EXPECT_EQ(store.trials.size(), rows);
  ASSERT_TRUE(r.problems[0].best.has_value());
  EXPECT_NE(r.problems[0].best->reason.find("re-timed"), std::string::npos);  // the newest row
}

TEST(SearchSession, NoDeviceIsAClearError) {
  class NoGpu : public ScriptedGpu {
   public:
    DeviceReport device() override {
      DeviceReport d;
      d.reason = "no CUDA driver";
      return d;
    }
  } gpu;
  TestFamily fam;
  MemoryStore store;
  SearchSession s(gpu, store, fake_compile(), "/tmp");
  try {
    s.run(options_for(fam));
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU available: no CUDA driver"), std::string::npos);
  }
  EXPECT_TRUE(store.trials.empty());
}

}  // namespace gemmtune

namespace gemmtune {

TEST(PhaseTimes, WorkerStepsTravelInEvalResultAndSortIntoPhases) {
  EvalResult r;
  r.disposition = Disposition::kOk;
  r.steps = {{"problem data", 4.0}, {"load", 2.0}, {"first run: compare", 6.0},
             {"rotation pool", 1.0}, {"timing", 50.0}};
  nlohmann::json j = r;
  EvalResult back = j.get<EvalResult>();
  EXPECT_EQ(back.steps, r.steps);
  j.erase("steps");  // an answer from a worker that sends no steps still parses
  EXPECT_TRUE(j.get<EvalResult>().steps.empty());
  PhaseTimes p;
  p.add_steps(back.steps);
  EXPECT_DOUBLE_EQ(p.load_s, 0.002);
  EXPECT_DOUBLE_EQ(p.verify_s, 0.010);
  EXPECT_DOUBLE_EQ(p.time_s, 0.051);
  p.wall_s = 10.0;
  p.gpu_s = 6.0;
  p.baseline_s = 1.0;
  EXPECT_DOUBLE_EQ(p.idle_s(), 3.0);
  EXPECT_DOUBLE_EQ(p.gpu_busy(), 0.7);
  EXPECT_NE(p.to_json().find("\"idle_s\""), std::string::npos);
}

}  // namespace gemmtune
