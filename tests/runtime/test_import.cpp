// `import`: tables and caches merged into a cache — new trials, duplicates, better and worse
// figures, local measurements never hidden, malformed and foreign files refused with the cache
// left byte-for-byte unchanged; and the CLI's report.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <sqlite3.h>

#include "db/cache_check.hpp"
#include "db/cache_import.hpp"
#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gemmtune_import_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(std::string const& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string bytes(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

GpuIdentity h200() { return GpuIdentity{"NVIDIA H200", 9, 0, 132}; }

Problem problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  return parse_shape(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k)).resolved();
}

constexpr char kFast[] = "blocktile_2d:BM=128,BN=128,BK=8,TM=8,TN=8";
constexpr char kSlow[] = "naive:BM=32,BN=32";

Trial local_trial(Problem const& p, std::string const& kernel, double ms,
                  Disposition d = Disposition::kOk) {
  Trial t;
  t.gpu = h200();
  t.problem = p;
  t.config = parse_kernel_id(kernel);
  t.disposition = d;
  t.time_ms = d == Disposition::kOk ? ms : 0.0;
  t.tflops = d == Disposition::kOk ? p.flops() / (ms * 1e-3) / 1e12 : 0.0;
  t.provenance = Provenance{"13000", "13000", "13.0", "130100", "0.1.0", "abc", "-std=c++17"};
  return t;
}

TuningTable table_with(std::vector<std::pair<Problem, std::pair<std::string, double>>> const& rows) {
  TuningTableBuilder b("2025-01-01T00:00:00Z");
  for (auto const& [p, kt] : rows) {
    b.add_entry(h200(), p, parse_kernel_id(kt.first), kt.second,
                p.flops() / (kt.second * 1e-3) / 1e12, 1.0, std::nullopt);
  }
  return b.build();
}

TEST(Import, TableEntriesBecomeImportedTrials) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  TuningTable const t = table_with({{problem(256, 256, 256), {kFast, 0.5}},
                                    {problem(512, 512, 512), {kSlow, 2.0}}});
  ImportReport const r = import_table(cache, t, "t.json");
  EXPECT_EQ(r.kind, "table");
  EXPECT_EQ(r.offered, 2);
  EXPECT_EQ(r.added, 2);
  EXPECT_EQ(r.new_best, 2);
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_GT(r.search_id, 0);

  SqliteTrialStore store(cache);
  auto const best = store.best(h200(), problem(256, 256, 256));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config.id(), kFast);
  EXPECT_DOUBLE_EQ(best->time_ms, 0.5);
  EXPECT_DOUBLE_EQ(best->cublas_ms, 1.0);
  EXPECT_EQ(best->search_id, r.search_id);
  // The table was written by this build (the builder stamps its version).
  std::string const version(gemmtune_version());
  EXPECT_EQ(best->provenance, imported_table_provenance(version));
  EXPECT_EQ(best->provenance.gemmtune_version, "imported:" + version);
  EXPECT_NE(best->reason.find("imported from t.json"), std::string::npos);
  // An imported figure never stands in for a measurement under a search's own provenance.
  EXPECT_FALSE(store.find_trial(h200(), problem(256, 256, 256), parse_kernel_id(kFast),
                                local_trial(problem(1, 1, 1), kFast, 1).provenance));
  // Export round trip: the table comes back with the same winners.
  TuningTable const back = store.to_table({}, "2025-01-01T00:00:00Z");
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[0].kernel.id(), kFast);
  EXPECT_EQ(back.entries[1].kernel.id(), kSlow);
}

TEST(Import, AlternativesComeBackFromARoundTrip) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  Problem const p = problem(1024, 1024, 1024);
  TuningTableBuilder b("2025-01-01T00:00:00Z");
  b.add_entry(h200(), p, parse_kernel_id(kFast), 0.5, p.flops() / 0.5e-3 / 1e12, std::nullopt,
              std::nullopt,
              {{parse_kernel_id(kSlow), 0.25},
               // Measured faster than the winner's re-time: it must not take the winner's place.
               {parse_kernel_id("blocktile_2d:BM=64,BN=64,BK=8,TM=8,TN=8"), 1.1}});
  ImportReport const r = import_table(cache, b.build(), "t.json");
  EXPECT_EQ(r.added, 3);
  SqliteTrialStore store(cache);
  EXPECT_EQ(store.best(h200(), p)->config.id(), kFast);
  TuningTable const back = store.to_table({}, "2025-01-01T00:00:00Z");
  ASSERT_EQ(back.entries.size(), 1u);
  EXPECT_EQ(back.entries[0].kernel.id(), kFast);
  ASSERT_EQ(back.entries[0].alternatives.size(), 2u);
  EXPECT_EQ(back.entries[0].alternatives[0].kernel.id(), "blocktile_2d:BM=64,BN=64,BK=8,TM=8,TN=8");
  EXPECT_DOUBLE_EQ(back.entries[0].alternatives[0].relative, 1.0);  // capped at the winner's speed
  EXPECT_EQ(back.entries[0].alternatives[1].kernel.id(), kSlow);
  EXPECT_DOUBLE_EQ(back.entries[0].alternatives[1].relative, 0.25);
}


// A table with vendor picks comes back out of the cache as it went in: the pick, its cuBLAS
// version, its spread, its board and our own best kernel beside it.
TEST(Import, VendorPicksRoundTripThroughTheCache) {
  TempDir dir;
  Problem const p = problem(512, 512, 512);
  KernelConfig const lt = parse_kernel_id(
      "cublaslt:ALGO=66,TILE=12,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=3,"
      "COMPUTE=0");
  TuningTableBuilder b("2026-12-02T00:00:00Z");
  b.add_entry(h200(), p, lt, 0.0035, 76.7, 0.0037, 0.0035, {}, TableSpread{0.00349, 0.00352, 6},
              TableOwnFigure{parse_kernel_id(kFast), 0.0042}, "13.1.0")
      .board = TableBoard{1980, 52};
  b.add_entry(h200(), problem(128, 128, 128), cublas_default(), 0.002, 2.1, 0.002, 0.0021, {},
              TableSpread{0.0019, 0.0021, 6}, std::nullopt, "13.1.0");
  TuningTable const table = b.build();
  ImportReport const r = import_table(dir / "cache.db", table, "t.json", {});
  EXPECT_EQ(r.added, 3);  // two picks and our kernel beside one of them
  SqliteTrialStore store(dir / "cache.db");
  TuningTable const back = store.to_table({}, "2026-12-02T00:00:00Z");
  ASSERT_EQ(back.entries.size(), 2u);
  TableEntry const& e = back.entries[1];
  EXPECT_EQ(e.kernel, lt);
  EXPECT_EQ(e.cublas_version, "13.1.0");
  ASSERT_TRUE(e.own.has_value());
  EXPECT_EQ(e.own->kernel.id(), kFast);
  EXPECT_DOUBLE_EQ(e.own->time_ms, 0.0042);
  ASSERT_TRUE(e.board.has_value());
  EXPECT_EQ(*e.board, (TableBoard{1980, 52}));
  EXPECT_EQ(back.entries[0].kernel.id(), "cublas:default");
  EXPECT_FALSE(back.entries[0].board.has_value());
  TableFilter own_only;
  own_only.own_only = true;
  TuningTable const ours = store.to_table(own_only, "2026-12-02T00:00:00Z");
  ASSERT_EQ(ours.entries.size(), 1u);
  EXPECT_EQ(ours.entries[0].kernel.id(), kFast);
}

TEST(Import, SameTableTwiceIsDuplicates) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  TuningTable const t = table_with({{problem(256, 256, 256), {kFast, 0.5}}});
  import_table(cache, t, "t.json");
  ImportReport const again = import_table(cache, t, "t.json");
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.duplicates, 1);
  EXPECT_EQ(again.search_id, 0);  // nothing added: no search row
  SqliteTrialStore store(cache);
  EXPECT_EQ(store.stats().trials, 1);
  EXPECT_EQ(store.stats().searches, 1);
}

TEST(Import, ConflictingFigureForAStoredKeyKeepsTheStoredOne) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  import_table(cache, table_with({{problem(256, 256, 256), {kFast, 0.5}}}), "a.json");
  ImportReport const r =
      import_table(cache, table_with({{problem(256, 256, 256), {kFast, 0.1}}}), "b.json");
  EXPECT_EQ(r.kept_local, 1);
  EXPECT_EQ(r.added, 0);
  SqliteTrialStore store(cache);
  EXPECT_DOUBLE_EQ(store.best(h200(), problem(256, 256, 256))->time_ms, 0.5);
}

TEST(Import, WorseImportNeverBeatsABetterLocalTrial) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  Problem const p = problem(256, 256, 256);
  {
    SqliteTrialStore store(cache);
    store.record_trial(local_trial(p, kFast, 0.4));
  }
  ImportReport const r = import_table(cache, table_with({{p, {kSlow, 3.0}}}), "t.json");
  EXPECT_EQ(r.added, 1);
  EXPECT_EQ(r.not_best, 1);
  EXPECT_EQ(r.new_best, 0);
  SqliteTrialStore store(cache);
  auto const best = store.best(h200(), p);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config.id(), kFast);
  EXPECT_DOUBLE_EQ(best->time_ms, 0.4);
  EXPECT_EQ(best->provenance.gemmtune_version, "0.1.0");
}

TEST(Import, BetterImportBecomesBestLocalTrialStaysStored) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  Problem const p = problem(256, 256, 256);
  {
    SqliteTrialStore store(cache);
    store.record_trial(local_trial(p, kSlow, 3.0));
  }
  ImportReport const r = import_table(cache, table_with({{p, {kFast, 0.2}}}), "t.json");
  EXPECT_EQ(r.new_best, 1);
  SqliteTrialStore store(cache);
  EXPECT_EQ(store.best(h200(), p)->config.id(), kFast);
  EXPECT_EQ(store.trials_for(h200(), p).size(), 2u);
}

TEST(Import, KernelCheckRefusalNamesTheEntryAndChangesNothing) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  import_table(cache, table_with({{problem(64, 64, 64), {kFast, 0.5}}}), "first.json");
  std::string const before = bytes(cache);
  TuningTable const t = table_with({{problem(128, 128, 128), {kFast, 0.5}},
                                    {problem(256, 256, 256), {kSlow, 0.5}}});
  KernelCheck const refuse_naive = [](KernelConfig const& c, Precision) {
    return c.family == "naive" ? std::string("family 'naive' is not known") : std::string();
  };
  try {
    import_table(cache, t, "t.json", refuse_naive);
    FAIL() << "expected Error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: entries[1].kernel: family 'naive'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(bytes(cache), before);
}

TEST(Import, CacheMergeCopiesTrialsOfEveryDispositionAndBaselines) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  auto const theirs = dir / "theirs.db";
  Problem const p = problem(300, 200, 100);
  {
    SqliteTrialStore s(theirs);
    s.record_trial(local_trial(p, kFast, 0.7));
    s.record_trial(local_trial(p, kSlow, 0, Disposition::kWrongResult));
    BaselineResult b;
    b.ok = true;
    b.cublas_ms = 0.6;
    b.cublaslt_ms = 0.55;
    s.record_baseline(h200(), p, b, local_trial(p, kFast, 1).provenance);
    s.record_ceiling(h200(), local_trial(p, kFast, 1).provenance, {std::nullopt, 4000.0, "copy", 0});
    s.record_ceiling(h200(), local_trial(p, kFast, 1).provenance, {Precision::kFP16, 650.0, "cuBLAS", 0});
  }
  {
    SqliteTrialStore s(mine);
    s.record_trial(local_trial(problem(64, 64, 64), kFast, 0.01));
  }
  ImportReport const r = import_cache(mine, theirs);
  EXPECT_EQ(r.kind, "cache");
  EXPECT_EQ(r.offered, 2);
  EXPECT_EQ(r.added, 2);
  EXPECT_EQ(r.baselines_added, 1);
  EXPECT_EQ(r.ceilings_added, 2);
  SqliteTrialStore s(mine);
  std::vector<DeviceCeiling> const ceilings = s.ceilings(h200());
  ASSERT_EQ(ceilings.size(), 2u);
  EXPECT_EQ(ceilings[0].value, 650.0);
  EXPECT_EQ(ceilings[1].method, "copy");
  EXPECT_EQ(s.stats().trials, 3);
  ASSERT_TRUE(s.find_baseline(h200(), p));
  EXPECT_DOUBLE_EQ(s.find_baseline(h200(), p)->cublaslt_ms, 0.55);
  // The failed trial keeps its disposition and provenance, so a resumed search skips it.
  auto const failed = s.find_trial(h200(), p, parse_kernel_id(kSlow), local_trial(p, kSlow, 1).provenance);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->disposition, Disposition::kWrongResult);

  ImportReport const again = import_cache(mine, theirs);
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.duplicates, 2);
  EXPECT_EQ(again.baselines_duplicate, 1);
  EXPECT_EQ(again.ceilings_added, 0);
  EXPECT_EQ(again.ceilings_duplicate, 2);
}

// Merged caches keep which search evaluated which trial: each source search is copied with its
// record, its trials point to the copy, and the import itself is a search row of its own.
TEST(Import, ACacheImportKeepsEachTrialsSearch) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  auto const theirs = dir / "theirs.db";
  Problem const p = problem(300, 200, 100);
  {
    SqliteTrialStore s(theirs);
    for (char const* args : {"search --shape 300x200x100", "search --shape 300x200x100 --seed 2"}) {
      std::int64_t const id = s.begin_search(args);
      Trial t = local_trial(p, std::string(args).size() > 30 ? kSlow : kFast, 0.7);
      t.search_id = id;
      s.record_trial(t);
      s.finish_search(id, R"({"wall_s":1})");
    }
  }
  {
    SqliteTrialStore s(mine);
    s.record_trial(local_trial(problem(64, 64, 64), kFast, 0.01));
  }
  ASSERT_EQ(import_cache(mine, theirs).added, 2);
  SqliteTrialStore s(mine);
  std::map<std::string, std::int64_t> search_of;
  for (Trial const& t : s.trials_for(h200(), p)) search_of[t.config.id()] = t.search_id;
  std::map<std::int64_t, SearchRecord> records;
  for (SearchRecord const& r : s.searches()) records[r.id] = r;
  ASSERT_EQ(records.size(), 3u);  // two copied searches and the import
  EXPECT_EQ(records.at(search_of.at(parse_kernel_id(kFast).id())).arguments,
            "search --shape 300x200x100");
  SearchRecord const& second = records.at(search_of.at(parse_kernel_id(kSlow).id()));
  EXPECT_EQ(second.arguments, "search --shape 300x200x100 --seed 2");
  EXPECT_EQ(second.phase_times_json, R"({"wall_s":1})");
  EXPECT_GT(second.finished_at, 0);
  bool import_row = false;
  for (auto const& [id, r] : records) import_row |= r.arguments.rfind("import cache ", 0) == 0;
  EXPECT_TRUE(import_row);
}

TEST(Import, SameKeyMeasuredLocallyKeepsTheLocalAttempt) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  auto const theirs = dir / "theirs.db";
  Problem const p = problem(300, 200, 100);
  {
    SqliteTrialStore s(theirs);
    s.record_trial(local_trial(p, kFast, 9.0));  // same key, slower elsewhere
  }
  {
    SqliteTrialStore s(mine);
    s.record_trial(local_trial(p, kFast, 0.7));
  }
  ImportReport const r = import_cache(mine, theirs);
  EXPECT_EQ(r.kept_local, 1);
  SqliteTrialStore s(mine);
  EXPECT_DOUBLE_EQ(s.best(h200(), p)->time_ms, 0.7);
  EXPECT_EQ(s.stats().trials, 1);
}

TEST(Import, ForeignCorruptAndSelfCachesAreRefusedWithoutChange) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  {
    SqliteTrialStore s(mine);
    s.record_trial(local_trial(problem(64, 64, 64), kFast, 0.01));
  }
  std::string const before = bytes(mine);

  auto const foreign = dir / "foreign.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('hi');", nullptr,
               nullptr, nullptr);
  sqlite3_close(db);
  std::string const foreign_before = bytes(foreign);
  try {
    import_cache(mine, foreign);
    FAIL() << "expected Error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("not a gemmtune cache"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes(foreign), foreign_before);

  auto const corrupt = dir / "corrupt.db";
  {
    std::string junk = "SQLite format 3";
    junk.push_back('\0');
    junk += std::string(4096, '\x5a');
    std::ofstream(corrupt, std::ios::binary) << junk;
  }
  EXPECT_THROW(import_cache(mine, corrupt), Error);
  EXPECT_THROW(import_cache(mine, mine), Error);
  EXPECT_EQ(bytes(mine), before);
}

TEST(Import, DetectsSqliteFiles) {
  TempDir dir;
  auto const cache = dir / "c.db";
  { SqliteTrialStore s(cache); }
  EXPECT_TRUE(is_sqlite_file(cache));
  std::ofstream(dir / "t.json") << "{}";
  EXPECT_FALSE(is_sqlite_file(dir / "t.json"));
  EXPECT_FALSE(is_sqlite_file(dir / "missing"));
}

// The CLI end to end: report, malformed table with its JSON path, unknown family, exit codes.
struct CliRun {
  int status = 0;
  std::string out;
};

CliRun run(std::string const& args, std::filesystem::path const& out_file) {
  std::string const cmd = gemmtune::test::gemmtune_binary() + " " + args + " > " + out_file.string() + " 2>&1";
  int const raw = std::system(cmd.c_str());
  return CliRun{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, bytes(out_file)};
}

TEST(ImportCli, ReportsCountsAndRefusesBadTablesWithTheirPath) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  auto const out = dir / "out.txt";
  auto const good = dir / "good.json";
  write_tuning_table(table_with({{problem(256, 256, 256), {kFast, 0.5}}}), good);
  std::string const db = "--db " + cache.string() + " ";

  CliRun r = run(db + "import " + good.string(), out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("1 added"), std::string::npos) << r.out;
  r = run(db + "--json import " + good.string(), out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"duplicates\": 1"), std::string::npos) << r.out;
  std::string const before = bytes(cache);

  std::string text = bytes(good);
  auto const bad = dir / "bad.json";
  std::string broken = text;
  broken.replace(broken.find("\"m\": 256"), 8, "\"m\": -3");
  std::ofstream(bad) << broken;
  r = run(db + "import " + bad.string(), out);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("entries[0].m"), std::string::npos) << r.out;

  std::string unknown = text;
  unknown.replace(unknown.find(kFast), std::string(kFast).size(), "wgmmax:BM=1");
  std::ofstream(bad) << unknown;
  r = run(db + "import " + bad.string(), out);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("entries[0].kernel: kernel family 'wgmmax' is not known"), std::string::npos)
      << r.out;

  r = run(db + "import " + (dir / "missing.json").string(), out);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(bytes(cache), before);

  // A vendor pick is a kernel the import knows.
  TuningTableBuilder vb("2026-12-02T00:00:00Z");
  vb.add_entry(h200(), problem(512, 512, 512), cublas_default(), 0.004, 67.0, 0.004,
               std::nullopt, {}, std::nullopt, TableOwnFigure{parse_kernel_id(kSlow), 0.009},
               "13.1.0");
  auto const vendor = dir / "vendor.json";
  write_tuning_table(vb.build(), vendor);
  r = run(db + "import " + vendor.string(), out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("2 added"), std::string::npos) << r.out;
}

/// Runs SQL on a cache file directly, as a hand edit or another tool would.
void edit(std::filesystem::path const& path, char const* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(Import, AForeignCacheWithAnImpossibleFigureIsRefusedWholeNamingTheRow) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  auto const theirs = dir / "theirs.db";
  Problem const p = problem(300, 200, 100);
  {
    SqliteTrialStore s(mine);
    s.record_trial(local_trial(p, kSlow, 2.0));
  }
  {
    SqliteTrialStore s(theirs);
    s.record_trial(local_trial(problem(64, 64, 64), kFast, 0.7));
    s.record_trial(local_trial(p, kFast, 0.7));
  }
  edit(theirs, "UPDATE trials SET time_ms = -5 WHERE id = 2");
  std::string const before = bytes(mine);
  try {
    import_cache(mine, theirs);
    FAIL() << "expected Error";
  } catch (Error const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("trial 2 ("), std::string::npos) << what;
    EXPECT_NE(what.find("time_ms: -5 is not a positive finite number"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was imported"), std::string::npos) << what;
  }
  EXPECT_EQ(bytes(mine), before);
  edit(theirs, "UPDATE trials SET time_ms = 0.7 WHERE id = 2; "
               "UPDATE baselines SET cublas_ms = -1");
  SqliteTrialStore(theirs).record_baseline(h200(), p, [] {
    BaselineResult b;
    b.ok = true;
    b.cublas_ms = -1.0;
    return b;
  }(), Provenance{"13000", "13000", "13.0", "130100", "0.1.0", "", ""});
  EXPECT_THROW(import_cache(mine, theirs), Error);
  EXPECT_EQ(bytes(mine), before);
}

TEST(Import, AKernelStoredUnderAPrecisionItsFamilyLacksIsRefused) {
  TempDir dir;
  auto const mine = dir / "mine.db";
  auto const theirs = dir / "theirs.db";
  {
    SqliteTrialStore s(theirs);
    s.record_trial(local_trial(problem(64, 64, 64), kSlow, 0.7));
  }
  edit(theirs, "UPDATE trials SET precision = 'fp16'");
  KernelCheck const fp32_only = [](KernelConfig const&, Precision p) {
    return p == Precision::kFP32 ? std::string() : std::string("has no fp16 kernel");
  };
  try {
    import_cache(mine, theirs, fp32_only);
    FAIL() << "expected Error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("trial 1 (naive:BM=32,BN=32, 64x64x64 fp16"),
              std::string::npos)
        << e.what();
  }
}

TEST(Check, ACleanCacheHasNoDefectsAndIsLeftAlone) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  {
    SqliteTrialStore s(cache);
    s.record_trial(local_trial(problem(64, 64, 64), kFast, 0.7));
    s.record_trial(local_trial(problem(64, 64, 64), kSlow, 0, Disposition::kWrongResult));
  }
  std::string const before = bytes(cache);
  CacheCheckReport const r = check_cache(cache, {}, true);
  EXPECT_EQ(r.trials, 2);
  EXPECT_TRUE(r.defects.empty());
  EXPECT_EQ(r.removed, 0);
  EXPECT_TRUE(r.backup.empty());
  EXPECT_EQ(bytes(cache), before);
}

/// The state an import of unchecked figures left behind: a trial at -5 ms became "fastest" and
/// best() answered it. check names it; --repair copies the file aside and removes the row, and
/// the next best is the real one.
TEST(Check, RepairRemovesBadRowsAfterCopyingTheCacheAside) {
  TempDir dir;
  auto const cache = dir / "cache.db";
  Problem const p = problem(300, 200, 100);
  {
    SqliteTrialStore s(cache);
    s.record_trial(local_trial(p, kFast, 0.7));
    s.record_trial(local_trial(p, kSlow, 2.0));
  }
  edit(cache, "UPDATE trials SET time_ms = -5 WHERE id = 2; "
              "UPDATE trials SET kernel_id = 'naive BM 32' WHERE id = 1");
  {
    SqliteTrialStore s(cache);
    s.record_trial(local_trial(p, kFast, 0.9));  // a good row beside them
  }
  std::string const before = bytes(cache);
  CacheCheckReport const looked = check_cache(cache, {}, false);
  ASSERT_EQ(looked.defects.size(), 2u);
  EXPECT_EQ(looked.defects[0].id, 1);
  EXPECT_NE(looked.defects[0].reason.find("kernel_id"), std::string::npos) << looked.defects[0].reason;
  EXPECT_EQ(looked.defects[1].id, 2);
  EXPECT_NE(looked.defects[1].reason.find("time_ms: -5"), std::string::npos);
  EXPECT_EQ(looked.removed, 0);
  EXPECT_EQ(bytes(cache), before);  // a check without --repair writes nothing

  CacheCheckReport const fixed = check_cache(cache, {}, true);
  EXPECT_EQ(fixed.removed, 2);
  ASSERT_FALSE(fixed.backup.empty());
  // The copy holds every row as it was.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(fixed.backup.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*), min(time_ms) FROM trials", -1, &st, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 3);
    EXPECT_DOUBLE_EQ(sqlite3_column_double(st, 1), -5.0);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  SqliteTrialStore s(cache);
  EXPECT_EQ(s.stats().trials, 1);
  ASSERT_TRUE(s.best(h200(), p));
  EXPECT_DOUBLE_EQ(s.best(h200(), p)->time_ms, 0.9);
  EXPECT_TRUE(check_cache(cache, {}, false).defects.empty());
}

}  // namespace
}  // namespace gemmtune
