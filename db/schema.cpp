// Cache schema migrations and the checks that run before anything is written to a file.
#include "db/schema.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <system_error>
#include <thread>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cache_path.hpp"
#include "db/cache_sharing.hpp"
#include "src/core/error.hpp"

namespace gemmtune {
namespace {

// Version 1: GPUs, provenance, searches and every trial. A trial's key is (GPU, problem,
// kernel id, provenance); a re-run of the same key is a new row with the next `attempt`, so
// history is kept and the newest attempt is the one that counts.
constexpr std::string_view kMigration1 = R"sql(
CREATE TABLE gpus (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL,
  sm_count INTEGER NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count)
) STRICT;

CREATE TABLE provenances (
  id INTEGER PRIMARY KEY,
  driver TEXT NOT NULL,
  cuda_runtime TEXT NOT NULL,
  nvrtc TEXT NOT NULL,
  cublas TEXT NOT NULL,
  gemmtune_version TEXT NOT NULL,
  template_hash TEXT NOT NULL,
  compile_options TEXT NOT NULL,
  UNIQUE (driver, cuda_runtime, nvrtc, cublas, gemmtune_version, template_hash, compile_options)
) STRICT;

CREATE TABLE searches (
  id INTEGER PRIMARY KEY,
  arguments TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  phase_times_json TEXT
) STRICT;

CREATE TABLE trials (
  id INTEGER PRIMARY KEY,
  search_id INTEGER REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  kernel_id TEXT NOT NULL,
  family TEXT NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  disposition TEXT NOT NULL CHECK (disposition IN ('ok', 'rejected', 'compile_error',
      'launch_error', 'fault', 'timeout', 'crash', 'wrong_result', 'skipped')),
  reason TEXT NOT NULL,
  time_ms REAL,
  min_ms REAL,
  tflops REAL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  max_abs_err REAL,
  max_err_ratio REAL,
  rel_fro_err REAL,
  exact_mismatches INTEGER NOT NULL,
  registers INTEGER NOT NULL,
  spill_bytes INTEGER NOT NULL,
  smem_bytes INTEGER NOT NULL,
  compile_ms REAL,
  created_at INTEGER NOT NULL,
  UNIQUE (gpu_id, m, n, k, precision, layout, align, kernel_id, provenance_id, attempt)
) STRICT;

CREATE INDEX trials_by_kernel ON trials (kernel_id);
CREATE INDEX trials_by_search ON trials (search_id);
)sql";

// Version 2: cuBLAS / cuBLASLt baselines per problem, and a key-value table for diagnostics.
constexpr std::string_view kMigration2 = R"sql(
CREATE TABLE baselines (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  reason TEXT NOT NULL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  cublaslt_algo_index INTEGER NOT NULL,
  cublaslt_algos_tried INTEGER NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX baselines_by_problem ON baselines (gpu_id, m, n, k, precision, layout, align);

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

INSERT INTO meta (key, value) VALUES ('created_at', strftime('%s', 'now'));
)sql";

/// Version 3: the spread of every figure (DESIGN.md §5). Trials: the fastest and slowest round
/// median of a re-time in rounds, or of the repeats of one timing, and how many rounds; 0 for
/// rows written before. Baselines: the same for cuBLAS and cuBLASLt.
constexpr std::string_view kMigration3 = R"sql(
ALTER TABLE trials ADD COLUMN spread_lo_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN spread_hi_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN spread_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE baselines ADD COLUMN cublas_lo_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE baselines ADD COLUMN cublas_hi_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE baselines ADD COLUMN cublaslt_lo_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE baselines ADD COLUMN cublaslt_hi_ms REAL NOT NULL DEFAULT 0;
)sql";

/// Version 4: the board (median SM clock, temperature) of a re-timed trial's rounds.
constexpr std::string_view kMigration4 = R"sql(
ALTER TABLE trials ADD COLUMN board_sm_clock_mhz INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN board_temperature_c INTEGER NOT NULL DEFAULT 0;
)sql";

/// Version 5: the problems a search finished, under the settings that decided its search, so
/// the same search run again skips them instead of searching and re-timing them anew.
constexpr std::string_view kMigration5 = R"sql(
CREATE TABLE finished_problems (
  id INTEGER PRIMARY KEY,
  search_id INTEGER NOT NULL REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  settings TEXT NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT;

CREATE INDEX finished_problems_by_problem
  ON finished_problems (gpu_id, m, n, k, precision, layout, align);
)sql";

/// Version 6: the e4m3 precision. SQLite cannot change a CHECK constraint in place, so each
/// table that names the precisions is rebuilt with the wider list (columns in their existing
/// order, including those later versions appended) and its rows copied over; ids are kept.
constexpr std::string_view kMigration6 = R"sql(
CREATE TABLE trials_v6 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  kernel_id TEXT NOT NULL,
  family TEXT NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  disposition TEXT NOT NULL CHECK (disposition IN ('ok', 'rejected', 'compile_error',
      'launch_error', 'fault', 'timeout', 'crash', 'wrong_result', 'skipped')),
  reason TEXT NOT NULL,
  time_ms REAL,
  min_ms REAL,
  tflops REAL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  max_abs_err REAL,
  max_err_ratio REAL,
  rel_fro_err REAL,
  exact_mismatches INTEGER NOT NULL,
  registers INTEGER NOT NULL,
  spill_bytes INTEGER NOT NULL,
  smem_bytes INTEGER NOT NULL,
  compile_ms REAL,
  created_at INTEGER NOT NULL,
  spread_lo_ms REAL NOT NULL DEFAULT 0,
  spread_hi_ms REAL NOT NULL DEFAULT 0,
  spread_rounds INTEGER NOT NULL DEFAULT 0,
  board_sm_clock_mhz INTEGER NOT NULL DEFAULT 0,
  board_temperature_c INTEGER NOT NULL DEFAULT 0,
  UNIQUE (gpu_id, m, n, k, precision, layout, align, kernel_id, provenance_id, attempt)
) STRICT;
INSERT INTO trials_v6 SELECT * FROM trials;
DROP TABLE trials;
ALTER TABLE trials_v6 RENAME TO trials;
CREATE INDEX trials_by_kernel ON trials (kernel_id);
CREATE INDEX trials_by_search ON trials (search_id);

CREATE TABLE baselines_v6 (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  reason TEXT NOT NULL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  cublaslt_algo_index INTEGER NOT NULL,
  cublaslt_algos_tried INTEGER NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  created_at INTEGER NOT NULL,
  cublas_lo_ms REAL NOT NULL DEFAULT 0,
  cublas_hi_ms REAL NOT NULL DEFAULT 0,
  cublaslt_lo_ms REAL NOT NULL DEFAULT 0,
  cublaslt_hi_ms REAL NOT NULL DEFAULT 0
) STRICT;
INSERT INTO baselines_v6 SELECT * FROM baselines;
DROP TABLE baselines;
ALTER TABLE baselines_v6 RENAME TO baselines;
CREATE INDEX baselines_by_problem ON baselines (gpu_id, m, n, k, precision, layout, align);

CREATE TABLE finished_problems_v6 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER NOT NULL REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  settings TEXT NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT;
INSERT INTO finished_problems_v6 SELECT * FROM finished_problems;
DROP TABLE finished_problems;
ALTER TABLE finished_problems_v6 RENAME TO finished_problems;
CREATE INDEX finished_problems_by_problem
  ON finished_problems (gpu_id, m, n, k, precision, layout, align);
)sql";

/// Version 7: the device's measured ceilings (`devices --ceilings`), which the report's roofline
/// draws: a compute rate per precision (TFLOP/s) and the copy bandwidth (GB/s, reads and writes
/// counted), each with how it was measured. Every measurement is kept; the newest counts. And
/// the row-wise (and, reserved, the block-scaled) FP8 precisions: the three tables that list the
/// precisions are rebuilt with the wider list as in version 6.
constexpr std::string_view kMigration7 = R"sql(
CREATE TABLE trials_v7 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row', 'e4m3-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  kernel_id TEXT NOT NULL,
  family TEXT NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  disposition TEXT NOT NULL CHECK (disposition IN ('ok', 'rejected', 'compile_error',
      'launch_error', 'fault', 'timeout', 'crash', 'wrong_result', 'skipped')),
  reason TEXT NOT NULL,
  time_ms REAL,
  min_ms REAL,
  tflops REAL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  max_abs_err REAL,
  max_err_ratio REAL,
  rel_fro_err REAL,
  exact_mismatches INTEGER NOT NULL,
  registers INTEGER NOT NULL,
  spill_bytes INTEGER NOT NULL,
  smem_bytes INTEGER NOT NULL,
  compile_ms REAL,
  created_at INTEGER NOT NULL,
  spread_lo_ms REAL NOT NULL DEFAULT 0,
  spread_hi_ms REAL NOT NULL DEFAULT 0,
  spread_rounds INTEGER NOT NULL DEFAULT 0,
  board_sm_clock_mhz INTEGER NOT NULL DEFAULT 0,
  board_temperature_c INTEGER NOT NULL DEFAULT 0,
  UNIQUE (gpu_id, m, n, k, precision, layout, align, kernel_id, provenance_id, attempt)
) STRICT;
INSERT INTO trials_v7 SELECT * FROM trials;
DROP TABLE trials;
ALTER TABLE trials_v7 RENAME TO trials;
CREATE INDEX trials_by_kernel ON trials (kernel_id);
CREATE INDEX trials_by_search ON trials (search_id);

CREATE TABLE baselines_v7 (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row', 'e4m3-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  reason TEXT NOT NULL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  cublaslt_algo_index INTEGER NOT NULL,
  cublaslt_algos_tried INTEGER NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  created_at INTEGER NOT NULL,
  cublas_lo_ms REAL NOT NULL DEFAULT 0,
  cublas_hi_ms REAL NOT NULL DEFAULT 0,
  cublaslt_lo_ms REAL NOT NULL DEFAULT 0,
  cublaslt_hi_ms REAL NOT NULL DEFAULT 0
) STRICT;
INSERT INTO baselines_v7 SELECT * FROM baselines;
DROP TABLE baselines;
ALTER TABLE baselines_v7 RENAME TO baselines;
CREATE INDEX baselines_by_problem ON baselines (gpu_id, m, n, k, precision, layout, align);

CREATE TABLE finished_problems_v7 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER NOT NULL REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row', 'e4m3-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  settings TEXT NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT;
INSERT INTO finished_problems_v7 SELECT * FROM finished_problems;
DROP TABLE finished_problems;
ALTER TABLE finished_problems_v7 RENAME TO finished_problems;
CREATE INDEX finished_problems_by_problem
  ON finished_problems (gpu_id, m, n, k, precision, layout, align);
CREATE TABLE device_ceilings (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  kind TEXT NOT NULL CHECK (kind IN ('compute', 'copy')),
  precision TEXT CHECK ((kind = 'copy' AND precision IS NULL) OR
                        (kind = 'compute' AND precision IS NOT NULL AND
                         precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row', 'e4m3-blk'))),
  value REAL NOT NULL CHECK (value > 0),
  method TEXT NOT NULL,
  measured_at INTEGER NOT NULL
) STRICT;
CREATE INDEX device_ceilings_by_gpu ON device_ceilings (gpu_id, kind, precision);
)sql";

/// Version 8: the e5m2 precisions (e5m2 A, e4m3 B, in each FP8 scaling). The four tables that
/// list the precisions are rebuilt with the wider list as in versions 6 and 7.
constexpr std::string_view kMigration8 = R"sql(
CREATE TABLE trials_v8 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row',
                                       'e4m3-blk', 'e5m2', 'e5m2-row', 'e5m2-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  kernel_id TEXT NOT NULL,
  family TEXT NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  disposition TEXT NOT NULL CHECK (disposition IN ('ok', 'rejected', 'compile_error',
      'launch_error', 'fault', 'timeout', 'crash', 'wrong_result', 'skipped')),
  reason TEXT NOT NULL,
  time_ms REAL,
  min_ms REAL,
  tflops REAL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  max_abs_err REAL,
  max_err_ratio REAL,
  rel_fro_err REAL,
  exact_mismatches INTEGER NOT NULL,
  registers INTEGER NOT NULL,
  spill_bytes INTEGER NOT NULL,
  smem_bytes INTEGER NOT NULL,
  compile_ms REAL,
  created_at INTEGER NOT NULL,
  spread_lo_ms REAL NOT NULL DEFAULT 0,
  spread_hi_ms REAL NOT NULL DEFAULT 0,
  spread_rounds INTEGER NOT NULL DEFAULT 0,
  board_sm_clock_mhz INTEGER NOT NULL DEFAULT 0,
  board_temperature_c INTEGER NOT NULL DEFAULT 0,
  UNIQUE (gpu_id, m, n, k, precision, layout, align, kernel_id, provenance_id, attempt)
) STRICT;
INSERT INTO trials_v8 SELECT * FROM trials;
DROP TABLE trials;
ALTER TABLE trials_v8 RENAME TO trials;
CREATE INDEX trials_by_kernel ON trials (kernel_id);
CREATE INDEX trials_by_search ON trials (search_id);

CREATE TABLE baselines_v8 (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row',
                                       'e4m3-blk', 'e5m2', 'e5m2-row', 'e5m2-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  reason TEXT NOT NULL,
  cublas_ms REAL,
  cublaslt_ms REAL,
  cublaslt_algo_index INTEGER NOT NULL,
  cublaslt_algos_tried INTEGER NOT NULL,
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  created_at INTEGER NOT NULL,
  cublas_lo_ms REAL NOT NULL DEFAULT 0,
  cublas_hi_ms REAL NOT NULL DEFAULT 0,
  cublaslt_lo_ms REAL NOT NULL DEFAULT 0,
  cublaslt_hi_ms REAL NOT NULL DEFAULT 0
) STRICT;
INSERT INTO baselines_v8 SELECT * FROM baselines;
DROP TABLE baselines;
ALTER TABLE baselines_v8 RENAME TO baselines;
CREATE INDEX baselines_by_problem ON baselines (gpu_id, m, n, k, precision, layout, align);

CREATE TABLE finished_problems_v8 (
  id INTEGER PRIMARY KEY,
  search_id INTEGER NOT NULL REFERENCES searches (id),
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  m INTEGER NOT NULL CHECK (m BETWEEN 1 AND 16777216),
  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 16777216),
  k INTEGER NOT NULL CHECK (k BETWEEN 1 AND 16777216),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row',
                                       'e4m3-blk', 'e5m2', 'e5m2-row', 'e5m2-blk')),
  layout TEXT NOT NULL CHECK (layout IN ('NN', 'NT', 'TN', 'TT')),
  align INTEGER NOT NULL CHECK (align IN (1, 2, 4, 8, 16)),
  settings TEXT NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT;
INSERT INTO finished_problems_v8 SELECT * FROM finished_problems;
DROP TABLE finished_problems;
ALTER TABLE finished_problems_v8 RENAME TO finished_problems;
CREATE INDEX finished_problems_by_problem
  ON finished_problems (gpu_id, m, n, k, precision, layout, align);

CREATE TABLE device_ceilings_v8 (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus (id),
  provenance_id INTEGER NOT NULL REFERENCES provenances (id),
  kind TEXT NOT NULL CHECK (kind IN ('compute', 'copy')),
  precision TEXT CHECK ((kind = 'copy' AND precision IS NULL) OR
                        (kind = 'compute' AND precision IS NOT NULL AND
                         precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'e4m3', 'e4m3-row',
                                       'e4m3-blk', 'e5m2', 'e5m2-row', 'e5m2-blk'))),
  value REAL NOT NULL CHECK (value > 0),
  method TEXT NOT NULL,
  measured_at INTEGER NOT NULL
) STRICT;
INSERT INTO device_ceilings_v8 SELECT * FROM device_ceilings;
DROP TABLE device_ceilings;
ALTER TABLE device_ceilings_v8 RENAME TO device_ceilings;
CREATE INDEX device_ceilings_by_gpu ON device_ceilings (gpu_id, kind, precision);
)sql";


constexpr std::array<std::string_view, 8> kMigrations = {kMigration1, kMigration2, kMigration3,
                                                         kMigration4, kMigration5, kMigration6,
                                                         kMigration7, kMigration8};

constexpr std::string_view kPickAnother = "use --db to pick another file";
constexpr std::chrono::milliseconds kBusyTimeout{10000};

/// What the header and schema say about a file, read without writing anything.
struct FileState {
  std::int64_t application_id = 0;
  std::int64_t user_version = 0;
  std::int64_t objects = 0;  // tables, indexes, ... in sqlite_schema
};

std::string hex(std::int64_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(v & 0xffffffff));
  return buf;
}

FileState inspect(Database& db) {
  // One statement, so the three values come from one snapshot: separate reads could see the
  // tables of a migration another process commits in between, but not its application id.
  // Reading sqlite_schema also walks page 1's b-tree, which catches a damaged first page.
  sqlite3_stmt* stmt = nullptr;
  char const* sql =
      "SELECT (SELECT application_id FROM pragma_application_id), "
      "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)";
  int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt, nullptr);
  FileState s;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      s.application_id = sqlite3_column_int64(stmt, 0);
      s.user_version = sqlite3_column_int64(stmt, 1);
      s.objects = sqlite3_column_int64(stmt, 2);
      rc = SQLITE_OK;
    }
  }
  std::string const msg = sqlite3_errmsg(db.handle());
  sqlite3_finalize(stmt);
  if (rc == SQLITE_OK) return s;
  int const primary = rc & 0xff;
  std::string const path = db.path().string();
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
    throw Error("'" + path + "' is not a usable gemmtune cache (" + msg +
                "); it was left untouched: " + std::string(kPickAnother));
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    throw Error("'" + path + "' is locked by another process (" + msg +
                "); try again when it is done, or " + std::string(kPickAnother));
  }
  throw Error("cannot read the cache '" + path + "': " + msg + "; " + std::string(kPickAnother));
}

/// Switches the file to WAL. The switch needs an exclusive lock and SQLite does not wait on
/// the busy handler for it, so a process opening a fresh cache while another sets it up would
/// fail at once; retry for as long as busy_timeout would wait.
void use_wal(Database& db) {
  if (db.query_text("PRAGMA journal_mode") == "wal") return;
  auto const deadline = std::chrono::steady_clock::now() + kBusyTimeout;
  while (true) {
    int const rc = sqlite3_exec(db.handle(), "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
      db.raise(rc, "cannot switch to WAL mode: the cache");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

/// Throws for a file that is not ours to touch; returns true when it needs initialising or
/// migrating.
bool needs_migration(FileState const& s, std::filesystem::path const& path) {
  std::string const p = "'" + path.string() + "'";
  int const current = cache_schema_version();
  if (s.application_id == kCacheApplicationId) {
    if (s.user_version > current) {
      throw Error(p + " is a cache from a newer gemmtune (schema version " +
                  std::to_string(s.user_version) + ", this build reads up to " +
                  std::to_string(current) + "); it was left untouched: upgrade gemmtune or " +
                  std::string(kPickAnother));
    }
    if (s.user_version < 1) {
      throw Error(p + " has the gemmtune application id but no schema version; it was left "
                      "untouched: " + std::string(kPickAnother));
    }
    return s.user_version < current;
  }
  if (s.application_id == 0 && s.user_version == 0 && s.objects == 0) return true;  // empty
  if (s.application_id != 0) {
    throw Error(p + " is another application's SQLite database (application_id " +
                hex(s.application_id) + ", gemmtune uses " + hex(kCacheApplicationId) +
                "); it was left untouched: " + std::string(kPickAnother));
  }
  throw Error(p + " is a SQLite database that is not a gemmtune cache (it has " +
              std::to_string(s.objects) + " schema objects and no gemmtune application_id); " +
              "it was left untouched: " + std::string(kPickAnother));
}

/// How a reader opens an existing cache. A write-ahead-log cache makes every reader create
/// `-wal` and `-shm` beside it when they are missing: in a directory the reader cannot write
/// that fails ("attempt to write a readonly database"), and in a shared directory it leaves the
/// files owned by the reader, after which the owner cannot write the cache. With neither file
/// present no writer is at work, so such a reader reads the main file immutable and creates
/// nothing. A shared (rollback-journal) cache needs no side files to be read.
Database::Mode reader_mode(std::filesystem::path const& path) {
  if (cache_journal(path) != CacheJournal::kWal) return Database::Mode::kReadOnly;
  std::error_code ec;
  if (std::filesystem::exists(path.string() + "-wal", ec) ||
      std::filesystem::exists(path.string() + "-shm", ec)) {
    return Database::Mode::kReadOnly;
  }
  struct stat st {};
  bool const own = ::stat(path.c_str(), &st) == 0 && st.st_uid == ::geteuid();
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  bool const dir_writable = ::access(dir.c_str(), W_OK) == 0;
  return own && dir_writable ? Database::Mode::kReadOnly : Database::Mode::kImmutable;
}

}  // namespace

std::span<std::string_view const> migrations() { return kMigrations; }

int cache_schema_version() { return static_cast<int>(kMigrations.size()); }

Database open_cache(std::filesystem::path const& path, Database::Mode mode) {
  std::error_code ec;
  bool const existed = std::filesystem::exists(path, ec);
  if (!existed && mode == Database::Mode::kReadOnly) {
    throw Error("no cache at '" + path.string() +
                "' (run gemmtune search first, or use --db to pick another file)");
  }
  if (existed && std::filesystem::is_directory(path, ec)) {
    throw Error("'" + path.string() + "' is a directory, not a cache file: " +
                std::string(kPickAnother));
  }
  // A FIFO, device or socket would block SQLite's first read or be written to as if it were a
  // file: a cache is a regular file (or a link to one).
  if (existed && !std::filesystem::is_regular_file(path, ec)) {
    throw Error("'" + path.string() + "' is not a regular file, so it cannot be a cache: " +
                std::string(kPickAnother));
  }
  if (!existed) create_cache_parent(path);

  // A writer that cannot write the file is a reader: SQLite would open it read-only anyway,
  // after creating the log's side files owned by this user.
  bool const reads_only =
      mode == Database::Mode::kReadOnly || (existed && ::access(path.c_str(), W_OK) != 0);
  Database db(path, reads_only ? reader_mode(path) : mode);
  // Nothing below writes until the file is known to be ours (or empty): the pragmas that
  // change the file (journal_mode, application_id) come after the checks.
  db.exec("PRAGMA busy_timeout = " + std::to_string(kBusyTimeout.count()));
  FileState const state = inspect(db);
  bool const migrate = needs_migration(state, path);

  if (db.read_only()) {
    if (state.user_version == 0 && mode == Database::Mode::kReadOnly) {
      // A search killed while it created the file leaves it empty: for a reader that is the
      // same as no cache yet (exit 3), not a broken one.
      throw Error("no tuning cache in '" + path.string() + "' yet: the file is empty (a search "
                  "stopped before setting it up); run gemmtune search, or use --db to pick "
                  "another file", 3);
    }
    if (state.user_version == 0) {
      throw Error("'" + path.string() + "' is empty and read-only, so it cannot be set up as a "
                  "cache: " + std::string(kPickAnother));
    }
    if (migrate) {
      throw Error("'" + path.string() + "' uses cache schema version " +
                  std::to_string(state.user_version) + " and needs an upgrade to " +
                  std::to_string(cache_schema_version()) +
                  ", but it is opened read-only (list, query, export, show and report only read); "
                  "open it once with a command that writes, such as gemmtune search or gemmtune "
                  "import, or " + std::string(kPickAnother));
    }
    db.exec("PRAGMA foreign_keys = ON");
    return db;
  }

  // A new cache writes ahead (WAL); an existing one with a rollback journal is a shared cache
  // (set_cache_shared) and keeps it, so its readers need no side files.
  // The journal in effect is asked of SQLite, not read from the file's header: while another
  // connection writes ahead, the header on disk can lag the log, and a connection that took
  // the cache for a rollback-journal one would write past the log.
  if (state.user_version == 0 || db.query_text("PRAGMA journal_mode") == "wal") use_wal(db);
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  if (migrate) {
    Transaction tx(db);
    // Another process may have set the file up between the first look and the lock.
    FileState const locked = inspect(db);
    if (needs_migration(locked, path)) {
      for (auto v = static_cast<std::size_t>(locked.user_version); v < kMigrations.size(); ++v) {
        db.exec(kMigrations[v]);
      }
      db.exec("PRAGMA application_id = " + std::to_string(kCacheApplicationId));
      db.exec("PRAGMA user_version = " + std::to_string(cache_schema_version()));
    }
    tx.commit();
  }
  return db;
}

}  // namespace gemmtune
