// Row-by-row validation of a cache and its repair (copy aside with VACUUM INTO, then one
// DELETE transaction).
#include "db/cache_check.hpp"

#include <cmath>
#include <ctime>
#include <system_error>

#include "db/schema.hpp"
#include "db/sqlite_handle.hpp"
#include "db/trial_row.hpp"
#include "src/core/error.hpp"
#include "src/core/trial_check.hpp"

namespace gemmtune {
namespace {

/// Every trial row, read without trusting it: an id that does not parse is a defect, not a throw.
void check_trials(Database& db, KernelCheck const& check, CacheCheckReport& report) {
  Statement s(db,
              "SELECT id, m, n, k, precision, layout, align, kernel_id, disposition, time_ms, "
              "min_ms, tflops, cublas_ms, cublaslt_ms, max_abs_err, max_err_ratio, rel_fro_err, "
              "exact_mismatches, registers, spill_bytes, smem_bytes, compile_ms, created_at, "
              "spread_lo_ms, spread_hi_ms, spread_rounds FROM trials ORDER BY id");
  while (s.step()) {
    ++report.trials;
    Trial t;
    int c = 0;
    t.id = s.column_int(c++);
    t.problem = read_problem(s, c);
    c += 6;
    std::string const kernel_id = s.column_text(c++);
    // The schema's CHECK constraint holds the disposition to known names.
    t.disposition = parse_disposition(s.column_text(c++));
    for (double* v : {&t.time_ms, &t.min_ms, &t.tflops, &t.cublas_ms, &t.cublaslt_ms,
                      &t.max_abs_err, &t.max_err_ratio, &t.rel_fro_err}) {
      *v = s.column_double(c++);
    }
    t.exact_mismatches = s.column_int(c++);
    t.registers = static_cast<int>(s.column_int(c++));
    t.spill_bytes = static_cast<int>(s.column_int(c++));
    t.smem_bytes = static_cast<int>(s.column_int(c++));
    t.compile_ms = s.column_double(c++);
    t.created_at = s.column_int(c++);
    t.spread_lo_ms = s.column_double(c++);
    t.spread_hi_ms = s.column_double(c++);
    t.spread_rounds = static_cast<int>(s.column_int(c++));

    std::string why;
    try {
      t.config = parse_kernel_id(kernel_id);
    } catch (UsageError const& e) {
      why = std::string("kernel_id: ") + e.what();
    }
    // A failed trial's figures are 0 when not measured; NULL reads as NaN and fails the check
    // only where a number is required.
    if (t.disposition != Disposition::kOk) {
      for (double* v : {&t.time_ms, &t.min_ms, &t.tflops, &t.spread_lo_ms, &t.spread_hi_ms}) {
        if (std::isnan(*v)) *v = 0.0;
      }
    }
    if (why.empty()) why = trial_defect(t);
    if (why.empty() && check) why = check(t.config, t.problem.precision);
    if (!why.empty()) {
      report.defects.push_back({"trials", t.id, kernel_id + " " + t.problem.describe(), why});
    }
  }
}

void check_baselines(Database& db, CacheCheckReport& report) {
  Statement s(db, "SELECT id, m, n, k, precision, layout, align, cublas_ms, cublaslt_ms "
                  "FROM baselines ORDER BY id");
  while (s.step()) {
    ++report.baselines;
    std::int64_t const id = s.column_int(0);
    Problem const p = read_problem(s, 1);
    // A baseline that failed stores no figure (NULL): only a stored figure must be in range.
    double const cublas = s.column_is_null(7) ? 0.0 : s.column_double(7);
    double const lt = s.column_is_null(8) ? 0.0 : s.column_double(8);
    if (std::string why = baseline_defect(p, cublas, lt); !why.empty()) {
      report.defects.push_back({"baselines", id, "cuBLAS baseline " + p.describe(), why});
    }
  }
}

/// A path beside the cache that does not exist yet.
std::filesystem::path backup_path(std::filesystem::path const& cache) {
  std::string const stem = cache.string() + ".before-repair-" + std::to_string(std::time(nullptr));
  std::filesystem::path candidate = stem;
  std::error_code ec;
  for (int i = 1; std::filesystem::exists(candidate, ec) || ec; ++i) {
    if (i > 1000) throw Error("cannot find a free name for the copy of '" + cache.string() + "'");
    candidate = stem + "-" + std::to_string(i);
  }
  return candidate;
}

}  // namespace

CacheCheckReport check_cache(std::filesystem::path const& path, KernelCheck const& check,
                             bool repair) {
  CacheCheckReport report;
  report.cache = path.string();
  Database db = open_cache(path, repair ? Database::Mode::kReadWrite : Database::Mode::kReadOnly);
  check_trials(db, check, report);
  check_baselines(db, report);
  if (!repair || report.defects.empty()) return report;

  // The whole file, consistent as of now, before anything is deleted: a repair loses nothing.
  std::filesystem::path const copy = backup_path(path);
  {
    Statement vacuum(db, "VACUUM INTO ?1");
    vacuum.bind(1, copy.string());
    vacuum.run();
  }
  report.backup = copy.string();
  Transaction tx(db);
  Statement del_trial(db, "DELETE FROM trials WHERE id = ?1");
  Statement del_baseline(db, "DELETE FROM baselines WHERE id = ?1");
  for (CacheDefect const& d : report.defects) {
    Statement& del = d.table == "trials" ? del_trial : del_baseline;
    del.reset().bind(1, d.id);
    del.run();
    ++report.removed;
  }
  tx.commit();
  return report;
}

}  // namespace gemmtune
