// Helpers for the cache tests: a private temp directory, file bytes, raw SQLite access, and
// trial factories.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sqlite3.h>

#include "src/core/trial.hpp"

namespace gemmtune::testing_support {

/// A fresh directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gemmtune_db_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path const& path() const { return path_; }
  std::filesystem::path operator/(std::string const& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string file_bytes(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(std::filesystem::path const& p, std::string const& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

/// Runs SQL on a file with a plain connection (as another program would); returns the first
/// column of the last row as an integer, or 0.
inline long long raw_sql(std::filesystem::path const& p, std::string const& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(p.c_str(), &db);
  long long result = 0;
  sqlite3_stmt* stmt = nullptr;
  char const* tail = sql.c_str();
  while (tail && *tail) {
    if (sqlite3_prepare_v2(db, tail, -1, &stmt, &tail) != SQLITE_OK) break;
    if (!stmt) break;
    while (sqlite3_step(stmt) == SQLITE_ROW) result = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

inline GpuIdentity h200() { return {"NVIDIA H200", 9, 0, 132}; }
inline GpuIdentity a100() { return {"NVIDIA A100-SXM4-80GB", 8, 0, 108}; }

inline Provenance provenance(std::string const& template_hash = "abc123") {
  return {"13000", "13000", "13.0", "130100", "0.1.0", template_hash, "-arch=sm_90 -O3"};
}

inline Problem problem(std::int64_t m, std::int64_t n, std::int64_t k, int align = 16,
                       Precision p = Precision::kFP32, Layout l = Layout::kNN) {
  Problem x;
  x.m = m;
  x.n = n;
  x.k = k;
  x.align = align;
  x.precision = p;
  x.layout = l;
  return x;
}

inline Trial trial(GpuIdentity const& gpu, Problem const& p, std::string const& kernel_id,
                   Disposition d, double time_ms = 0.0) {
  Trial t;
  t.gpu = gpu;
  t.problem = p;
  t.config = parse_kernel_id(kernel_id);
  t.disposition = d;
  t.reason = d == Disposition::kOk ? "" : "because";
  t.time_ms = time_ms;
  t.min_ms = time_ms * 0.98;
  t.tflops = time_ms > 0 ? p.flops() / (time_ms * 1e-3) / 1e12 : 0.0;
  t.provenance = provenance();
  return t;
}

}  // namespace gemmtune::testing_support
