// The tuning cache store: record/find, resume semantics, re-runs, best, baselines, searches,
// listings, concurrent writers, and the export to a tuning table.
#include "db/sqlite_trial_store.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "db/schema.hpp"
#include "src/core/error.hpp"
#include "src/core/table_lookup.hpp"
#include "src/core/vendor_kernel.hpp"
#include "tests/db/db_test_support.hpp"

namespace gemmtune {
namespace {

using namespace testing_support;

void expect_same(Trial const& a, Trial const& b) {
  EXPECT_EQ(a.search_id, b.search_id);
  EXPECT_EQ(a.gpu, b.gpu);
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.disposition, b.disposition);
  EXPECT_EQ(a.reason, b.reason);
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  EXPECT_TRUE(same(a.time_ms, b.time_ms));
  EXPECT_TRUE(same(a.min_ms, b.min_ms));
  EXPECT_TRUE(same(a.tflops, b.tflops));
  EXPECT_TRUE(same(a.cublas_ms, b.cublas_ms));
  EXPECT_TRUE(same(a.cublaslt_ms, b.cublaslt_ms));
  EXPECT_TRUE(same(a.max_abs_err, b.max_abs_err)) << a.max_abs_err << " vs " << b.max_abs_err;
  EXPECT_TRUE(same(a.max_err_ratio, b.max_err_ratio));
  EXPECT_TRUE(same(a.rel_fro_err, b.rel_fro_err));
  EXPECT_EQ(a.exact_mismatches, b.exact_mismatches);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.spill_bytes, b.spill_bytes);
  EXPECT_EQ(a.smem_bytes, b.smem_bytes);
  EXPECT_TRUE(same(a.compile_ms, b.compile_ms));
  EXPECT_EQ(a.provenance, b.provenance);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.spread_lo_ms, b.spread_lo_ms);
  EXPECT_EQ(a.spread_hi_ms, b.spread_hi_ms);
  EXPECT_EQ(a.spread_rounds, b.spread_rounds);
  EXPECT_EQ(a.board_sm_clock_mhz, b.board_sm_clock_mhz);
  EXPECT_EQ(a.board_temperature_c, b.board_temperature_c);
}

class Store : public testing::Test {
 protected:
  TempDir dir;
  std::filesystem::path path = dir / "cache.db";
  SqliteTrialStore store{path};
};

TEST_F(Store, RecordAndFindRoundTripEveryField) {
  std::int64_t const search = store.begin_search("gemmtune search --shape 4096x4096x4096");
  Trial t = trial(h200(), problem(4096, 4096, 4096, 16), "simt:BM=128,BN=128,BK=8", Disposition::kWrongResult, 3.25);
  t.search_id = search;
  t.reason = "max_err_ratio 4.2 > 1";
  t.cublas_ms = 2.5;
  t.cublaslt_ms = 2.25;
  t.max_abs_err = std::numeric_limits<double>::quiet_NaN();  // NaN output: stored as NULL
  t.max_err_ratio = std::numeric_limits<double>::infinity();
  t.rel_fro_err = 0.125;
  t.exact_mismatches = 17;
  t.registers = 128;
  t.spill_bytes = 8;
  t.smem_bytes = 32768;
  t.compile_ms = 812.5;
  t.created_at = 1750000000;
  t.spread_lo_ms = 3.125;
  t.spread_hi_ms = 3.5;
  t.board_sm_clock_mhz = 1755;
  t.board_temperature_c = 57;
  t.spread_rounds = 6;
  std::int64_t const id = store.record_trial(t);
  EXPECT_GT(id, 0);

  auto const found = store.find_trial(t.gpu, t.problem, t.config, t.provenance);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, id);
  expect_same(*found, t);
}

TEST_F(Store, ProblemAlignZeroIsStoredResolved) {
  Trial t = trial(h200(), problem(4096, 4096, 4096, 0), "naive:BX=32", Disposition::kOk, 1.0);
  store.record_trial(t);
  auto const found = store.find_trial(h200(), problem(4096, 4096, 4096, 16), t.config, t.provenance);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->problem.align, 16);
  EXPECT_TRUE(store.find_trial(h200(), problem(4096, 4096, 4096, 0), t.config, t.provenance));
}

TEST_F(Store, ResumeFindsStoredFailures) {
  Trial t = trial(h200(), problem(512, 512, 512), "simt:BM=256,BN=256", Disposition::kCompileError);
  t.reason = "ptxas: too many resources";
  store.record_trial(t);
  auto const found = store.find_trial(t.gpu, t.problem, t.config, t.provenance);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->disposition, Disposition::kCompileError);
  EXPECT_EQ(found->reason, "ptxas: too many resources");
  // Another provenance (templates changed) or another GPU is not a hit.
  EXPECT_FALSE(store.find_trial(t.gpu, t.problem, t.config, provenance("def456")));
  EXPECT_FALSE(store.find_trial(a100(), t.problem, t.config, t.provenance));
  EXPECT_FALSE(store.find_trial(t.gpu, problem(512, 512, 512, 8), t.config, t.provenance));
  EXPECT_FALSE(store.find_trial(t.gpu, t.problem, parse_kernel_id("simt:BM=128,BN=256"),
                                t.provenance));
}

TEST_F(Store, RerunKeepsHistoryAndTheNewestAttemptCounts) {
  Problem const p = problem(1024, 1024, 1024);
  store.record_trial(trial(h200(), p, "simt:V=1", Disposition::kOk, 1.0));
  store.record_trial(trial(h200(), p, "simt:V=2", Disposition::kOk, 1.5));
  // V=1 is re-run and now fails verification.
  store.record_trial(trial(h200(), p, "simt:V=1", Disposition::kWrongResult, 0.9));

  EXPECT_EQ(store.trials_for(h200(), p).size(), 3u);
  auto const found = store.find_trial(h200(), p, parse_kernel_id("simt:V=1"), provenance());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->disposition, Disposition::kWrongResult);
  auto const best = store.best(h200(), p);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.id(), "simt:V=2");
  EXPECT_EQ(raw_sql(path, "SELECT max(attempt) FROM trials WHERE kernel_id = 'simt:V=1'"), 2);
}

TEST_F(Store, TrialsForIsNewestFirstAcrossProvenances) {
  Problem const p = problem(256, 256, 256);
  Trial a = trial(h200(), p, "simt:V=1", Disposition::kOk, 1.0);
  Trial b = trial(h200(), p, "simt:V=1", Disposition::kOk, 1.1);
  b.provenance = provenance("other");
  std::int64_t const ia = store.record_trial(a);
  std::int64_t const ib = store.record_trial(b);
  auto const all = store.trials_for(h200(), p);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, ib);
  EXPECT_EQ(all[1].id, ia);
  EXPECT_TRUE(store.trials_for(a100(), p).empty());
}

TEST_F(Store, BestIsTheFastestVerifiedTrial) {
  Problem const p = problem(2048, 2048, 2048);
  EXPECT_FALSE(store.best(h200(), p).has_value());
  store.record_trial(trial(h200(), p, "simt:V=1", Disposition::kOk, 3.0));
  store.record_trial(trial(h200(), p, "simt:V=2", Disposition::kOk, 2.0));
  store.record_trial(trial(h200(), p, "simt:V=3", Disposition::kTimeout, 0.0));
  store.record_trial(trial(h200(), p, "simt:V=4", Disposition::kWrongResult, 0.5));
  store.record_trial(trial(a100(), p, "simt:V=5", Disposition::kOk, 1.0));
  auto const best = store.best(h200(), p);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.id(), "simt:V=2");
  EXPECT_EQ(best->time_ms, 2.0);
}

TEST_F(Store, BestAppliesTheTieRuleAmongReTimedTrials) {
  Problem const p = problem(2048, 2048, 2048);
  auto retimed = [&](std::string const& id, double ms) {
    Trial t = trial(h200(), p, id, Disposition::kOk, ms);
    t.spread_lo_ms = ms * 0.99;
    t.spread_hi_ms = ms * 1.01;
    t.spread_rounds = 6;
    t.board_sm_clock_mhz = 1605;
    t.board_temperature_c = 58;
    return t;
  };
  store.record_trial(retimed("simt:V=9", 2.000));
  store.record_trial(retimed("simt:V=1", 2.010));  // within the band (±1% spread): a tie
  store.record_trial(retimed("simt:V=0", 2.100));  // outside it
  Trial quick = trial(h200(), p, "simt:V=00", Disposition::kOk, 2.001);  // one timing alone
  store.record_trial(quick);
  // A quick figure of the search (a shorter protocol, another moment) reads faster than every
  // re-timed one; it does not decide a problem that was re-timed.
  store.record_trial(trial(h200(), p, "simt:V=5", Disposition::kOk, 1.5));
  auto const best = store.best(h200(), p);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.id(), "simt:V=1");
  EXPECT_EQ(best->spread_rounds, 6);
  // The table exports the same pick, with its spread.
  TuningTable const table = store.to_table({}, "2026-12-01T00:00:00Z");
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(table.entries[0].kernel.id(), "simt:V=1");
  ASSERT_TRUE(table.entries[0].spread.has_value());
  EXPECT_EQ(table.entries[0].spread->rounds, 6);
  EXPECT_DOUBLE_EQ(table.entries[0].spread->lo_ms, 2.010 * 0.99);
  // And the board its rounds ran on; a trial that stored none exports none.
  ASSERT_TRUE(table.entries[0].board.has_value());
  EXPECT_EQ(*table.entries[0].board, (TableBoard{1605, 58}));
  Trial plain = trial(h200(), problem(512, 512, 512), "simt:V=1", Disposition::kOk, 0.1);
  store.record_trial(plain);
  TuningTable const both = store.to_table({}, "2026-12-01T00:00:00Z");
  ASSERT_EQ(both.entries.size(), 2u);
  EXPECT_EQ(both.entries[0].problem.m, 512);
  EXPECT_FALSE(both.entries[0].board.has_value());
}


TEST_F(Store, VendorPicksExportWithOurBestBesideThemOrAreLeftOut) {
  Problem const p = problem(4096, 4096, 4096);
  auto retimed = [&](std::string const& id, double ms, Provenance const& prov) {
    Trial t = trial(h200(), p, id, Disposition::kOk, ms);
    t.provenance = prov;
    t.spread_lo_ms = ms * 0.995;
    t.spread_hi_ms = ms * 1.005;
    t.spread_rounds = 6;
    t.cublas_ms = 2.0;
    return t;
  };
  Provenance vendor = provenance("");
  vendor.cublas = "13.1.0";
  std::string const lt =
      "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0";
  store.record_trial(retimed("simt:V=1", 2.2, provenance()));
  store.record_trial(retimed("simt:V=2", 2.4, provenance()));
  store.record_trial(retimed("cublas:default", 2.0, vendor));
  store.record_trial(retimed(lt, 1.8, vendor));
  EXPECT_EQ(store.best(h200(), p)->config.id(), lt);
  EXPECT_EQ(store.best_own(h200(), p)->config.id(), "simt:V=1");

  TuningTable const table = store.to_table({}, "2026-12-02T00:00:00Z");
  ASSERT_EQ(table.entries.size(), 1u);
  TableEntry const& e = table.entries[0];
  EXPECT_EQ(e.kernel.id(), lt);
  EXPECT_TRUE(e.vendor());
  EXPECT_EQ(e.cublas_version, "13.1.0");
  ASSERT_TRUE(e.own.has_value());
  EXPECT_EQ(e.own->kernel.id(), "simt:V=1");
  EXPECT_DOUBLE_EQ(e.own->time_ms, 2.2);
  // Alternatives and defaults are our kernels only: the lookup's model knows no others.
  for (auto const& a : e.alternatives) EXPECT_FALSE(is_vendor(a.kernel)) << a.kernel.id();
  for (auto const& d : table.defaults) EXPECT_FALSE(is_vendor(d.kernel)) << d.kernel.id();

  TableFilter own_only;
  own_only.own_only = true;
  TuningTable const own = store.to_table(own_only, "2026-12-02T00:00:00Z");
  ASSERT_EQ(own.entries.size(), 1u);
  EXPECT_EQ(own.entries[0].kernel.id(), "simt:V=1");
  EXPECT_FALSE(own.entries[0].vendor());
  EXPECT_FALSE(own.entries[0].own.has_value());
}

TEST_F(Store, FinishedProblemsAreFoundOnlyUnderTheirSettings) {
  Problem const p = problem(4096, 4096, 4096);
  EXPECT_FALSE(store.finished_by(h200(), p, "{\"budget\":3}"));
  std::int64_t const a = store.begin_search("first");
  std::int64_t const b = store.begin_search("second");
  store.record_finished_problem(a, h200(), p, "{\"budget\":3}");
  store.record_finished_problem(b, h200(), p, "{\"budget\":3}");
  store.record_finished_problem(a, h200(), problem(512, 512, 512), "{\"budget\":3}");
  EXPECT_EQ(store.finished_by(h200(), p, "{\"budget\":3}"), b);  // the newest
  EXPECT_FALSE(store.finished_by(h200(), p, "{\"budget\":30}"));
  EXPECT_FALSE(store.finished_by(a100(), p, "{\"budget\":3}"));
  EXPECT_FALSE(store.finished_by(h200(), problem(4096, 4096, 2048), "{\"budget\":3}"));
  // Align 0 means the packed storage's class, as for every other key.
  EXPECT_EQ(store.finished_by(h200(), problem(512, 512, 512, 0), "{\"budget\":3}"), a);
}

TEST_F(Store, Baselines) {
  Problem const p = problem(4096, 4096, 4096);
  EXPECT_FALSE(store.find_baseline(h200(), p).has_value());
  BaselineResult first;
  first.ok = true;
  first.cublas_ms = 2.0;
  first.cublaslt_ms = 1.9;
  first.cublaslt_algo_index = 3;
  first.cublaslt_algos_tried = 8;
  first.cublas_min_ms = 1.95;
  first.cublas_max_ms = 2.05;
  store.record_baseline(h200(), p, first, provenance());
  BaselineResult second = first;
  second.cublas_ms = 2.1;
  second.reason = "re-timed";
  store.record_baseline(h200(), p, second, provenance("other"));
  auto const found = store.find_baseline(h200(), p);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->ok);
  EXPECT_EQ(found->cublas_ms, 2.1);
  EXPECT_EQ(found->cublaslt_ms, 1.9);
  EXPECT_EQ(found->cublaslt_algo_index, 3);
  EXPECT_EQ(found->cublaslt_algos_tried, 8);
  EXPECT_EQ(found->reason, "re-timed");
  EXPECT_EQ(found->cublas_min_ms, 1.95);
  EXPECT_EQ(found->cublas_max_ms, 2.05);
  EXPECT_FALSE(store.find_baseline(h200(), problem(4096, 4096, 2048)).has_value());
  EXPECT_FALSE(store.find_baseline(a100(), p).has_value());
}

TEST_F(Store, Searches) {
  std::int64_t const a = store.begin_search("first");
  std::int64_t const b = store.begin_search("second");
  store.finish_search(a, R"({"compile_s":1.5,"gpu_s":2.5})");
  auto const list = store.searches();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, b);
  EXPECT_EQ(list[0].finished_at, 0);  // still running (or interrupted)
  EXPECT_EQ(list[1].arguments, "first");
  EXPECT_GT(list[1].finished_at, 0);
  EXPECT_EQ(list[1].phase_times_json, R"({"compile_s":1.5,"gpu_s":2.5})");
  EXPECT_THROW(store.finish_search(9999, "{}"), Error);
}

TEST_F(Store, TrialOfAnUnknownSearchIsRefused) {
  Trial t = trial(h200(), problem(64, 64, 64), "naive:BX=32", Disposition::kOk, 1.0);
  t.search_id = 42;  // foreign key: no such search
  EXPECT_THROW(store.record_trial(t), Error);
  EXPECT_EQ(store.stats().trials, 0);
}

TEST_F(Store, OutOfRangeProblemIsRefusedClearly) {
  Trial t = trial(h200(), problem(0, 64, 64), "naive:BX=32", Disposition::kOk, 1.0);
  try {
    store.record_trial(t);
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("0x64x64"), std::string::npos) << e.what();
  }
}

TEST_F(Store, ListsFiltersAndStats) {
  Problem const p1 = problem(1024, 1024, 1024);
  Problem const p2 = problem(1000, 1000, 1000, 4, Precision::kTF32, Layout::kNT);
  store.record_trial(trial(h200(), p1, "simt:V=1", Disposition::kOk, 1.0));
  store.record_trial(trial(h200(), p1, "simt:V=2", Disposition::kOk, 0.8));
  store.record_trial(trial(h200(), p1, "simt:V=3", Disposition::kFault));
  store.record_trial(trial(h200(), p2, "mma:V=1", Disposition::kOk, 0.5));
  store.record_trial(trial(a100(), p1, "simt:V=1", Disposition::kRejected));

  auto const gpus = store.list_gpus();
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0], h200());
  EXPECT_EQ(gpus[1], a100());

  auto const all = store.list_problems();
  ASSERT_EQ(all.size(), 3u);
  auto const h = store.list_problems(h200());
  ASSERT_EQ(h.size(), 2u);
  ProblemSummary const* s1 = h[0].problem == p1 ? &h[0] : &h[1];
  EXPECT_EQ(s1->total, 3);
  EXPECT_EQ(s1->counts.at(Disposition::kOk), 2);
  EXPECT_EQ(s1->counts.at(Disposition::kFault), 1);
  ASSERT_TRUE(s1->best.has_value());
  EXPECT_EQ(s1->best->config.id(), "simt:V=2");
  auto const a = store.list_problems(a100());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_FALSE(a[0].best.has_value());

  TrialFilter f;
  f.disposition = Disposition::kOk;
  EXPECT_EQ(store.trials(f).size(), 3u);
  f.gpu = h200();
  f.limit = 2;
  auto const limited = store.trials(f);
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[0].config.id(), "mma:V=1");  // newest first
  TrialFilter by_problem;
  by_problem.problem = problem(1000, 1000, 1000, 0, Precision::kTF32, Layout::kNT);  // any align
  EXPECT_EQ(store.trials(by_problem).size(), 1u);
  by_problem.problem->align = 16;
  EXPECT_EQ(store.trials(by_problem).size(), 0u);
  TrialFilter by_kernel;
  by_kernel.kernel_id = "simt:V=1";
  EXPECT_EQ(store.trials(by_kernel).size(), 2u);
  EXPECT_EQ(store.trials_for_kernel("simt:V=1").size(), 2u);
  EXPECT_TRUE(store.trials_for_kernel("simt:V=9").empty());
  EXPECT_EQ(store.trials(TrialFilter{}).size(), 5u);

  StoreStats const st = store.stats();
  EXPECT_EQ(st.trials, 5);
  EXPECT_EQ(st.gpus, 2);
  EXPECT_EQ(st.problems, 3);
  EXPECT_EQ(st.by_disposition.at(Disposition::kOk), 3);
  EXPECT_EQ(st.by_disposition.at(Disposition::kRejected), 1);
  EXPECT_EQ(st.schema_version, cache_schema_version());
}

TEST_F(Store, WritesAreVisibleToAnotherConnectionImmediately) {
  store.record_trial(trial(h200(), problem(64, 64, 64), "naive:BX=32", Disposition::kCrash));
  SqliteTrialStore other(path, SqliteTrialStore::Access::kReadOnly);
  EXPECT_EQ(other.stats().trials, 1);
}

// ---- concurrency ---------------------------------------------------------------------

constexpr int kPerWriter = 40;

void write_many(std::filesystem::path const& path, int writer) {
  SqliteTrialStore s(path);
  std::int64_t const search = s.begin_search("writer " + std::to_string(writer));
  for (int i = 0; i < kPerWriter; ++i) {
    Trial t = trial(h200(), problem(128 + writer, 128, 128 + i), "naive:BX=" + std::to_string(i),
                    Disposition::kOk, 1.0 + i);
    t.search_id = search;
    s.record_trial(t);
  }
  s.finish_search(search, "{}");
}

TEST(StoreConcurrency, TwoProcessesWriteEveryRow) {
  TempDir dir;
  auto const path = dir / "shared.db";
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    pid_t const pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The child opens its own connection after the fork (never carry one across).
      int rc = 0;
      try {
        write_many(path, w);
      } catch (std::exception const& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        rc = 1;
      }
      ::_exit(rc);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  SqliteTrialStore store(path);
  StoreStats const st = store.stats();
  EXPECT_EQ(st.trials, 2 * kPerWriter);
  EXPECT_EQ(st.searches, 2);
  EXPECT_EQ(st.gpus, 1);
}

TEST(StoreConcurrency, TwoConnectionsInThreadsWriteEveryRow) {
  TempDir dir;
  auto const path = dir / "shared.db";
  { SqliteTrialStore init(path); }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      try {
        write_many(path, w);
      } catch (std::exception const& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  SqliteTrialStore store(path);
  EXPECT_EQ(store.stats().trials, 2 * kPerWriter);
}

// ---- export ----------------------------------------------------------------------------

// One speedup definition: the table's ratio is the one `list` shows, the pick's time over the
// cuBLAS figure timed with it, even when a later search stored a baseline of its own.
TEST_F(Store, ExportedRatiosUseTheBaselineTimedWithThePick) {
  Problem const p = problem(4096, 4096, 4096);
  Trial t = trial(h200(), p, "simt:V=1", Disposition::kOk, 2.0);
  t.cublas_ms = 2.08;
  t.cublaslt_ms = 2.02;
  store.record_trial(t);
  BaselineResult later;
  later.ok = true;
  later.cublas_ms = 2.24;  // a quick baseline of a later search, on a hotter board
  later.cublaslt_ms = 2.2;
  store.record_baseline(h200(), p, later, provenance());
  TuningTable const table = store.to_table({}, "2025-06-01T12:00:00Z");
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_DOUBLE_EQ(*table.entries[0].ratio_cublas(), 2.08 / 2.0);
  EXPECT_DOUBLE_EQ(*table.entries[0].ratio_cublaslt(), 2.02 / 2.0);
}

TEST_F(Store, ExportToTableAndBack) {
  Problem const big = problem(4096, 4096, 4096);
  Problem const mid = problem(2048, 2048, 2048);
  Problem const odd = problem(1000, 1000, 1000, 4);
  // X wins big, Y is second everywhere, Z only ran on the 4-aligned shape.
  store.record_trial(trial(h200(), big, "simt:V=1", Disposition::kOk, 2.0));   // X
  store.record_trial(trial(h200(), big, "simt:V=2", Disposition::kOk, 2.2));   // Y
  store.record_trial(trial(h200(), mid, "simt:V=1", Disposition::kFault));     // X fails
  store.record_trial(trial(h200(), mid, "simt:V=2", Disposition::kOk, 0.30));  // Y
  store.record_trial(trial(h200(), odd, "simt:V=3", Disposition::kOk, 0.10));  // Z
  store.record_trial(trial(h200(), odd, "simt:V=2", Disposition::kWrongResult, 0.05));
  Trial with_baseline = trial(h200(), mid, "simt:V=4", Disposition::kOk, 0.35);
  with_baseline.cublas_ms = 0.33;
  store.record_trial(with_baseline);
  BaselineResult b;
  b.ok = true;
  b.cublas_ms = 2.4;
  b.cublaslt_ms = 2.1;
  store.record_baseline(h200(), big, b, provenance());
  // Another GPU and precision, to check the filter.
  store.record_trial(trial(a100(), problem(512, 512, 512, 16, Precision::kBF16), "mma:V=1",
                           Disposition::kOk, 0.01));

  TuningTable const table = store.to_table({}, "2025-06-01T12:00:00Z");
  EXPECT_EQ(table.generated_at, "2025-06-01T12:00:00Z");
  ASSERT_EQ(table.gpus.size(), 2u);
  ASSERT_EQ(table.entries.size(), 4u);
  auto entry = [&](Problem const& p) -> TableEntry const& {
    for (auto const& e : table.entries) {
      if (e.problem == p && table.find_gpu(e.gpu)->gpu == h200()) return e;
    }
    ADD_FAILURE() << "no entry for " << p.describe();
    return table.entries.front();
  };
  EXPECT_EQ(entry(big).kernel.id(), "simt:V=1");
  EXPECT_EQ(entry(big).time_ms, 2.0);
  EXPECT_EQ(entry(big).cublas_ms, 2.4);     // from the baselines table
  EXPECT_EQ(entry(big).cublaslt_ms, 2.1);
  EXPECT_DOUBLE_EQ(*entry(big).ratio_cublaslt(), 2.1 / 2.0);
  EXPECT_EQ(entry(mid).kernel.id(), "simt:V=2");
  EXPECT_FALSE(entry(mid).cublas_ms.has_value());  // the winner was timed without a baseline
  EXPECT_EQ(entry(odd).kernel.id(), "simt:V=3");
  // Alternatives: the other verified kernels, fastest first, relative to the winner's first
  // figure; failed and wrong-result trials are not offered.
  ASSERT_EQ(entry(big).alternatives.size(), 1u);
  EXPECT_EQ(entry(big).alternatives[0].kernel.id(), "simt:V=2");
  EXPECT_DOUBLE_EQ(entry(big).alternatives[0].relative, 2.0 / 2.2);
  ASSERT_EQ(entry(mid).alternatives.size(), 1u);
  EXPECT_EQ(entry(mid).alternatives[0].kernel.id(), "simt:V=4");
  EXPECT_DOUBLE_EQ(entry(mid).alternatives[0].relative, 0.30 / 0.35);
  EXPECT_TRUE(entry(odd).alternatives.empty());

  // Defaults for h200 fp32 NN: shapes big, mid (a16) and odd (a4). Mean relative performance:
  //   X: (1 + 0 + 0) / 3;  Y: (2/2.2 + 1 + 0) / 3;  Z: (0 + 0 + 1) / 3;  W: (0 + 0.3/0.35 + 0) / 3.
  // For a16 problems every config qualifies: Y. For a4 problems only Z was verified on
  // 4-byte-aligned data, so Z, though its mean is lower.
  std::vector<TableDefault> h200_defaults;
  for (auto const& d : table.defaults) {
    if (table.find_gpu(d.gpu)->gpu == h200()) h200_defaults.push_back(d);
  }
  ASSERT_EQ(h200_defaults.size(), 2u);
  EXPECT_EQ(h200_defaults[0].align, 4);
  EXPECT_EQ(h200_defaults[0].kernel.id(), "simt:V=3");
  EXPECT_NEAR(h200_defaults[0].mean_relative, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(h200_defaults[0].shapes, 1);
  EXPECT_EQ(h200_defaults[1].align, 16);
  EXPECT_EQ(h200_defaults[1].kernel.id(), "simt:V=2");
  EXPECT_NEAR(h200_defaults[1].mean_relative, (2.0 / 2.2 + 1.0) / 3.0, 1e-12);
  EXPECT_EQ(h200_defaults[1].shapes, 2);

  // The export is a valid table: it survives the strict reader, and lookups work on it.
  TuningTable const back = parse_tuning_table(format_tuning_table(table));
  EXPECT_EQ(back, table);
  LookupResult const hit = lookup(back, h200(), big);
  EXPECT_EQ(hit.rule, LookupRule::kExact);
  EXPECT_EQ(hit.kernel->id(), "simt:V=1");

  TableFilter only_bf16;
  only_bf16.precision = Precision::kBF16;
  TuningTable const bf16 = store.to_table(only_bf16);
  ASSERT_EQ(bf16.entries.size(), 1u);
  EXPECT_EQ(bf16.gpus.size(), 1u);
  EXPECT_EQ(bf16.gpus[0].gpu, a100());
  TableFilter only_h200;
  only_h200.gpu = h200();
  EXPECT_EQ(store.to_table(only_h200).entries.size(), 3u);
}

TEST_F(Store, ExportOfAnEmptyCacheIsAnEmptyValidTable) {
  TuningTable const t = store.to_table();
  EXPECT_TRUE(t.entries.empty());
  EXPECT_TRUE(t.defaults.empty());
  EXPECT_EQ(parse_tuning_table(format_tuning_table(t)), t);
}

}  // namespace
}  // namespace gemmtune
