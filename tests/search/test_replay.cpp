// Replay: loading stored searches, the simulated pipeline, and the claims that matter — on the
// H200 ladder data the guided strategy gets nearer the optimum than random at a small budget;
// on the H200 bf16 core suite it nears the optimum of every shape within 30 simulated seconds;
// the cost model follows the per-candidate cost measured on the H200; the roofline estimate
// ranks the measured bf16 configs well enough to start a search from.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "src/core/error.hpp"
#include "src/kernels/roofline_estimate.hpp"
#include "tests/support/test_paths.hpp"
#include "tuner/search/replay.hpp"

namespace gemmtune {
namespace {

std::string const kDir = gemmtune::test::source_path("tests/data/replay").string();

ReplayRecord record(std::string const& id, double ms, double compile_ms,
                    Disposition d = Disposition::kOk) {
  return {parse_kernel_id(id), d, d == Disposition::kOk ? ms : 0.0, compile_ms};
}

/// Four compile threads and four compiles ahead; 0.5 s per evaluation plus the kernel's own
/// time (one warm-up and one timed call), nothing for set-up, verification or early stops.
ReplayCost flat_cost() {
  ReplayCost cost;
  cost.compile_threads = 4;
  cost.compile_ahead = 4;
  cost.eval_fixed_s = 0.5;
  cost.verify_s_per_element = 0;
  cost.setup_s = 0;
  cost.setup_s_per_element = 0;
  cost.early_stop_factor = 0;
  cost.timing.warmup_ms = 0;
  cost.timing.repeats = 1;
  cost.timing.target_ms = 0;
  return cost;
}

}  // namespace

TEST(Replay, LoadsTheLadderDataAsTwoExhaustiveProblems) {
  auto const problems = load_replay_jsonl(kDir + "/h200-fp32-ladder-1024-4096.jsonl");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].problem.shape(), "1024x1024x1024");
  EXPECT_EQ(problems[1].problem.shape(), "4096x4096x4096");
  for (auto const& p : problems) {
    EXPECT_EQ(p.records.size(), 498u);
    EXPECT_GT(p.optimum_ms(), 0.0);
    for (auto const& r : p.records) EXPECT_GT(r.compile_ms, 0.0) << r.config.id();
  }
  EXPECT_NEAR(problems[0].optimum_ms(), 0.0931, 1e-3);
}

TEST(Replay, MalformedDataNamesFileAndLine) {
  std::string const path = ::testing::TempDir() + "/bad_replay.jsonl";
  {
    std::ofstream out(path);
    out << R"({"gpu":{"name":"G","cc":"9.0","sm_count":1},"problem":{"m":8,"n":8,"k":8,)"
        << R"("precision":"fp32","layout":"NN","align":16},"kernel":"naive:BM=8,BN=8","disposition":"ok",)"
        << R"("time_ms":1,"compile_ms":1})" << "\n{\"gpu\": 3}\n";
  }
  try {
    load_replay_jsonl(path);
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("bad_replay.jsonl:2"), std::string::npos) << e.what();
  }
}

// Shapes out of range, families this build does not have and non-finite figures are refused
// with the line, not replayed as if they were trials.
TEST(Replay, RefusesImpossibleRecords) {
  std::string const head =
      R"({"gpu":{"name":"G","cc":"9.0","sm_count":1},"problem":{"m":)";
  struct Case {
    std::string m, kernel, time, why;
  };
  for (Case const& c : {Case{"-8", "naive:BM=8,BN=8", "1", "out of range"},
                        Case{"8", "nosuch:X=1", "1", "not in this build"},
                        Case{"8", "naive:BM=8,BN=8", "-1", "time_ms > 0"}}) {
    std::string const path = ::testing::TempDir() + "/impossible_replay.jsonl";
    {
      std::ofstream out(path);
      out << head << c.m << R"(,"n":8,"k":8,"precision":"fp32","layout":"NN","align":4},)"
          << R"("kernel":")" << c.kernel << R"(","disposition":"ok","time_ms":)" << c.time
          << R"(,"compile_ms":1})" << "\n";
    }
    try {
      load_replay_jsonl(path);
      ADD_FAILURE() << "accepted " << c.m << " " << c.kernel << " " << c.time;
    } catch (Error const& e) {
      EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("impossible_replay.jsonl:1"), std::string::npos);
    }
  }
}

TEST(Replay, SimulatedTimeOverlapsCompilesWithTheGpu) {
  ReplayProblem p;
  p.problem = parse_shape("64x64x64");
  for (int i = 0; i < 4; ++i) p.records.push_back(record("f:X=" + std::to_string(i), 1.0 + i, 1000));
  ReplayCost cost = flat_cost();
  ReplayRun const run = replay_once(p, "exhaustive", 1, 0, cost);
  ASSERT_EQ(run.sim_s.size(), 4u);
  // All four compile at once (1 s); the GPU then runs them back to back, each kernel twice (a
  // warm-up call and one timed call).
  EXPECT_NEAR(run.sim_s[0], 1.0 + 0.5 + 0.002, 1e-9);
  EXPECT_NEAR(run.sim_s[3], 1.0 + 4 * 0.5 + 0.020, 1e-9);
  EXPECT_DOUBLE_EQ(run.best_ms.back(), 1.0);
  cost.compile_threads = 1;  // now the GPU waits for each compile
  ReplayRun const serial = replay_once(p, "exhaustive", 1, 0, cost);
  EXPECT_NEAR(serial.sim_s[3], 4.0 + 0.5 + 0.008, 1e-9);
  // The problem's setup comes first, and compiles start after it, as in a search.
  cost.setup_s = 2.0;
  ReplayRun const later = replay_once(p, "exhaustive", 1, 0, cost);
  EXPECT_NEAR(later.sim_s[3], 2.0 + 4.0 + 0.5 + 0.008, 1e-9);
}

TEST(Replay, ATimeBudgetStillTakesTheFirstProposalAsTheSearchDoes) {
  // Exhaustive order: X=0 (the fastest kernel) first, compiling for 5 s; X=1..7 compile in
  // 0.1 s and run while it builds. A 2 s budget ends before X=0 is built, yet it is timed, as
  // the search session times its first proposal whatever the time budget.
  ReplayProblem p;
  p.problem = parse_shape("64x64x64");
  p.records.push_back(record("f:X=0", 1.0, 5000));
  for (int i = 1; i < 8; ++i) p.records.push_back(record("f:X=" + std::to_string(i), 2.0 + i, 100));
  ReplayCost cost = flat_cost();
  ReplayRun const run = replay_once(p, "exhaustive", 1, 0, cost, {}, 2.0);
  // X=1..4 by 0.1 + 4·0.5 s (past the budget), then only X=0, once built at 5 s.
  ASSERT_EQ(run.sim_s.size(), 5u);
  EXPECT_GT(run.sim_s[3], 2.0);
  EXPECT_GT(run.sim_s[4], 5.0);
  EXPECT_EQ(run.first_eval, 4);
  EXPECT_DOUBLE_EQ(run.first_ms, 1.0);
  EXPECT_DOUBLE_EQ(run.best_ms.back(), 1.0);
  // Read at 1 s (one evaluation done) the budget's result already counts the first proposal.
  auto const [best, n] = run.best_within(1.0);
  EXPECT_DOUBLE_EQ(best, 1.0);
  EXPECT_EQ(n, 2);
}

TEST(Replay, CostFollowsTheH200RunsShapeByShape) {
  // Seconds per candidate between consecutive trials of the exhaustive H200 runs
  // (bench/results/raw/2026-11-29-h200-bf16-exhaustive.txt and the fp32 ladder run): the model
  // must reproduce the spread, from 0.06 s on small outputs to 0.29 s at 8192².
  ReplayCost const cost;
  auto at = [&](char const* shape, Precision p, double ms) {
    return cost.eval_seconds(parse_shape(shape, p), record("f:X=0", ms, 500));
  };
  EXPECT_NEAR(at("512x512x512", Precision::kBF16, 0.012), 0.062, 0.015);
  EXPECT_NEAR(at("1024x1024x16384", Precision::kBF16, 0.17), 0.076, 0.015);
  EXPECT_NEAR(at("4096x4096x512", Precision::kBF16, 0.07), 0.145, 0.025);
  EXPECT_NEAR(at("4096x11008x4096", Precision::kBF16, 1.1), 0.213, 0.015);
  EXPECT_NEAR(at("8192x8192x8192", Precision::kBF16, 3.1), 0.289, 0.015);
  // fp32 verifies three times (the exact pass): 0.094 s past timing at 4096³ on the H200.
  EXPECT_NEAR(at("4096x4096x4096", Precision::kFP32, 1.0) - 0.06, 0.094, 0.01);
  EXPECT_GT(at("4096x4096x4096", Precision::kFP32, 1.0), at("4096x4096x4096", Precision::kBF16, 1.0));
  // A candidate more than 3x slower than the best so far is timed once (early stop).
  Problem const big = parse_shape("4096x4096x4096", Precision::kBF16);
  EXPECT_NEAR(cost.eval_seconds(big, record("f:X=0", 4.0, 500), 1.0) +
                  0.040,
              cost.eval_seconds(big, record("f:X=0", 4.0, 500), 2.0), 1e-12);
  EXPECT_EQ(cost.eval_seconds(big, record("f:X=0", 0, 500, Disposition::kCompileError)), 0.0);
  // The baseline before the first candidate: 0–1 s on small shapes, 6–7 s at 8192³.
  EXPECT_LT(cost.setup_seconds(parse_shape("512x512x512", Precision::kBF16)), 1.0);
  EXPECT_NEAR(cost.setup_seconds(parse_shape("8192x8192x8192", Precision::kBF16)), 6.5, 0.6);
}

TEST(Replay, CompileErrorsCostNoGpuTimeAndNeverCount) {
  ReplayProblem p;
  p.problem = parse_shape("64x64x64");
  p.records = {record("f:X=0", 0, 100, Disposition::kCompileError), record("f:X=1", 2.0, 100)};
  ReplayCost cost;
  cost.compile_threads = 1;
  ReplayRun const run = replay_once(p, "exhaustive", 1, 0, cost);
  ASSERT_EQ(run.best_ms.size(), 2u);
  EXPECT_EQ(run.best_ms[0], 0.0);
  EXPECT_NEAR(run.sim_s[0], cost.setup_seconds(p.problem) + 0.1, 1e-9);
  EXPECT_DOUBLE_EQ(optimum_fraction(p.optimum_ms(), run.best_ms[1]), 1.0);
}

TEST(Replay, GuidedBeatsRandomAtASmallBudgetOnTheLadderData) {
  auto const problems = load_replay_jsonl(kDir + "/h200-fp32-ladder-1024-4096.jsonl");
  ReplayStudy study;
  study.strategies = {"random", "evolution"};
  study.budgets = {50};
  study.seeds = 20;
  auto const cells = run_replay_study(problems, study);
  ASSERT_EQ(cells.size(), 2u);
  ReplayCell const& random = cells[0];
  ReplayCell const& guided = cells[1];
  EXPECT_EQ(random.runs, 40);
  EXPECT_GT(guided.median, random.median);
  EXPECT_GE(guided.worst, random.worst);
  // The report as Markdown has one row per strategy.
  std::string const md = replay_markdown(cells, study);
  EXPECT_NE(md.find("| evolution |"), std::string::npos);
  EXPECT_NE(md.find("| random |"), std::string::npos);
}

TEST(Replay, LoadsTheBf16CoreSuiteAsTwelveExhaustiveProblems) {
  auto const problems = load_replay_jsonl(kDir + "/h200-bf16-exhaustive-core.jsonl");
  // Candidates per shape, as the exhaustive run's log counts them
  // (bench/results/raw/2026-11-29-h200-bf16-exhaustive.txt): every one evaluated.
  std::map<std::string, std::size_t> const candidates{
      {"4096x4096x4096", 128},  {"8192x8192x8192", 136}, {"2048x2048x2048", 268},
      {"1024x1024x1024", 357},  {"512x512x512", 273},    {"4096x11008x4096", 128},
      {"4096x4096x11008", 128}, {"128x4096x4096", 320},  {"16x4096x4096", 213},
      {"1000x1000x1000", 357},  {"4096x4096x512", 132},  {"1024x1024x16384", 394}};
  ASSERT_EQ(problems.size(), 12u);
  for (auto const& p : problems) {
    ASSERT_TRUE(candidates.count(p.problem.shape())) << p.problem.describe();
    EXPECT_EQ(p.records.size(), candidates.at(p.problem.shape())) << p.problem.describe();
    EXPECT_EQ(p.problem.precision, Precision::kBF16);
    std::string best_family;
    for (auto const& r : p.records) {
      EXPECT_EQ(r.disposition, Disposition::kOk) << r.config.id();
      EXPECT_GT(r.compile_ms, 0.0) << r.config.id();  // cache hits carry the kernel's compile
      if (r.time_ms == p.optimum_ms()) best_family = r.config.family;
    }
    // Hopper's wgmma wins everywhere but the 16-row shape, where mma with split-K does.
    EXPECT_EQ(best_family, p.problem.shape() == "16x4096x4096" ? "mma" : "wgmma")
        << p.problem.describe();
  }
  EXPECT_NEAR(problems[0].optimum_ms(), 0.182, 1e-3);
}

TEST(Replay, EvolutionNearsTheOptimumOfEveryBf16ShapeIn30SimulatedSeconds) {
  auto const problems = load_replay_jsonl(kDir + "/h200-bf16-exhaustive-core.jsonl");
  ReplayStudy study;
  study.strategies = {"evolution"};
  study.time_budgets_s = {12, 30, 60};
  study.seeds = 20;
  study.per_problem = true;
  auto const cells = run_replay_study(problems, study);
  ASSERT_EQ(cells.size(), 3u + 3u * problems.size());
  ReplayCell const& all12 = cells[0];
  ReplayCell const& all30 = cells[1];
  ReplayCell const& all60 = cells[2];
  ASSERT_EQ(all30.budget, "30s");
  EXPECT_EQ(all30.runs, 240);
  // Over the 12 shapes × 20 seeds: median 100% at 30 s in the data.
  EXPECT_GE(all30.median, 0.97);
  // Per shape, the median over seeds at 30 s: 100% on every shape in the data (a median over
  // all shapes would hide one shape left behind). 95% leaves margin.
  int shapes = 0;
  for (ReplayCell const& c : cells) {
    if (c.problem.empty() || c.budget != "30s") continue;
    ++shapes;
    EXPECT_EQ(c.runs, 20);
    EXPECT_GE(c.median, 0.95) << c.problem;
  }
  EXPECT_EQ(shapes, 12);
  // At 60 s every seed of every shape: worst 100% in the data; at 30 s 91.7% (one seed at
  // 1000x1000x1000 stays near a config of that speed, as warm-started runs do too).
  EXPECT_GE(all60.worst, 0.95);
  // Cold, in the default search's 12 s: worst 65.9% in the data. The initial samples cover
  // mma and wgmma; drawn uniformly (116 of 128 configs at 4096³ are mma), some seeds tried
  // mma configs only and the worst case was 49.8%.
  ASSERT_EQ(all12.budget, "12s");
  EXPECT_GE(all12.worst, 0.6);
  std::string const md = replay_markdown(cells, study);
  EXPECT_NE(md.find("| 1024x1024x16384 bf16 NN a16 | evolution |"), std::string::npos) << md;
}

TEST(Replay, TheDefaultFp32SearchReachesTheSimtOptimumOfTwoExhaustiveShapes) {
  // Every valid simt config of two core shapes, evaluated on the H200
  // (bench/results/raw/2026-11-29-h200-fp32-exhaustive-*.db): the 4096-class space of 1325
  // configs (4096³, 8192³ and the 11008 shapes have the same) and the 4157 of the 16-row shape.
  std::vector<ReplayProblem> problems;
  for (char const* shape : {"4096x4096x512", "16x4096x4096"}) {
    auto p = load_replay_jsonl(kDir + "/h200-fp32-simt-exhaustive-" + shape + ".jsonl");
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].problem.shape(), shape);
    problems.push_back(std::move(p[0]));
  }
  EXPECT_EQ(problems[0].records.size(), 1325u);
  EXPECT_EQ(problems[1].records.size(), 4157u);
  // The default search above 400 configs: evolution for 30 s, here from an empty cache.
  ReplayStudy study;
  study.strategies = {"evolution"};
  study.time_budgets_s = {30};
  study.seeds = 20;
  auto const cells = run_replay_study(problems, study);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].runs, 40);
  // In the data: median 100%, worst 98.7% (4096x4096x512). The target is within 3%.
  EXPECT_GE(cells[0].worst, 0.97);
}

TEST(Replay, TheSameStudyGivesTheSameNumbers) {
  auto const problems = load_replay_jsonl(kDir + "/h200-fp32-simt-random80.jsonl");
  ReplayStudy study;
  study.strategies = {"evolution"};
  study.budgets = {10};
  study.time_budgets_s = {20};
  study.seeds = 5;
  auto const a = run_replay_study(problems, study);
  auto const b = run_replay_study(problems, study);
  ASSERT_EQ(a.size(), 2u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].median, b[i].median);
    EXPECT_EQ(a[i].worst, b[i].worst);
    EXPECT_EQ(a[i].median_sim_s, b[i].median_sim_s);
  }
}

TEST(Replay, TheRooflineEstimatesFastestHoldANearOptimumOfEveryBf16Shape) {
  // On the H200's exhaustive bf16 core suite: the configs predicted at most as slow as the
  // fifth fastest prediction (ties included: configs that differ only in knobs the estimate
  // ignores share a prediction: 5 to 16 configs here) hold one within 92% of the measured
  // optimum on every shape, 100% on six; 85% leaves margin. Every record has an estimate (mma
  // and wgmma have traits).
  auto const problems = load_replay_jsonl(kDir + "/h200-bf16-exhaustive-core.jsonl");
  ASSERT_EQ(problems.size(), 12u);
  for (ReplayProblem const& p : problems) {
    EXPECT_EQ(p.limits.sm_count, 132);
    std::vector<double> predicted = replay_predictions(p);
    ASSERT_EQ(predicted.size(), p.records.size());
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      ASSERT_GT(predicted[i], 0.0) << p.records[i].config.id();
    }
    std::vector<double> sorted = predicted;
    std::sort(sorted.begin(), sorted.end());
    double const fifth = sorted[4];
    double best = 0.0;
    std::size_t taken = 0;
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      if (predicted[i] > fifth) continue;
      ++taken;
      if (best == 0.0 || p.records[i].time_ms < best) best = p.records[i].time_ms;
    }
    EXPECT_GE(p.optimum_ms() / best, 0.85) << p.problem.describe();
    // Ties must not make this a test of most of the space.
    EXPECT_LE(taken, p.records.size() / 4) << p.problem.describe();
  }
}

TEST(Replay, StartingFromTheEstimateLiftsTheWorstCaseAtTwentyEvaluations) {
  // The bf16 core suite, cold, 20 seeds, 20 evaluations per shape. In the data: evolution's
  // worst case 87.9% with the estimate against 52.3% from a random start (medians 99.4% and
  // 95.9%); exhaustive in predicted order 100% median against 51.0% in canonical order.
  auto const problems = load_replay_jsonl(kDir + "/h200-bf16-exhaustive-core.jsonl");
  ReplayStudy study;
  study.strategies = {"evolution", "exhaustive"};
  study.budgets = {20};
  study.seeds = 20;
  auto const guided = run_replay_study(problems, study);
  study.roofline_start = false;
  auto const random = run_replay_study(problems, study);
  ASSERT_EQ(guided.size(), 2u);
  ASSERT_EQ(random.size(), 2u);
  EXPECT_GE(guided[0].worst, 0.8);
  EXPECT_LT(random[0].worst, 0.6);
  EXPECT_GE(guided[0].median, random[0].median);
  EXPECT_GE(guided[1].median, 0.95);
  EXPECT_LT(random[1].median, 0.6);
}

TEST(Replay, TenEvaluationsFromTheEstimateReachNinetyPercentOnEveryBf16Shape) {
  // The bf16 core suite, cold, 20 seeds, a search of 10 evaluations per shape (about what a 3 s
  // budget times): with the L2's merged sends, the shared-memory feed and the refills of
  // one-unit-per-block grids in the estimate (bench/results/2026-12-07-replay-l2-merge-and-
  // feed.md), every shape's worst seed reached 92.1% of the optimum and the median over all
  // 100%; before them 4096x4096x512's worst was 74.3%.
  auto const problems = load_replay_jsonl(kDir + "/h200-bf16-exhaustive-core.jsonl");
  ReplayStudy study;
  study.strategies = {"evolution"};
  study.budgets = {10};
  study.seeds = 20;
  study.per_problem = true;
  auto const cells = run_replay_study(problems, study);
  ASSERT_EQ(cells.size(), 1u + problems.size());
  EXPECT_GE(cells[0].median, 0.98);
  for (std::size_t i = 1; i < cells.size(); ++i) {
    EXPECT_GE(cells[i].worst, 0.9) << cells[i].problem;
  }
}

}  // namespace gemmtune
