// The search loop: pruning, dispositions, best, budget, resume.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "src/core/error.hpp"
#include "src/core/median.hpp"
#include "src/core/vendor_kernel.hpp"
#include "tests/search/fake_gpu.hpp"
#include "tests/search/memory_store.hpp"
#include "tuner/worker/interrupt.hpp"

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
  SearchReport const first = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  int compiles = 0;
  int const evals = gpu.evals;
  SearchReport r = SearchSession(gpu, store, fake_compile(&compiles), "/tmp").run(o);
  // Finished by the first search under the same settings: answered from the cache.
  EXPECT_EQ(r.problems[0].finished_by, first.search_id);
  EXPECT_EQ(r.problems[0].candidates, first.problems[0].candidates);
  EXPECT_EQ(r.problems[0].pruned, first.problems[0].pruned);
  EXPECT_EQ(r.problems[0].evaluated, 0);
  EXPECT_EQ(r.problems[0].resumed, 0);
  EXPECT_EQ(compiles, 0);
  EXPECT_EQ(gpu.evals, evals);
  EXPECT_EQ(store.trials.size(), 6u);
  ASSERT_TRUE(r.problems[0].best && first.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), first.problems[0].best->config.id());
  EXPECT_DOUBLE_EQ(r.problems[0].baseline.cublas_ms, 2.0);  // the stored baseline
  // --again searches it: every proposal is already in the cache, so still nothing new.
  o.again = true;
  r = SearchSession(gpu, store, fake_compile(&compiles), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].finished_by, 0);
  EXPECT_EQ(r.problems[0].resumed, 6);
  EXPECT_EQ(compiles, 0);
  EXPECT_EQ(store.trials.size(), 6u);
}

/// A finished problem is skipped only by a search with the same settings: another budget, seed
/// or family set searches it, and a problem cut short is searched by the next run.
TEST(SearchSession, OnlyTheSameSettingsSkipAFinishedProblem) {
  TestFamily fam;
  MemoryStore store;
  ScriptedGpu gpu;
  SearchOptions o = options_for(fam);
  o.strategy = "random";
  o.budget.evaluations = 4;
  o.problems = {parse_shape("64x64x64"), parse_shape("32x32x32")};
  SearchSession session(gpu, store, fake_compile(), "/tmp");
  session.run(o);
  ASSERT_EQ(store.finished.size(), 2u);
  std::string const settings = session.search_settings(o);
  EXPECT_EQ(store.finished[0].settings, settings);
  for (auto change : std::vector<std::function<void(SearchOptions&)>>{
           [](SearchOptions& x) { x.budget.evaluations = 5; },
           [](SearchOptions& x) { x.seed = 2; },
           [](SearchOptions& x) { x.budget.seconds = 30; },
           [](SearchOptions& x) { x.retime_top = 2; },
           [](SearchOptions& x) { x.vendor_candidates = false; },
           [](SearchOptions& x) { x.timing.repeats += 1; }}) {
    SearchOptions other = o;
    change(other);
    EXPECT_NE(session.search_settings(other), settings);
  }
  SearchOptions same = o;
  same.arguments = "another command line";  // what is recorded, not what decides the search
  same.job_timeout_s = 7;
  EXPECT_EQ(session.search_settings(same), settings);

  SearchOptions more = o;
  more.budget.evaluations = 6;
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(more);
  EXPECT_EQ(r.problems[0].finished_by, 0);
  EXPECT_EQ(r.problems[0].resumed, 4);
  EXPECT_EQ(r.problems[0].evaluated, 2);
  EXPECT_EQ(store.finished.size(), 4u);
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

namespace {

/// The test family with a tile: BM = 16 or 64 rows, BN = 64, and a roofline estimate, so its
/// BM = 16 configs (four tiles of 64×64×64, one per SM) are predicted faster than BM = 64 (one).
class TiledTestFamily : public TestFamily {
 public:
  std::string_view name() const override { return "tiledfam"; }
  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> p = TestFamily::params();
    p.push_back({"BM", {16, 64}, "rows"});
    p.push_back({"BN", {64}, "columns"});
    return p;
  }
  RooflineTraits roofline_traits(KernelConfig const&, Problem const&) const override {
    return {.fma_per_clock = 100.0};
  }
};

/// The scripted GPU with an SM count, which the estimate needs.
class FourSmGpu : public ScriptedGpu {
 public:
  DeviceReport device() override {
    DeviceReport d = ScriptedGpu::device();
    d.limits.sm_count = 4;
    return d;
  }
};

/// Over seeds 1..10, how many one-evaluation searches time a BM = 64 config.
int first_tiles_of_64(bool roofline_start) {
  TiledTestFamily fam;
  int tall = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    MemoryStore store;
    FourSmGpu gpu;
    SearchOptions o = options_for(fam);
    o.strategy = "evolution";
    o.seed = seed;
    o.budget.evaluations = 1;
    o.roofline_start = roofline_start;
    SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
    EXPECT_EQ(store.trials.size(), 1u);
    if (!store.trials.empty() && store.trials.front().config.at("BM") == 64) ++tall;
  }
  return tall;
}

}  // namespace

namespace {

/// The scripted GPU, each evaluation taking `ms` of wall time.
class SlowGpu : public ScriptedGpu {
 public:
  explicit SlowGpu(int ms) : ms_(ms) {}
  EvalResult evaluate(EvalJob const& job, double timeout_s) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    return ScriptedGpu::evaluate(job, timeout_s);
  }

 private:
  int ms_;
};

}  // namespace

TEST(SearchSession, AShortTimeBudgetStillTimesTheFirstProposalWhoseCompileIsSlow) {
  // The first proposal compiles for 400 ms, the others at once; each evaluation takes 100 ms
  // and the budget is 250 ms. The quick compiles are timed while the first one builds, the
  // budget runs out, and the first is still timed once it is built.
  TestFamily fam;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    MemoryStore store;
    SlowGpu gpu(100);
    SearchOptions o = options_for(fam);
    o.seed = seed;
    o.budget.seconds = 0.25;
    std::string first;
    CompileFn const quick = fake_compile();
    CompileFn const compile = [&](CompileRequest req) {
      if (!first.empty()) return quick(std::move(req));
      first = req.source;
      return std::async(std::launch::async, [quick, req]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        return quick(std::move(req)).get();
      });
    };
    ProblemOutcome const out = SearchSession(gpu, store, compile, "/tmp").run(o).problems.front();
    ASSERT_FALSE(first.empty());
    std::vector<std::string> timed;
    for (Trial const& t : store.trials) timed.push_back(t.config.id());
    EXPECT_NE(std::find(timed.begin(), timed.end(), first), timed.end())
        << "seed " << seed << ": the first proposal " << first << " was never timed";
    // Timed last, after the budget ran out: the quick ones went first.
    ASSERT_GE(timed.size(), 2u);
    EXPECT_EQ(timed.back(), first);
    EXPECT_LE(out.evaluated, 6);
  }
}

TEST(SearchSession, TheSearchStartsFromTheConfigsTheRooflinePredictsFastest) {
  // The session hands the strategy each candidate's estimate: every first trial is a BM = 16
  // config; from a random start, about half are BM = 64.
  EXPECT_EQ(first_tiles_of_64(true), 0);
  EXPECT_GT(first_tiles_of_64(false), 0);
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

namespace {

/// A GPU whose figures are noisy: X=4,Y=1 and X=5,Y=1 are equally fast (1 ms) and every figure
/// is off by a seeded ±0.3%; the calls are logged in order.
class NoisyGpu : public ScriptedGpu {
 public:
  explicit NoisyGpu(unsigned seed) : state_(seed) {}
  EvalResult evaluate(EvalJob const& job, double t) override {
    EvalResult r = ScriptedGpu::evaluate(job, t);
    if (r.disposition == Disposition::kOk) {
      if (job.kernel_id == "testfam:X=4,Y=1" || job.kernel_id == "testfam:X=5,Y=1") {
        r.median_ms = 1.0;
      }
      r.median_ms *= 1.0 + noise();
      r.min_ms = r.median_ms;
      r.max_ms = r.median_ms;
    }
    log.push_back(job.kernel_id);
    return r;
  }
  BaselineResult baseline(BaselineJob const& job, double t) override {
    log.push_back("baselines");
    BaselineResult b = ScriptedGpu::baseline(job, t);
    b.cublas_ms *= 1.0 + noise();
    return b;
  }
  std::vector<std::string> log;

 private:
  double noise() {
    state_ = state_ * 1103515245u + 12345u;
    return (static_cast<double>((state_ >> 8) % 2001) / 1000.0 - 1.0) * 0.003;  // ±0.3%
  }
  unsigned state_;
};

}  // namespace

TEST(SearchSession, RetimeRotatesTheOrderAndStoresTheMedianAndSpreadOfItsRounds) {
  TestFamily fam;
  MemoryStore store;
  NoisyGpu gpu(7);
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  o.retime_rounds = 4;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ProblemOutcome const& out = r.problems[0];
  ASSERT_EQ(out.retimed, 3);
  // The re-time's calls: 4 rounds of 4 slots (baselines, then the top 3), each round starting
  // one slot further along.
  std::vector<std::string> const tail(gpu.log.end() - 16, gpu.log.end());
  for (int round = 0; round < 4; ++round) {
    EXPECT_EQ(tail[static_cast<std::size_t>(round * 4 + (4 - round) % 4)], "baselines")
        << "round " << round;
  }
  for (std::size_t i = store.trials.size() - 3; i < store.trials.size(); ++i) {
    Trial const& t = store.trials[i];
    SCOPED_TRACE(t.config.id());
    EXPECT_EQ(t.spread_rounds, 4);
    EXPECT_LE(t.spread_lo_ms, t.time_ms);
    EXPECT_GE(t.spread_hi_ms, t.time_ms);
    EXPECT_LT(t.spread_lo_ms, t.spread_hi_ms);  // the noise shows
    EXPECT_NE(t.reason.find("median of 4 rounds"), std::string::npos) << t.reason;
  }
  // The baseline stored with the re-time carries its spread too.
  BaselineResult const& b = store.baselines.back();
  EXPECT_LE(b.cublas_min_ms, b.cublas_ms);
  EXPECT_GE(b.cublas_max_ms, b.cublas_ms);
}

namespace {

/// A GPU that re-times in one request: each candidate's round figures are its scripted time
/// times (1 − 1%, 1, 1 + 1%, ...); `fail_retime` makes the request fail as a whole.
class OneRequestGpu : public ScriptedGpu {
 public:
  static constexpr char const* kLtId =
      "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0";
  static constexpr char const* kRunnerUp =
      "cublaslt:ALGO=66,TILE=24,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=7,INNER=0,CLUSTER=5,"
      "COMPUTE=0";
  std::optional<RetimeResult> retime(RetimeJob const& job, double) override {
    jobs.push_back(job);
    if (fail_retime) return std::nullopt;
    RetimeResult r;
    int const quick_evals = evals;
    for (EvalJob const& c : job.candidates) {
      EvalResult e = evaluate(c, 0.0);
      std::vector<double> rounds;
      for (int i = 0; i < job.rounds; ++i) {
        rounds.push_back(e.median_ms * (1.0 + 0.01 * ((i % 3) - 1)));
      }
      e.median_ms = median_of(rounds);
      r.candidates.push_back(e);
      r.candidate_rounds_ms.push_back(e.disposition == Disposition::kOk ? rounds
                                                                       : std::vector<double>{});
    }
    evals = quick_evals;  // the scripted figures, not evaluations
    r.baselines.ok = true;
    r.baselines.cublas_ms = 2.0;
    r.baselines.cublaslt_ms = 1.9;
    r.baselines.cublas_host_us = 11.0;
    r.cublas_rounds_ms.assign(static_cast<std::size_t>(job.rounds), 2.0);
    for (int i = 0; i < job.rounds; ++i) {  // the board warming through the rounds
      PowerFigures b;
      b.sm_clock_mhz = 1980 - 30 * i;
      b.temperature_c = 50 + i;
      r.round_board.push_back(b);
    }
    if (!job.baselines.cublaslt_kernel.empty()) {
      r.cublaslt_rounds_ms.assign(static_cast<std::size_t>(job.rounds), 1.9);
    }
    return r;
  }
  EvalResult evaluate(EvalJob const& job, double t) override {
    if (job.kernel_id != kRunnerUp) return ScriptedGpu::evaluate(job, t);
    ++evals;
    EvalResult e;
    e.disposition = Disposition::kOk;
    e.median_ms = runner_up_ms;
    return e;
  }
  BaselineResult baseline(BaselineJob const& job, double t) override {
    BaselineResult b = ScriptedGpu::baseline(job, t);
    b.cublaslt_kernel = kLtId;
    b.cublaslt_runners_up = {kRunnerUp, kLtId, "cublaslt:not-an-id"};
    ++baselines;
    return b;
  }
  std::vector<RetimeJob> jobs;
  bool fail_retime = false;
  int baselines = 0;
  double runner_up_ms = 1.95;  // slower than the chosen algorithm's 1.9
};

}  // namespace

TEST(SearchSession, RetimeIsOneRequestOfTheTopCandidatesAndBothBaselines) {
  TestFamily fam;
  MemoryStore store;
  OneRequestGpu gpu;
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  o.retime_rounds = 5;
  o.retime_settle_ms = 400.0;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ProblemOutcome const& out = r.problems[0];
  ASSERT_EQ(gpu.jobs.size(), 1u);
  RetimeJob const& job = gpu.jobs[0];
  EXPECT_EQ(job.rounds, 5);
  EXPECT_DOUBLE_EQ(job.settle_ms, 400.0);
  // The top 3 of ours, then the baseline's runner-up algorithm (not the chosen one again, not
  // an id that does not parse), as a vendor job.
  ASSERT_EQ(job.candidates.size(), 4u);
  EXPECT_EQ(job.candidates[3].kernel_id, OneRequestGpu::kRunnerUp);
  EXPECT_TRUE(job.candidates[3].cubin_path.empty());
  EXPECT_EQ(job.baselines.cublaslt_kernel, OneRequestGpu::kLtId);
  EXPECT_EQ(job.baselines.timing, o.final_timing);
  EXPECT_EQ(gpu.evals, 16);     // the quick figures only: the rounds were the one request
  EXPECT_EQ(gpu.baselines, 1);  // the search's first baseline
  ASSERT_EQ(out.retimed, 4);
  auto const runner_up = std::find_if(store.trials.begin(), store.trials.end(), [](Trial const& t) {
    return t.config.id() == OneRequestGpu::kRunnerUp;
  });
  ASSERT_NE(runner_up, store.trials.end());
  EXPECT_EQ(runner_up->disposition, Disposition::kOk);
  EXPECT_NEAR(runner_up->time_ms, 1.95, 1e-9);
  EXPECT_EQ(runner_up->spread_rounds, 5);
  // Every re-timed figure keeps the board of its rounds: the median of 1980, 1950, ..., 1860 MHz
  // and of 50..54 °C.
  EXPECT_EQ(runner_up->board_sm_clock_mhz, 1920);
  EXPECT_EQ(runner_up->board_temperature_c, 52);
  for (std::size_t i = store.trials.size() - 3; i < store.trials.size(); ++i) {
    Trial const& t = store.trials[i];
    SCOPED_TRACE(t.config.id());
    if (t.config.family != "testfam") continue;
    EXPECT_EQ(t.spread_rounds, 5);
    EXPECT_EQ(t.board_sm_clock_mhz, 1920);
    EXPECT_NEAR(t.spread_lo_ms, t.time_ms * 0.99, 1e-9);
    EXPECT_NEAR(t.spread_hi_ms, t.time_ms * 1.01, 1e-9);
    EXPECT_DOUBLE_EQ(t.cublas_ms, 2.0);
  }
  BaselineResult const& b = store.baselines.back();
  EXPECT_DOUBLE_EQ(b.cublas_ms, 2.0);
  EXPECT_DOUBLE_EQ(b.cublaslt_ms, 1.9);
  EXPECT_DOUBLE_EQ(b.cublas_host_us, 11.0);
  ASSERT_TRUE(out.best.has_value());
  EXPECT_EQ(out.best->config.id(), "testfam:X=5,Y=1");
}

TEST(SearchSession, ARunnerUpAlgorithmThatWinsTheRoundsIsThePickButNeverTheOwnBest) {
  TestFamily fam;
  MemoryStore store;
  OneRequestGpu gpu;
  gpu.runner_up_ms = 0.5;  // faster than every kernel of ours (the fastest is 1.1 ms)
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ProblemOutcome const& out = r.problems[0];
  ASSERT_TRUE(out.best && out.best_own);
  EXPECT_EQ(out.best->config.id(), OneRequestGpu::kRunnerUp);
  // The own figure is our kernels' progress: a vendor algorithm re-timed beside them is not one.
  EXPECT_EQ(out.best_own->config.id(), "testfam:X=5,Y=1");
  EXPECT_EQ(out.best_own->spread_rounds, o.retime_rounds);
}

TEST(SearchSession, RetimeLeavesOutCandidatesFarSlowerThanTheFastest) {
  TestFamily fam;
  MemoryStore store;
  OneRequestGpu gpu;
  SearchOptions o = options_for(fam);
  o.retime_top = 20;  // all of them, but for the rule
  SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ASSERT_EQ(gpu.jobs.size(), 1u);
  int own = 0;
  for (EvalJob const& c : gpu.jobs[0].candidates) {
    if (c.kernel_id.rfind("testfam:", 0) != 0) continue;
    ++own;
    // The fastest is 1.1 ms (X=5,Y=1): nothing slower than 2.2 ms, so |X − 5| ≤ 1.
    std::int64_t const x = parse_kernel_id(c.kernel_id).at("X");
    EXPECT_LE(std::abs(x - 5), 1) << c.kernel_id;
  }
  EXPECT_GE(own, 4);  // X=5,Y=1 and Y=2; X=4 and X=6 with Y=1
}

TEST(SearchSession, ARetimeRequestThatFailsIsRunAsOneRequestPerEntryAndRound) {
  TestFamily fam;
  MemoryStore store;
  OneRequestGpu gpu;
  gpu.fail_retime = true;
  SearchOptions o = options_for(fam);
  o.retime_top = 3;
  o.retime_rounds = 2;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(gpu.jobs.size(), 1u);
  EXPECT_EQ(gpu.evals, 16 + 4 * 2);  // the top 3 and the runner-up algorithm, two rounds
  EXPECT_EQ(gpu.baselines, 1 + 2);
  EXPECT_EQ(r.problems[0].retimed, 4);
}

TEST(SearchSession, TiedCandidatesGiveTheSameWinnerWhateverTheNoise) {
  // X=4,Y=1 and X=5,Y=1 take the same time; the noise decides which measures faster. The tie
  // rule picks the smaller canonical id every time.
  int x5_measured_faster = 0;
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    TestFamily fam;
    MemoryStore store;
    NoisyGpu gpu(seed);
    SearchOptions o = options_for(fam);
    o.retime_top = 3;
    o.retime_rounds = 6;
    SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
    ASSERT_TRUE(r.problems[0].best.has_value());
    EXPECT_EQ(r.problems[0].best->config.id(), "testfam:X=4,Y=1") << "seed " << seed;
    double x4 = 0.0, x5 = 0.0;
    for (std::size_t i = store.trials.size() - 3; i < store.trials.size(); ++i) {
      if (store.trials[i].config.id() == "testfam:X=4,Y=1") x4 = store.trials[i].time_ms;
      if (store.trials[i].config.id() == "testfam:X=5,Y=1") x5 = store.trials[i].time_ms;
    }
    if (x5 < x4) ++x5_measured_faster;
  }
  EXPECT_GT(x5_measured_faster, 0) << "the noise never favoured the other candidate";
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

namespace {

constexpr char const* kLtId =
    "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
    "COMPUTE=0";

/// A GPU whose baselines verify cuBLAS and one cuBLASLt algorithm, at the given speeds; the
/// jobs it received are kept.
class VendorGpu : public ScriptedGpu {
 public:
  VendorGpu(double cublas_ms, double cublaslt_ms) : cublas_ms_(cublas_ms), lt_ms_(cublaslt_ms) {}
  BaselineResult baseline(BaselineJob const& job, double) override {
    jobs.push_back(job);
    BaselineResult b;
    b.ok = true;
    b.cublas_ms = b.cublas_min_ms = b.cublas_max_ms = cublas_ms_;
    b.cublaslt_ms = b.cublaslt_min_ms = b.cublaslt_max_ms = lt_ms_;
    b.cublaslt_kernel = job.cublaslt_kernel.empty() ? kLtId : job.cublaslt_kernel;
    if (job.verify) {
      b.cublas_verdict = Disposition::kOk;
      b.cublaslt_verdict = lt_wrong ? Disposition::kWrongResult : Disposition::kOk;
      if (lt_wrong) b.verdict_reason = "cuBLASLt: max |C-R|/bound = 40";
    }
    return b;
  }
  std::vector<BaselineJob> jobs;
  bool lt_wrong = false;

 private:
  double cublas_ms_, lt_ms_;
};

SearchOptions vendor_options(TestFamily const& fam) {
  SearchOptions o;
  o.problems = {parse_shape("64x64x64")};
  o.families = {&fam};
  o.arguments = "test";
  o.retime_top = 2;
  o.retime_rounds = 3;
  return o;
}

}  // namespace

TEST(SearchSession, TheVendorIsACandidateAndWinsWhenFaster) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(0.9, 0.8);  // both faster than our best (1.1 ms)
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  ProblemOutcome const& o = r.problems[0];
  ASSERT_TRUE(o.best && o.best_own);
  EXPECT_EQ(o.best->config.id(), kLtId);
  EXPECT_EQ(o.best->spread_rounds, 3);
  EXPECT_EQ(o.best_own->config.id(), "testfam:X=5,Y=1");
  // The first baseline verifies and chooses; the rounds time the algorithm it chose.
  ASSERT_EQ(gpu.jobs.size(), 4u);
  EXPECT_TRUE(gpu.jobs[0].verify);
  EXPECT_TRUE(gpu.jobs[0].cublaslt_kernel.empty());
  for (std::size_t i = 1; i < gpu.jobs.size(); ++i) {
    EXPECT_FALSE(gpu.jobs[i].verify);
    EXPECT_EQ(gpu.jobs[i].cublaslt_kernel, kLtId);
  }
  // cublas:default and the algorithm, each as a quick row and a re-timed row.
  int vendor_rows = 0;
  for (Trial const& t : store.trials) {
    if (!is_vendor(t.config)) continue;
    ++vendor_rows;
    EXPECT_EQ(t.provenance.cublas, "13.1.0");
    EXPECT_TRUE(t.provenance.template_hash.empty());
    EXPECT_EQ(t.disposition, Disposition::kOk);
  }
  EXPECT_EQ(vendor_rows, 4);
  EXPECT_EQ(o.vendor_trials, 4);
}

TEST(SearchSession, OurKernelStaysThePickWhenFaster) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(2.0, 1.9);
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), "testfam:X=5,Y=1");
  EXPECT_EQ(r.problems[0].best_own->config.id(), "testfam:X=5,Y=1");
}

TEST(SearchSession, AWrongVendorResultIsNeverThePick) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(2.0, 0.5);
  gpu.lt_wrong = true;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), "testfam:X=5,Y=1");
  bool stored_wrong = false;
  for (Trial const& t : store.trials) {
    if (t.config.id() == kLtId) {
      EXPECT_EQ(t.disposition, Disposition::kWrongResult);
      EXPECT_NE(t.reason.find("cuBLASLt"), std::string::npos);
      stored_wrong = true;
    }
  }
  EXPECT_TRUE(stored_wrong);
}

TEST(SearchSession, VendorCandidatesCanBeTurnedOff) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(0.5, 0.4);
  SearchOptions o = vendor_options(fam);
  o.vendor_candidates = false;
  SearchReport r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  EXPECT_EQ(r.problems[0].best->config.id(), "testfam:X=5,Y=1");
  EXPECT_FALSE(gpu.jobs[0].verify);
  for (Trial const& t : store.trials) EXPECT_FALSE(is_vendor(t.config)) << t.config.id();
  // The rounds let cuBLASLt choose again: without candidates its figure is a baseline only.
  EXPECT_TRUE(gpu.jobs[1].cublaslt_kernel.empty());
}


TEST(SearchSession, AResumedSearchKeepsItsCublasLtAlgorithm) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(2.0, 1.9);
  SearchOptions const o = vendor_options(fam);
  SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  std::size_t const rows = store.trials.size();
  VendorGpu again(2.0, 1.9);
  SearchOptions repeat = o;
  repeat.again = true;  // without it the finished problem is not searched at all
  SearchReport const r = SearchSession(again, store, fake_compile(), "/tmp").run(repeat);
  ASSERT_FALSE(again.jobs.empty());
  EXPECT_EQ(again.jobs[0].cublaslt_kernel, kLtId);  // timed again, not chosen again
  EXPECT_EQ(r.problems[0].vendor_trials, 0);
  EXPECT_EQ(r.problems[0].retimed, 0);
  EXPECT_EQ(store.trials.size(), rows);
}


TEST(SearchSession, WithoutAReTimeThePickIsOverTheQuickFiguresVendorIncluded) {
  TestFamily fam;
  MemoryStore store;
  VendorGpu gpu(0.9, 0.8);
  SearchOptions o = vendor_options(fam);
  o.retime_top = 0;
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(o);
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), kLtId);
  EXPECT_EQ(r.problems[0].best_own->config.id(), "testfam:X=5,Y=1");
  EXPECT_EQ(r.problems[0].best->spread_rounds, 1);
}


/// A worker naming an algorithm no id can hold (cuBLASLt has reported SPLITK=-1) must not end
/// the search: the algorithm is left out, cuBLAS stays a candidate.
TEST(SearchSession, AnInvalidCublasLtIdFromTheWorkerIsLeftOut) {
  class BadIdGpu : public VendorGpu {
   public:
    BadIdGpu() : VendorGpu(0.9, 0.5) {}
    BaselineResult baseline(BaselineJob const& job, double t) override {
      BaselineResult b = VendorGpu::baseline(job, t);
      b.cublaslt_kernel =
          "cublaslt:ALGO=43,TILE=18,STAGES=34,SPLITK=-1,RED=2,SWIZZLE=1,CUSTOM=0,INNER=0,"
          "CLUSTER=3,COMPUTE=0";
      return b;
    }
  };
  TestFamily fam;
  MemoryStore store;
  BadIdGpu gpu;
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), "cublas:default");
  for (BaselineJob const& j : gpu.jobs) EXPECT_TRUE(j.cublaslt_kernel.empty());
  for (Trial const& t : store.trials) EXPECT_NE(t.config.family, "cublaslt");
}


namespace {

/// A vendor GPU that raises SIGINT during its `at`-th evaluation. With `answer_skipped` that
/// candidate is answered "skipped", as the worker answers a job cut short; without, it finishes.
class InterruptingGpu : public VendorGpu {
 public:
  InterruptingGpu(int at, bool answer_skipped)
      : VendorGpu(0.9, 0.8), at_(at), answer_skipped_(answer_skipped) {}
  EvalResult evaluate(EvalJob const& job, double t) override {
    EvalResult r = VendorGpu::evaluate(job, t);
    if (evals == at_) {
      std::raise(SIGINT);
      if (answer_skipped_) {
        r.disposition = Disposition::kSkipped;
        r.reason = "interrupted";
      }
    }
    return r;
  }

 private:
  int at_;
  bool answer_skipped_;
};

}  // namespace

/// Ctrl-C during the final re-time: candidates whose turn never came store nothing (a stored
/// "skipped" row would supersede their verified figures), and the pick falls back to the
/// quick figures, the vendor's included.
TEST(SearchSession, AnInterruptedReTimeStoresNothingUnmeasured) {
  install_interrupt_handler();
  TestFamily fam;
  MemoryStore store;
  InterruptingGpu gpu(17, false);  // the first candidate of the re-time's first round
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(store.finished.empty());  // cut short: the next run searches it again
  int skipped = 0;
  for (Trial const& t : store.trials) skipped += t.disposition == Disposition::kSkipped;
  EXPECT_EQ(skipped, 2);  // the two spilling configs of the search itself
  EXPECT_EQ(r.problems[0].retimed, 0);
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), kLtId);
}


/// Ctrl-C while a candidate of the re-time is in its second round (the worker answers that
/// candidate "skipped"): no skipped row supersedes its verified figure, no partial median is
/// stored, and the pick is over the quick figures, the vendor's included — a cut-short search
/// never exports an own kernel slower than the vendor's call it has timed.
TEST(SearchSession, AReTimeCutInItsSecondRoundFallsBackToTheQuickFiguresVendorIncluded) {
  install_interrupt_handler();
  TestFamily fam;
  MemoryStore store;
  InterruptingGpu gpu(19, true);  // the re-time's second round, its first candidate
  SearchReport const r = SearchSession(gpu, store, fake_compile(), "/tmp").run(vendor_options(fam));
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  int skipped = 0, retimed_rows = 0;
  for (Trial const& t : store.trials) {
    skipped += t.disposition == Disposition::kSkipped;
    retimed_rows += t.spread_rounds >= 2;
  }
  EXPECT_EQ(skipped, 2);  // the two spilling configs of the search itself
  EXPECT_EQ(retimed_rows, 0);
  ASSERT_TRUE(r.problems[0].best);
  EXPECT_EQ(r.problems[0].best->config.id(), kLtId);
  EXPECT_EQ(r.problems[0].best->spread_rounds, 1);
  ASSERT_TRUE(r.problems[0].best_own);
  EXPECT_EQ(r.problems[0].best_own->config.id(), "testfam:X=5,Y=1");
  EXPECT_DOUBLE_EQ(r.problems[0].baseline.cublas_ms, 0.9);  // the first baseline's, not a partial median
}

}  // namespace gemmtune
