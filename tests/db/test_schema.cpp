// Opening the cache: fresh files are initialised, old ones migrated, and foreign, corrupt or
// newer files refused with a clear error and left byte-for-byte unchanged.
#include "db/schema.hpp"

#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "db/sqlite_trial_store.hpp"
#include "src/core/error.hpp"
#include "tests/db/db_test_support.hpp"

namespace gemmtune {
namespace {

using namespace testing_support;

/// Expects opening `path` to throw an Error containing `what`, the path and the --db hint,
/// and the file (plus any -wal) to be unchanged.
void expect_refused(std::filesystem::path const& path, std::string const& what) {
  std::string const before = file_bytes(path);
  try {
    SqliteTrialStore store(path);
    FAIL() << "opened " << path;
  } catch (Error const& e) {
    std::string const msg = e.what();
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("use --db to pick another file"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_EQ(file_bytes(path), before) << "the file was modified";
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal") &&
               std::filesystem::file_size(path.string() + "-wal") > 0);
}

TEST(Schema, FreshPathIsInitialised) {
  TempDir dir;
  auto const path = dir / "sub/dir/cache.db";
  { SqliteTrialStore store(path); }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(raw_sql(path, "PRAGMA application_id"), kCacheApplicationId);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
  EXPECT_EQ(cache_schema_version(), static_cast<int>(migrations().size()));
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'trials'"), 1);
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'baselines'"), 1);
  // WAL is a property of the file once set.
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<char const*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
  // The directories it created are private.
  struct stat st {};
  ASSERT_EQ(::stat((dir / "sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(Schema, ReopeningKeepsData) {
  TempDir dir;
  auto const path = dir / "cache.db";
  {
    SqliteTrialStore store(path);
    store.record_trial(trial(h200(), problem(64, 64, 64), "naive:BX=32", Disposition::kOk, 1.0));
  }
  SqliteTrialStore store(path);
  EXPECT_EQ(store.stats().trials, 1);
  EXPECT_EQ(store.stats().schema_version, cache_schema_version());
}

TEST(Schema, ZeroByteFileIsInitialised) {
  TempDir dir;
  auto const path = dir / "empty.db";
  write_bytes(path, "");
  { SqliteTrialStore store(path); }
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
}

TEST(Schema, EmptySqliteFileIsInitialised) {
  // A version-0 file: valid SQLite with no schema and no application id.
  TempDir dir;
  auto const path = dir / "v0.db";
  raw_sql(path, "PRAGMA page_size = 4096; VACUUM;");
  ASSERT_GT(std::filesystem::file_size(path), 0u);
  { SqliteTrialStore store(path); }
  EXPECT_EQ(raw_sql(path, "PRAGMA application_id"), kCacheApplicationId);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
}

TEST(Schema, MigratesAVersion1Cache) {
  TempDir dir;
  auto const path = dir / "v1.db";
  // Build a version-1 cache by hand, as the first release would have left it.
  raw_sql(path, std::string(migrations()[0]));
  raw_sql(path,
          "PRAGMA application_id = " + std::to_string(kCacheApplicationId) +
              "; PRAGMA user_version = 1;"
              "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) VALUES ('NVIDIA H200', 9, 0, 132);"
              "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, gemmtune_version, "
              "template_hash, compile_options) VALUES ('13000', '13000', '13.0', '130100', "
              "'0.1.0', 'abc123', '-arch=sm_90 -O3');"
              "INSERT INTO trials (gpu_id, m, n, k, precision, layout, align, kernel_id, family, "
              "provenance_id, attempt, disposition, reason, time_ms, exact_mismatches, registers, "
              "spill_bytes, smem_bytes, created_at) VALUES (1, 64, 64, 64, 'fp32', 'NN', 16, "
              "'naive:BX=32', 'naive', 1, 1, 'ok', '', 1.5, 0, 32, 0, 0, 1700000000);");
  ASSERT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'baselines'"), 0);

  SqliteTrialStore store(path);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
  auto const found = store.find_trial(h200(), problem(64, 64, 64), parse_kernel_id("naive:BX=32"),
                                      provenance());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->time_ms, 1.5);
  EXPECT_EQ(found->created_at, 1700000000);
  // The table added by migration 2 works.
  BaselineResult b;
  b.ok = true;
  b.cublas_ms = 1.0;
  b.cublaslt_ms = 0.9;
  store.record_baseline(h200(), problem(64, 64, 64), b, provenance());
  EXPECT_TRUE(store.find_baseline(h200(), problem(64, 64, 64)).has_value());
}

// Version 6 rebuilds the three tables that list the precisions (SQLite cannot widen a CHECK in
// place): a version-5 cache keeps every row and id, and then takes e4m3 problems.
TEST(Schema, MigratesAVersion5CacheToTakeE4m3) {
  TempDir dir;
  auto const path = dir / "v5.db";
  // A version-5 cache as that release left it, with rows in each rebuilt table.
  std::string setup;
  for (std::size_t v = 0; v < 5; ++v) setup += std::string(migrations()[v]);
  raw_sql(path, setup);
  raw_sql(path,
          "PRAGMA application_id = " + std::to_string(kCacheApplicationId) +
              "; PRAGMA user_version = 5;"
              "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) VALUES ('NVIDIA H200', 9, 0, 132);"
              "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, gemmtune_version, "
              "template_hash, compile_options) VALUES ('13000', '13000', '13.0', '130100', "
              "'0.1.0', 'abc123', '-arch=sm_90 -O3');"
              "INSERT INTO searches (id, started_at, arguments) VALUES (7, 1700000000, 'search');"
              "INSERT INTO trials (id, gpu_id, m, n, k, precision, layout, align, kernel_id, "
              "family, provenance_id, attempt, disposition, reason, time_ms, exact_mismatches, "
              "registers, spill_bytes, smem_bytes, created_at, spread_rounds, board_sm_clock_mhz) "
              "VALUES (41, 1, 64, 64, 64, 'bf16', 'NN', 16, 'naive:BX=32', 'naive', 1, 1, 'ok', "
              "'', 1.5, 0, 32, 0, 0, 1700000000, 5, 1980);"
              "INSERT INTO baselines (id, gpu_id, m, n, k, precision, layout, align, ok, reason, "
              "cublas_ms, cublaslt_ms, cublaslt_algo_index, cublaslt_algos_tried, provenance_id, "
              "created_at, cublaslt_hi_ms) VALUES (9, 1, 64, 64, 64, 'bf16', 'NN', 16, 1, '', 1.0, "
              "0.9, 0, 3, 1, 1700000000, 0.95);"
              "INSERT INTO finished_problems (id, search_id, gpu_id, m, n, k, precision, layout, "
              "align, settings, finished_at) VALUES (3, 7, 1, 64, 64, 64, 'bf16', 'NN', 16, 's', "
              "1700000001);");
  // Version 5 refuses the new precision.
  raw_sql(path, "INSERT INTO baselines (gpu_id, m, n, k, precision, layout, align, ok, reason, "
                "cublaslt_algo_index, cublaslt_algos_tried, provenance_id, created_at) VALUES (1, "
                "64, 64, 64, 'e4m3', 'NT', 16, 1, '', 0, 1, 1, 1)");
  ASSERT_EQ(raw_sql(path, "SELECT count(*) FROM baselines WHERE precision = 'e4m3'"), 0);

  SqliteTrialStore store(path);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
  EXPECT_EQ(raw_sql(path, "SELECT id FROM trials WHERE kernel_id = 'naive:BX=32'"), 41);
  EXPECT_EQ(raw_sql(path, "SELECT board_sm_clock_mhz FROM trials WHERE id = 41"), 1980);
  EXPECT_EQ(raw_sql(path, "SELECT cublaslt_algos_tried FROM baselines WHERE id = 9"), 3);
  EXPECT_EQ(raw_sql(path, "SELECT search_id FROM finished_problems WHERE id = 3"), 7);
  // The indexes came back with the tables.
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN "
                          "('trials_by_kernel', 'trials_by_search', 'baselines_by_problem', "
                          "'finished_problems_by_problem')"),
            4);
  Problem const bf16 = problem(64, 64, 64, 16, Precision::kBF16);
  auto const found = store.find_trial(h200(), bf16, parse_kernel_id("naive:BX=32"), provenance());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->time_ms, 1.5);
  EXPECT_TRUE(store.find_baseline(h200(), bf16).has_value());
  EXPECT_EQ(store.finished_by(h200(), bf16, "s"), std::optional<std::int64_t>(7));

  Problem const e4m3 = problem(128, 128, 128, 16, Precision::kE4M3, Layout::kNT);
  store.record_trial(trial(h200(), e4m3, "naive:BX=32", Disposition::kOk, 0.5));
  auto const fp8 = store.find_trial(h200(), e4m3, parse_kernel_id("naive:BX=32"), provenance());
  ASSERT_TRUE(fp8.has_value());
  EXPECT_EQ(fp8->problem.precision, Precision::kE4M3);
  EXPECT_EQ(raw_sql(path, "PRAGMA foreign_key_check"), 0);
}

// Version 7 adds the device's measured ceilings and the row-wise FP8 precision: a version-6 cache
// keeps its rows and ids and takes both; the newest measurement of each kind is the one read
// back, and bad rows are refused.
TEST(Schema, MigratesAVersion6CacheToStoreDeviceCeilingsAndRowScaledFp8) {
  TempDir dir;
  auto const path = dir / "v6.db";
  std::string setup;
  for (std::size_t v = 0; v < 6; ++v) setup += std::string(migrations()[v]);
  raw_sql(path, setup);
  raw_sql(path, "PRAGMA application_id = " + std::to_string(kCacheApplicationId) +
                    "; PRAGMA user_version = 6;"
                    "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) VALUES ('NVIDIA H200', 9, 0, 132);"
                    "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, gemmtune_version, "
                    "template_hash, compile_options) VALUES ('13000', '13000', '13.0', '130100', "
                    "'0.1.0', 'abc123', '-arch=sm_90 -O3');"
                    "INSERT INTO trials (id, gpu_id, m, n, k, precision, layout, align, kernel_id, "
                    "family, provenance_id, attempt, disposition, reason, time_ms, exact_mismatches, "
                    "registers, spill_bytes, smem_bytes, created_at, spread_rounds) VALUES (77, 1, "
                    "64, 64, 64, 'e4m3', 'NT', 16, 'naive:BX=32', 'naive', 1, 1, 'ok', '', 1.5, 0, "
                    "32, 0, 0, 1700000000, 5);");
  // Version 6 refuses the new precision.
  raw_sql(path, "UPDATE trials SET precision = 'e4m3-row' WHERE id = 77");
  ASSERT_EQ(raw_sql(path, "SELECT count(*) FROM trials WHERE precision = 'e4m3'"), 1);
  SqliteTrialStore store(path);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
  EXPECT_EQ(raw_sql(path, "SELECT id FROM trials WHERE precision = 'e4m3'"), 77);
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN "
                          "('trials_by_kernel', 'trials_by_search', 'baselines_by_problem', "
                          "'finished_problems_by_problem', 'device_ceilings_by_gpu')"),
            5);
  Problem const row = problem(128, 128, 128, 16, Precision::kE4M3Row, Layout::kNT);
  store.record_trial(trial(h200(), row, "naive:BX=32", Disposition::kOk, 0.5));
  auto const found = store.find_trial(h200(), row, parse_kernel_id("naive:BX=32"), provenance());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->problem.precision, Precision::kE4M3Row);
  EXPECT_TRUE(store.ceilings(h200()).empty());
  store.record_ceiling(h200(), provenance(), {std::nullopt, 4100.0, "copy of 1 GiB", 0});
  store.record_ceiling(h200(), provenance(), {Precision::kBF16, 700.0, "cuBLAS at 8192^3", 0});
  store.record_ceiling(h200(), provenance(), {Precision::kBF16, 720.0, "cuBLASLt at 8192^3", 0});
  std::vector<DeviceCeiling> const got = store.ceilings(h200());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].precision, std::optional<Precision>(Precision::kBF16));  // compute, then copy
  EXPECT_EQ(got[0].value, 720.0);  // the newest of the two bf16 measurements
  EXPECT_EQ(got[0].method, "cuBLASLt at 8192^3");
  EXPECT_GT(got[0].measured_at, 1700000000);
  EXPECT_FALSE(got[1].precision.has_value());
  EXPECT_EQ(got[1].value, 4100.0);
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM device_ceilings"), 3);  // history kept
  EXPECT_TRUE(store.ceilings(GpuIdentity{"NVIDIA H100", 9, 0, 132}).empty());
  EXPECT_THROW(store.record_ceiling(h200(), provenance(), {Precision::kFP32, 0.0, "x", 0}), Error);
  // The table itself refuses a copy with a precision and a compute rate without one.
  raw_sql(path, "INSERT INTO device_ceilings (gpu_id, provenance_id, kind, precision, value, "
                "method, measured_at) VALUES (1, 1, 'copy', 'fp32', 1.0, 'x', 1)");
  raw_sql(path, "INSERT INTO device_ceilings (gpu_id, provenance_id, kind, precision, value, "
                "method, measured_at) VALUES (1, 1, 'compute', NULL, 1.0, 'x', 1)");
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM device_ceilings"), 3);
  EXPECT_EQ(raw_sql(path, "PRAGMA foreign_key_check"), 0);
}

// Version 8 adds the e5m2 precisions: a version-7 cache keeps its trials, baselines, finished
// problems and ceilings with their ids and indexes, and takes e5m2 rows in each.
TEST(Schema, MigratesAVersion7CacheToTakeE5m2) {
  TempDir dir;
  auto const path = dir / "v7.db";
  std::string setup;
  for (std::size_t v = 0; v < 7; ++v) setup += std::string(migrations()[v]);
  raw_sql(path, setup);
  raw_sql(path, "PRAGMA application_id = " + std::to_string(kCacheApplicationId) +
                    "; PRAGMA user_version = 7;"
                    "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) VALUES ('NVIDIA H200', 9, 0, 132);"
                    "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, gemmtune_version, "
                    "template_hash, compile_options) VALUES ('13000', '13000', '13.0', '130100', "
                    "'0.1.0', 'abc123', '-arch=sm_90 -O3');"
                    "INSERT INTO trials (id, gpu_id, m, n, k, precision, layout, align, kernel_id, "
                    "family, provenance_id, attempt, disposition, reason, time_ms, exact_mismatches, "
                    "registers, spill_bytes, smem_bytes, created_at, spread_rounds) VALUES (78, 1, "
                    "64, 64, 64, 'e4m3-blk', 'NT', 16, 'naive:BX=32', 'naive', 1, 1, 'ok', '', 1.5, "
                    "0, 32, 0, 0, 1700000000, 5);"
                    "INSERT INTO device_ceilings (id, gpu_id, provenance_id, kind, precision, value, "
                    "method, measured_at) VALUES (9, 1, 1, 'compute', 'e4m3-row', 1300.0, 'x', 1);");
  // Version 7 refuses the new precisions.
  raw_sql(path, "UPDATE trials SET precision = 'e5m2' WHERE id = 78");
  ASSERT_EQ(raw_sql(path, "SELECT count(*) FROM trials WHERE precision = 'e4m3-blk'"), 1);
  SqliteTrialStore store(path);
  EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), cache_schema_version());
  EXPECT_EQ(raw_sql(path, "SELECT id FROM trials WHERE precision = 'e4m3-blk'"), 78);
  EXPECT_EQ(raw_sql(path, "SELECT id FROM device_ceilings WHERE precision = 'e4m3-row'"), 9);
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN "
                          "('trials_by_kernel', 'trials_by_search', 'baselines_by_problem', "
                          "'finished_problems_by_problem', 'device_ceilings_by_gpu')"),
            5);
  for (Precision p : {Precision::kE5M2, Precision::kE5M2Row, Precision::kE5M2Blk}) {
    Problem const e5 = problem(128, 128, 128, 16, p, Layout::kNT);
    store.record_trial(trial(h200(), e5, "naive:BX=32", Disposition::kOk, 0.5));
    auto const found = store.find_trial(h200(), e5, parse_kernel_id("naive:BX=32"), provenance());
    ASSERT_TRUE(found.has_value()) << to_string(p);
    EXPECT_EQ(found->problem.precision, p);
  }
  store.record_ceiling(h200(), provenance(), {Precision::kE5M2Blk, 1400.0, "cuBLASLt", 0});
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM device_ceilings WHERE precision = 'e5m2-blk'"), 1);
  EXPECT_EQ(raw_sql(path, "PRAGMA foreign_key_check"), 0);
}

TEST(Schema, GarbageFileRefusedUntouched) {
  TempDir dir;
  auto const path = dir / "garbage.db";
  std::mt19937 rng(7);
  std::string bytes(4096, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  write_bytes(path, bytes);
  expect_refused(path, "is not a usable gemmtune cache (file is not a database)");
}

TEST(Schema, TextFileRefusedUntouched) {
  TempDir dir;
  auto const path = dir / "notes.txt";
  write_bytes(path, "these are my notes, not a database\n");
  expect_refused(path, "file is not a database");
}

TEST(Schema, AnotherApplicationsDatabaseRefusedUntouched) {
  TempDir dir;
  auto const path = dir / "other.db";
  raw_sql(path, "PRAGMA application_id = 305419896; CREATE TABLE notes (body TEXT);"
                "INSERT INTO notes VALUES ('keep me');");
  expect_refused(path, "another application's SQLite database (application_id 0x12345678");
}

TEST(Schema, SqliteFileWithoutApplicationIdButWithTablesRefused) {
  TempDir dir;
  auto const path = dir / "plain.db";
  raw_sql(path, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  expect_refused(path, "is a SQLite database that is not a gemmtune cache");
}

TEST(Schema, NewerSchemaRefusedUntouched) {
  TempDir dir;
  auto const path = dir / "newer.db";
  { SqliteTrialStore store(path); }
  raw_sql(path, "PRAGMA user_version = 99");
  expect_refused(path, "is a cache from a newer gemmtune (schema version 99, this build reads up to " +
                           std::to_string(cache_schema_version()) + ")");
}

TEST(Schema, DamagedFirstPageRefusedUntouched) {
  TempDir dir;
  auto const path = dir / "damaged.db";
  {
    SqliteTrialStore store(path);
    store.record_trial(trial(h200(), problem(64, 64, 64), "naive:BX=32", Disposition::kOk, 1.0));
  }
  // The last connection checkpointed the WAL into the file; scribble over page 1's b-tree
  // (after the 100-byte header), where the schema lives.
  std::string bytes = file_bytes(path);
  ASSERT_GE(bytes.size(), 4096u);
  for (std::size_t i = 100; i < 4096; ++i) bytes[i] = static_cast<char>(0xA5);
  write_bytes(path, bytes);
  expect_refused(path, "is not a usable gemmtune cache (");
}

TEST(Schema, DirectoryRefused) {
  TempDir dir;
  EXPECT_THROW(SqliteTrialStore store(dir.path()), Error);
}

TEST(Schema, ReadOnlyAccessQueriesButRefusesWrites) {
  TempDir dir;
  auto const path = dir / "cache.db";
  {
    SqliteTrialStore store(path);
    store.record_trial(trial(h200(), problem(64, 64, 64), "naive:BX=32", Disposition::kOk, 1.0));
  }
  SqliteTrialStore store(path, SqliteTrialStore::Access::kReadOnly);
  EXPECT_TRUE(store.read_only());
  EXPECT_TRUE(store.best(h200(), problem(64, 64, 64)).has_value());
  try {
    store.record_trial(trial(h200(), problem(64, 64, 64), "naive:BX=16", Disposition::kOk, 1.0));
    FAIL() << "wrote through a read-only store";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(store.begin_search("x"), Error);
}

TEST(Schema, ReadOnlyAccessToAMissingFileIsAClearError) {
  TempDir dir;
  auto const path = dir / "missing.db";
  try {
    SqliteTrialStore store(path, SqliteTrialStore::Access::kReadOnly);
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("no cache at"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Schema, ReadOnlyAccessDoesNotMigrate) {
  TempDir dir;
  auto const path = dir / "v1.db";
  raw_sql(path, std::string(migrations()[0]) + "PRAGMA application_id = " +
                    std::to_string(kCacheApplicationId) + "; PRAGMA user_version = 1;");
  std::string const before = file_bytes(path);
  try {
    SqliteTrialStore store(path, SqliteTrialStore::Access::kReadOnly);
    ADD_FAILURE() << "an old cache opened read-only";
  } catch (Error const& e) {
    // The way out it names is a command that writes: a reading one would fail the same way.
    std::string const why = e.what();
    EXPECT_NE(why.find("needs an upgrade"), std::string::npos) << why;
    EXPECT_NE(why.find("gemmtune search"), std::string::npos) << why;
    EXPECT_EQ(why.find("e.g. gemmtune list"), std::string::npos) << why;
  }
  EXPECT_EQ(file_bytes(path), before);
}

TEST(Schema, UnwritableFileRefusesWrites) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
  TempDir dir;
  auto const path = dir / "cache.db";
  { SqliteTrialStore store(path); }
  ::chmod(path.c_str(), 0444);
  SqliteTrialStore store(path);
  EXPECT_TRUE(store.read_only());
  EXPECT_THROW(store.begin_search("x"), Error);
}

}  // namespace
}  // namespace gemmtune
