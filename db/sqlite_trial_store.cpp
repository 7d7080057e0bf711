// The SQLite tuning cache: prepared statements for every query, one BEGIN IMMEDIATE
// transaction per write, and the export to a TuningTable.
#include "db/sqlite_trial_store.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <tuple>

#include "db/schema.hpp"
#include "db/sqlite_handle.hpp"
#include "db/trial_row.hpp"
#include "src/core/default_configs.hpp"
#include "src/core/error.hpp"
#include "src/core/tie_rule.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

std::int64_t now_seconds() { return static_cast<std::int64_t>(std::time(nullptr)); }

/// A cuBLAS version as the table writes it ("13.1.0"): digits and dots.
bool is_version_text(std::string const& v) {
  return !v.empty() && v.size() <= 16 &&
         std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

// The columns read_trial() expects, from trials t joined with gpus g and provenances p.
/// Alternatives an exported entry carries: enough for the lookup's wave model to find a kernel
/// whose tile count suits a nearby shape, few enough to keep tables small.
constexpr std::size_t kExportedAlternatives = 8;
/// Fastest trials of a problem best() looks at, re-timed ones first; those beyond are far
/// outside any band.
constexpr char const* kTieCandidates = "32";

constexpr char const* kTrialColumns =
    "t.id, t.search_id, g.name, g.cc_major, g.cc_minor, g.sm_count, t.m, t.n, t.k, "
    "t.precision, t.layout, t.align, t.kernel_id, t.disposition, t.reason, t.time_ms, "
    "t.min_ms, t.tflops, t.cublas_ms, t.cublaslt_ms, t.max_abs_err, t.max_err_ratio, "
    "t.rel_fro_err, t.exact_mismatches, t.registers, t.spill_bytes, t.smem_bytes, "
    "t.compile_ms, p.driver, p.cuda_runtime, p.nvrtc, p.cublas, p.gemmtune_version, "
    "p.template_hash, p.compile_options, t.created_at, t.spread_lo_ms, t.spread_hi_ms, "
    "t.spread_rounds, t.board_sm_clock_mhz, t.board_temperature_c "
    "FROM trials t JOIN gpus g ON g.id = t.gpu_id JOIN provenances p ON p.id = t.provenance_id ";

// Matches a GPU given as parameters ?1..?4.
constexpr char const* kGpuIs =
    "g.name = ?1 AND g.cc_major = ?2 AND g.cc_minor = ?3 AND g.sm_count = ?4 ";
// Matches a resolved problem given as parameters ?5..?10.
constexpr char const* kProblemIs =
    "t.m = ?5 AND t.n = ?6 AND t.k = ?7 AND t.precision = ?8 AND t.layout = ?9 AND t.align = ?10 ";
// Keeps only the newest attempt of each (GPU, problem, kernel, provenance).
constexpr char const* kNewestAttempt =
    "NOT EXISTS (SELECT 1 FROM trials u WHERE u.gpu_id = t.gpu_id AND u.m = t.m AND u.n = t.n "
    "AND u.k = t.k AND u.precision = t.precision AND u.layout = t.layout AND u.align = t.align "
    "AND u.kernel_id = t.kernel_id AND u.provenance_id = t.provenance_id "
    "AND u.attempt > t.attempt) ";

void bind_gpu(Statement& s, GpuIdentity const& g, int first = 1) {
  s.bind(first, std::string_view(g.name))
      .bind(first + 1, g.cc_major)
      .bind(first + 2, g.cc_minor)
      .bind(first + 3, g.sm_count);
}

void bind_problem(Statement& s, Problem const& p, int first = 5) {
  s.bind(first, p.m)
      .bind(first + 1, p.n)
      .bind(first + 2, p.k)
      .bind(first + 3, to_string(p.precision))
      .bind(first + 4, to_string(p.layout))
      .bind(first + 5, p.align);
}

void bind_provenance(Statement& s, Provenance const& v, int first) {
  s.bind(first, std::string_view(v.driver))
      .bind(first + 1, std::string_view(v.cuda_runtime))
      .bind(first + 2, std::string_view(v.nvrtc))
      .bind(first + 3, std::string_view(v.cublas))
      .bind(first + 4, std::string_view(v.gemmtune_version))
      .bind(first + 5, std::string_view(v.template_hash))
      .bind(first + 6, std::string_view(v.compile_options));
}

/// Rows are validated on the way in; a row that fails here was edited by hand.
[[noreturn]] void bad_row(std::filesystem::path const& path, std::int64_t id, std::string const& why) {
  throw Error("cache '" + path.string() + "': trial " + std::to_string(id) + " is damaged (" + why +
              "); use --db to pick another file");
}

/// A trial from kTrialColumns, which start at column `first`.
Trial read_trial(Statement const& s, std::filesystem::path const& path, int first = 0) {
  Trial t;
  int c = first;
  t.id = s.column_int(c++);
  t.search_id = s.column_int(c++);
  t.gpu = read_gpu(s, c);
  c += 4;
  t.problem = read_problem(s, c);
  c += 6;
  std::string const kernel_id = s.column_text(c++);
  try {
    t.config = parse_kernel_id(kernel_id);
  } catch (UsageError const& e) {
    bad_row(path, t.id, e.what());
  }
  t.disposition = parse_disposition(s.column_text(c++));
  t.reason = s.column_text(c++);
  t.time_ms = s.column_double(c++);
  t.min_ms = s.column_double(c++);
  t.tflops = s.column_double(c++);
  t.cublas_ms = s.column_double(c++);
  t.cublaslt_ms = s.column_double(c++);
  t.max_abs_err = s.column_double(c++);
  t.max_err_ratio = s.column_double(c++);
  t.rel_fro_err = s.column_double(c++);
  t.exact_mismatches = s.column_int(c++);
  t.registers = static_cast<int>(s.column_int(c++));
  t.spill_bytes = static_cast<int>(s.column_int(c++));
  t.smem_bytes = static_cast<int>(s.column_int(c++));
  t.compile_ms = s.column_double(c++);
  t.provenance = read_provenance(s, c);
  c += 7;
  t.created_at = s.column_int(c++);
  t.spread_lo_ms = s.column_double(c++);
  t.spread_hi_ms = s.column_double(c++);
  t.spread_rounds = static_cast<int>(s.column_int(c++));
  t.board_sm_clock_mhz = static_cast<int>(s.column_int(c++));
  t.board_temperature_c = static_cast<int>(s.column_int(c++));
  return t;
}

std::string sql(std::initializer_list<char const*> parts) {
  std::string s;
  for (char const* p : parts) s += p;
  return s;
}

}  // namespace

struct SqliteTrialStore::Impl {
  Database db;
  bool read_only;

  // Writes.
  Statement insert_gpu;
  Statement select_gpu;
  Statement insert_provenance;
  Statement select_provenance;
  Statement next_attempt;
  Statement insert_trial;
  Statement insert_search;
  Statement update_search;
  Statement insert_baseline;
  Statement insert_finished;
  // Reads.
  Statement find_trial;
  Statement trials_for;
  Statement tuned_problems;
  Statement best;
  Statement find_baseline;
  Statement newest_ok_baseline;
  Statement list_gpus;
  Statement problem_counts;
  Statement filtered_trials;
  Statement list_searches;
  Statement export_rows;
  Statement first_ok_times;
  Statement finished_by;

  Impl(std::filesystem::path const& path, Access access)
      : db(open_cache(path, access == Access::kReadOnly ? Database::Mode::kReadOnly
                                                        : Database::Mode::kReadWrite)),
        read_only(db.read_only()),
        insert_gpu(db,
                   "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) VALUES (?1, ?2, ?3, ?4) "
                   "ON CONFLICT DO NOTHING"),
        select_gpu(db, sql({"SELECT g.id FROM gpus g WHERE ", kGpuIs})),
        insert_provenance(db,
                          "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, "
                          "gemmtune_version, template_hash, compile_options) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING"),
        select_provenance(db,
                          "SELECT id FROM provenances WHERE driver = ?1 AND cuda_runtime = ?2 "
                          "AND nvrtc = ?3 AND cublas = ?4 AND gemmtune_version = ?5 "
                          "AND template_hash = ?6 AND compile_options = ?7"),
        next_attempt(db,
                     "SELECT coalesce(max(attempt), 0) + 1 FROM trials t WHERE t.gpu_id = ?1 "
                     "AND t.m = ?5 AND t.n = ?6 AND t.k = ?7 AND t.precision = ?8 "
                     "AND t.layout = ?9 AND t.align = ?10 AND t.kernel_id = ?11 "
                     "AND t.provenance_id = ?12"),
        insert_trial(db, kInsertTrialSql),
        insert_search(db, "INSERT INTO searches (arguments, started_at) VALUES (?1, ?2)"),
        update_search(db,
                      "UPDATE searches SET finished_at = ?2, phase_times_json = ?3 WHERE id = ?1"),
        insert_baseline(db,
                        "INSERT INTO baselines (gpu_id, m, n, k, precision, layout, align, ok, "
                        "reason, cublas_ms, cublaslt_ms, cublaslt_algo_index, "
                        "cublaslt_algos_tried, provenance_id, created_at, cublas_lo_ms, "
                        "cublas_hi_ms, cublaslt_lo_ms, cublaslt_hi_ms) VALUES (?1, ?5, ?6, "
                        "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
                        "?22)"),
        insert_finished(db,
                        "INSERT INTO finished_problems (search_id, gpu_id, m, n, k, precision, "
                        "layout, align, settings, finished_at) VALUES (?11, ?1, ?5, ?6, ?7, ?8, "
                        "?9, ?10, ?12, ?13)"),
        find_trial(db, sql({"SELECT ", kTrialColumns, "WHERE ", kGpuIs, "AND ", kProblemIs,
                            "AND t.kernel_id = ?11 AND p.driver = ?12 AND p.cuda_runtime = ?13 "
                            "AND p.nvrtc = ?14 AND p.cublas = ?15 AND p.gemmtune_version = ?16 "
                            "AND p.template_hash = ?17 AND p.compile_options = ?18 "
                            "ORDER BY t.attempt DESC LIMIT 1"})),
        trials_for(db, sql({"SELECT ", kTrialColumns, "WHERE ", kGpuIs, "AND ", kProblemIs,
                            "ORDER BY t.id DESC"})),
        tuned_problems(db, sql({"SELECT DISTINCT t.m, t.n, t.k, t.layout, t.align FROM trials t "
                                "JOIN gpus g ON g.id = t.gpu_id WHERE ", kGpuIs,
                                "AND t.precision = ?5 AND t.disposition = 'ok' "
                                "ORDER BY t.m, t.n, t.k, t.layout, t.align"})),
        best(db, sql({"SELECT ", kTrialColumns, "WHERE ", kGpuIs, "AND ", kProblemIs,
                      "AND t.disposition = 'ok' AND ", kNewestAttempt,
                      "ORDER BY (t.spread_rounds >= 2) DESC, t.time_ms ASC, t.id DESC LIMIT ",
                      kTieCandidates})),
        find_baseline(db,
                      "SELECT b.ok, b.reason, b.cublas_ms, b.cublaslt_ms, b.cublaslt_algo_index, "
                      "b.cublaslt_algos_tried, b.cublas_lo_ms, b.cublas_hi_ms, b.cublaslt_lo_ms, "
                      "b.cublaslt_hi_ms FROM baselines b JOIN gpus g ON g.id = b.gpu_id "
                      "WHERE g.name = ?1 AND g.cc_major = ?2 AND g.cc_minor = ?3 "
                      "AND g.sm_count = ?4 AND b.m = ?5 AND b.n = ?6 AND b.k = ?7 "
                      "AND b.precision = ?8 AND b.layout = ?9 AND b.align = ?10 "
                      "ORDER BY b.id DESC LIMIT 1"),
        newest_ok_baseline(db,
                           "SELECT b.cublas_ms, b.cublaslt_ms FROM baselines b "
                           "WHERE b.gpu_id = ?1 AND b.m = ?5 AND b.n = ?6 AND b.k = ?7 "
                           "AND b.precision = ?8 AND b.layout = ?9 AND b.align = ?10 "
                           "AND b.ok = 1 ORDER BY b.id DESC LIMIT 1"),
        list_gpus(db, "SELECT name, cc_major, cc_minor, sm_count FROM gpus ORDER BY id"),
        problem_counts(db,
                       "SELECT g.name, g.cc_major, g.cc_minor, g.sm_count, t.m, t.n, t.k, "
                       "t.precision, t.layout, t.align, t.disposition, count(*) "
                       "FROM trials t JOIN gpus g ON g.id = t.gpu_id "
                       "WHERE ?1 IS NULL OR (g.name = ?1 AND g.cc_major = ?2 "
                       "AND g.cc_minor = ?3 AND g.sm_count = ?4) "
                       "GROUP BY t.gpu_id, t.precision, t.layout, t.m, t.n, t.k, t.align, "
                       "t.disposition ORDER BY t.gpu_id, t.precision, t.layout, t.m, t.n, t.k, "
                       "t.align"),
        filtered_trials(db, sql({"SELECT ", kTrialColumns,
                                 "WHERE (?1 IS NULL OR (", kGpuIs, ")) "
                                 "AND (?5 IS NULL OR (t.m = ?5 AND t.n = ?6 AND t.k = ?7 "
                                 "AND t.precision = ?8 AND t.layout = ?9 "
                                 "AND (?10 IS NULL OR t.align = ?10))) "
                                 "AND (?11 IS NULL OR t.kernel_id = ?11) "
                                 "AND (?12 IS NULL OR t.disposition = ?12) "
                                 "ORDER BY t.id DESC LIMIT ?13"})),
        list_searches(db,
                      "SELECT id, arguments, started_at, finished_at, phase_times_json "
                      "FROM searches ORDER BY id DESC"),
        export_rows(db, sql({"SELECT t.gpu_id, ", kTrialColumns,
                             "WHERE t.disposition = 'ok' AND ", kNewestAttempt,
                             "AND (?1 IS NULL OR (", kGpuIs, ")) "
                             "AND (?5 IS NULL OR t.precision = ?5) "
                             "AND (?6 IS NULL OR t.layout = ?6) "
                             "ORDER BY t.gpu_id, t.precision, t.layout, t.m, t.n, t.k, t.align, "
                             "t.time_ms, t.id DESC"})),
        // Each kernel's first verified figure on a problem: the search-time measurement, one
        // protocol for all of them (later attempts re-time only the best few, more slowly).
        // SQLite takes the bare time_ms from the row that holds MIN(attempt).
        first_ok_times(db,
                       "SELECT t.kernel_id, t.time_ms, MIN(t.attempt) FROM trials t "
                       "WHERE t.gpu_id = ?1 AND t.m = ?5 AND t.n = ?6 AND t.k = ?7 "
                       "AND t.precision = ?8 AND t.layout = ?9 AND t.align = ?10 "
                       "AND t.disposition = 'ok' AND t.time_ms > 0 GROUP BY t.kernel_id"),
        finished_by(db,
                    "SELECT f.search_id FROM finished_problems f JOIN gpus g ON g.id = f.gpu_id "
                    "WHERE g.name = ?1 AND g.cc_major = ?2 AND g.cc_minor = ?3 "
                    "AND g.sm_count = ?4 AND f.m = ?5 AND f.n = ?6 AND f.k = ?7 "
                    "AND f.precision = ?8 AND f.layout = ?9 AND f.align = ?10 "
                    "AND f.settings = ?11 ORDER BY f.id DESC LIMIT 1") {}

  void require_writable(char const* what) const {
    if (read_only) {
      throw Error("cannot " + std::string(what) + " in the cache '" + db.path().string() +
                  "': it is read-only (opened for queries, or no write permission); use --db "
                  "to pick a writable file");
    }
  }

  /// Id of a GPU row, inserting it; call inside a write transaction.
  std::int64_t ensure_gpu(GpuIdentity const& g) {
    {
      auto use = insert_gpu.use();
      bind_gpu(insert_gpu, g);
      insert_gpu.run();
    }
    auto use = select_gpu.use();
    bind_gpu(select_gpu, g);
    if (!select_gpu.step()) db.raise(0, "cannot find the GPU row just stored in");
    return select_gpu.column_int(0);
  }

  /// Id of a provenance row, inserting it; call inside a write transaction.
  std::int64_t ensure_provenance(Provenance const& p) {
    {
      auto use = insert_provenance.use();
      bind_provenance(insert_provenance, p, 1);
      insert_provenance.run();
    }
    auto use = select_provenance.use();
    bind_provenance(select_provenance, p, 1);
    if (!select_provenance.step()) db.raise(0, "cannot find the provenance row just stored in");
    return select_provenance.column_int(0);
  }

  std::vector<Trial> collect(Statement& s) {
    std::vector<Trial> out;
    while (s.step()) out.push_back(read_trial(s, db.path()));
    return out;
  }
};

namespace {

/// Rejects a problem the schema's CHECK constraints would refuse, with a readable message.
Problem checked_problem(Problem const& problem) {
  Problem const p = problem.resolved();
  auto const in_range = [](std::int64_t d) { return d >= 1 && d <= kMaxDim; };
  if (!in_range(p.m) || !in_range(p.n) || !in_range(p.k)) {
    throw Error("cannot store problem " + p.shape() + ": M, N and K must be in [1, " +
                std::to_string(kMaxDim) + "]");
  }
  if (p.align != 1 && p.align != 2 && p.align != 4 && p.align != 8 && p.align != 16) {
    throw Error("cannot store problem " + p.shape() + ": alignment " + std::to_string(p.align) +
                " is not one of 1, 2, 4, 8, 16");
  }
  return p;
}

}  // namespace

SqliteTrialStore::SqliteTrialStore(std::filesystem::path const& path, Access access)
    : impl_(std::make_unique<Impl>(path, access)) {}

SqliteTrialStore::~SqliteTrialStore() = default;

std::filesystem::path const& SqliteTrialStore::path() const { return impl_->db.path(); }

bool SqliteTrialStore::read_only() const { return impl_->read_only; }

std::int64_t SqliteTrialStore::begin_search(std::string const& arguments) {
  impl_->require_writable("start a search");
  Transaction tx(impl_->db);
  {
    auto use = impl_->insert_search.use();
    impl_->insert_search.bind(1, std::string_view(arguments)).bind(2, now_seconds());
    impl_->insert_search.run();
  }
  std::int64_t const id = impl_->db.last_insert_rowid();
  tx.commit();
  return id;
}

void SqliteTrialStore::finish_search(std::int64_t search_id, std::string const& phase_times_json) {
  impl_->require_writable("finish a search");
  Transaction tx(impl_->db);
  {
    auto use = impl_->update_search.use();
    impl_->update_search.bind(1, search_id)
        .bind(2, now_seconds())
        .bind(3, std::string_view(phase_times_json));
    impl_->update_search.run();
  }
  if (impl_->db.query_int("SELECT changes()") != 1) {
    throw Error("cannot finish search " + std::to_string(search_id) + ": the cache '" +
                path().string() + "' has no search with that id");
  }
  tx.commit();
}

std::int64_t SqliteTrialStore::record_trial(Trial const& trial) {
  impl_->require_writable("store a trial");
  Problem const p = checked_problem(trial.problem);
  std::string const kernel_id = trial.config.id();
  Impl& d = *impl_;
  Transaction tx(d.db);
  std::int64_t const gpu_id = d.ensure_gpu(trial.gpu);
  std::int64_t const provenance_id = d.ensure_provenance(trial.provenance);
  std::int64_t attempt = 1;
  {
    auto use = d.next_attempt.use();
    d.next_attempt.bind(1, gpu_id);
    bind_problem(d.next_attempt, p);
    d.next_attempt.bind(11, std::string_view(kernel_id)).bind(12, provenance_id);
    if (d.next_attempt.step()) attempt = d.next_attempt.column_int(0);
  }
  {
    auto use = d.insert_trial.use();
    Statement& s = d.insert_trial;
    bind_trial_row(s, trial, kernel_id,
                   {trial.search_id, gpu_id, provenance_id, attempt, now_seconds()});
    s.run();
  }
  std::int64_t const id = d.db.last_insert_rowid();
  tx.commit();
  return id;
}

std::optional<Trial> SqliteTrialStore::find_trial(GpuIdentity const& gpu, Problem const& problem,
                                                  KernelConfig const& config,
                                                  Provenance const& provenance) {
  Statement& s = impl_->find_trial;
  auto use = s.use();
  bind_gpu(s, gpu);
  bind_problem(s, problem.resolved());
  s.bind(11, config.id());
  bind_provenance(s, provenance, 12);
  if (!s.step()) return std::nullopt;
  return read_trial(s, path());
}

std::vector<Trial> SqliteTrialStore::trials_for(GpuIdentity const& gpu, Problem const& problem) {
  Statement& s = impl_->trials_for;
  auto use = s.use();
  bind_gpu(s, gpu);
  bind_problem(s, problem.resolved());
  return impl_->collect(s);
}

std::vector<Problem> SqliteTrialStore::tuned_problems(GpuIdentity const& gpu,
                                                     Precision precision) {
  Statement& s = impl_->tuned_problems;
  auto use = s.use();
  bind_gpu(s, gpu);
  s.bind(5, to_string(precision));
  std::vector<Problem> out;
  while (s.step()) {
    Problem p;
    p.m = s.column_int(0);
    p.n = s.column_int(1);
    p.k = s.column_int(2);
    p.precision = precision;
    p.layout = parse_layout(s.column_text(3));
    p.align = static_cast<int>(s.column_int(4));
    out.push_back(p);
  }
  return out;
}

void SqliteTrialStore::record_baseline(GpuIdentity const& gpu, Problem const& problem,
                                       BaselineResult const& b, Provenance const& provenance) {
  impl_->require_writable("store a baseline");
  Problem const p = checked_problem(problem);
  Impl& d = *impl_;
  Transaction tx(d.db);
  std::int64_t const gpu_id = d.ensure_gpu(gpu);
  std::int64_t const provenance_id = d.ensure_provenance(provenance);
  {
    auto use = d.insert_baseline.use();
    Statement& s = d.insert_baseline;
    s.bind(1, gpu_id);
    bind_problem(s, p);
    s.bind(11, b.ok ? 1 : 0)
        .bind(12, std::string_view(b.reason))
        .bind(13, b.cublas_ms)
        .bind(14, b.cublaslt_ms)
        .bind(15, b.cublaslt_algo_index)
        .bind(16, b.cublaslt_algos_tried)
        .bind(17, provenance_id)
        .bind(18, now_seconds())
        .bind(19, b.cublas_min_ms)
        .bind(20, b.cublas_max_ms)
        .bind(21, b.cublaslt_min_ms)
        .bind(22, b.cublaslt_max_ms);
    s.run();
  }
  tx.commit();
}

void SqliteTrialStore::record_finished_problem(std::int64_t search_id, GpuIdentity const& gpu,
                                               Problem const& problem,
                                               std::string const& settings) {
  impl_->require_writable("record a finished problem");
  Problem const p = checked_problem(problem);
  Impl& d = *impl_;
  Transaction tx(d.db);
  std::int64_t const gpu_id = d.ensure_gpu(gpu);
  {
    auto use = d.insert_finished.use();
    Statement& s = d.insert_finished;
    s.bind(1, gpu_id);
    bind_problem(s, p);
    s.bind(11, search_id).bind(12, std::string_view(settings)).bind(13, now_seconds());
    s.run();
  }
  tx.commit();
}

std::optional<std::int64_t> SqliteTrialStore::finished_by(GpuIdentity const& gpu,
                                                          Problem const& problem,
                                                          std::string const& settings) {
  Statement& s = impl_->finished_by;
  auto use = s.use();
  bind_gpu(s, gpu);
  bind_problem(s, problem.resolved());
  s.bind(11, std::string_view(settings));
  if (!s.step()) return std::nullopt;
  return s.column_int(0);
}

std::optional<BaselineResult> SqliteTrialStore::find_baseline(GpuIdentity const& gpu,
                                                              Problem const& problem) {
  Statement& s = impl_->find_baseline;
  auto use = s.use();
  bind_gpu(s, gpu);
  bind_problem(s, problem.resolved());
  if (!s.step()) return std::nullopt;
  BaselineResult b;
  b.ok = s.column_int(0) != 0;
  b.reason = s.column_text(1);
  b.cublas_ms = s.column_double(2);
  b.cublaslt_ms = s.column_double(3);
  b.cublaslt_algo_index = static_cast<int>(s.column_int(4));
  b.cublaslt_algos_tried = static_cast<int>(s.column_int(5));
  b.cublas_min_ms = s.column_double(6);
  b.cublas_max_ms = s.column_double(7);
  b.cublaslt_min_ms = s.column_double(8);
  b.cublaslt_max_ms = s.column_double(9);
  return b;
}

std::optional<Trial> SqliteTrialStore::best(GpuIdentity const& gpu, Problem const& problem) {
  return best_of(gpu, problem, false);
}

std::optional<Trial> SqliteTrialStore::best_own(GpuIdentity const& gpu, Problem const& problem) {
  return best_of(gpu, problem, true);
}

std::optional<Trial> SqliteTrialStore::best_of(GpuIdentity const& gpu, Problem const& problem,
                                               bool own_only) {
  Statement& s = impl_->best;
  auto use = s.use();
  bind_gpu(s, gpu);
  bind_problem(s, problem.resolved());
  std::vector<Trial> fastest;
  while (s.step()) {
    Trial t = read_trial(s, path());
    if (!own_only || !is_vendor(t.config)) fastest.push_back(std::move(t));
  }
  if (fastest.empty()) return std::nullopt;
  return std::move(fastest[pick_trial(fastest)]);
}

std::vector<GpuIdentity> SqliteTrialStore::list_gpus() {
  Statement& s = impl_->list_gpus;
  auto use = s.use();
  std::vector<GpuIdentity> out;
  while (s.step()) {
    out.push_back(read_gpu(s, 0));
  }
  return out;
}

std::vector<ProblemSummary> SqliteTrialStore::list_problems(
    std::optional<GpuIdentity> const& gpu) {
  std::vector<ProblemSummary> out;
  {
    Statement& s = impl_->problem_counts;
    auto use = s.use();
    if (gpu) bind_gpu(s, *gpu);
    while (s.step()) {
      GpuIdentity const g{s.column_text(0), static_cast<int>(s.column_int(1)),
                          static_cast<int>(s.column_int(2)), static_cast<int>(s.column_int(3))};
      Problem p;
      p.m = s.column_int(4);
      p.n = s.column_int(5);
      p.k = s.column_int(6);
      p.precision = parse_precision(s.column_text(7));
      p.layout = parse_layout(s.column_text(8));
      p.align = static_cast<int>(s.column_int(9));
      // Rows arrive grouped by (GPU, problem), one per disposition.
      if (out.empty() || !(out.back().gpu == g) || !(out.back().problem == p)) {
        out.push_back(ProblemSummary{g, p, {}, 0, std::nullopt});
      }
      std::int64_t const n = s.column_int(11);
      out.back().counts[parse_disposition(s.column_text(10))] += n;
      out.back().total += n;
    }
  }
  for (auto& summary : out) summary.best = best(summary.gpu, summary.problem);
  return out;
}

std::vector<Trial> SqliteTrialStore::trials(TrialFilter const& f) {
  Statement& s = impl_->filtered_trials;
  auto use = s.use();
  if (f.gpu) bind_gpu(s, *f.gpu);
  if (f.problem) {
    bind_problem(s, *f.problem);
    if (f.problem->align == 0) s.bind_null(10);
  }
  if (f.kernel_id) s.bind(11, std::string_view(*f.kernel_id));
  if (f.disposition) s.bind(12, to_string(*f.disposition));
  s.bind(13, f.limit > 0 ? f.limit : std::int64_t{-1});
  return impl_->collect(s);
}

std::vector<Trial> SqliteTrialStore::trials_for_kernel(std::string const& kernel_id) {
  TrialFilter f;
  f.kernel_id = kernel_id;
  return trials(f);
}

std::vector<SearchRecord> SqliteTrialStore::searches() {
  Statement& s = impl_->list_searches;
  auto use = s.use();
  std::vector<SearchRecord> out;
  while (s.step()) {
    out.push_back(SearchRecord{s.column_int(0), s.column_text(1), s.column_int(2),
                               s.column_int(3), s.column_text(4)});
  }
  return out;
}

void SqliteTrialStore::record_ceiling(GpuIdentity const& gpu, Provenance const& provenance,
                                      DeviceCeiling const& c) {
  impl_->require_writable("store a device ceiling");
  if (!(c.value > 0.0) || !std::isfinite(c.value)) {
    throw Error("a device ceiling must be a finite number > 0, got " + std::to_string(c.value));
  }
  Impl& d = *impl_;
  Transaction tx(d.db);
  std::int64_t const gpu_id = d.ensure_gpu(gpu);
  std::int64_t const provenance_id = d.ensure_provenance(provenance);
  Statement s(d.db,
              "INSERT INTO device_ceilings (gpu_id, provenance_id, kind, precision, value, method, "
              "measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  s.bind(1, gpu_id).bind(2, provenance_id).bind(3, c.precision ? "compute" : "copy");
  if (c.precision) {
    s.bind(4, to_string(*c.precision));
  } else {
    s.bind_null(4);
  }
  s.bind(5, c.value).bind(6, std::string_view(c.method)).bind(7, now_seconds());
  s.run();
  tx.commit();
}

std::vector<DeviceCeiling> SqliteTrialStore::ceilings(GpuIdentity const& gpu) {
  // Newest per (kind, precision); among rows of one second, the last stored.
  Statement s(impl_->db,
              sql({"SELECT c.precision, c.value, c.method, c.measured_at FROM device_ceilings c "
                   "JOIN gpus g ON g.id = c.gpu_id WHERE ", kGpuIs,
                   "AND c.id = (SELECT d.id FROM device_ceilings d WHERE d.gpu_id = c.gpu_id "
                   "AND d.kind = c.kind AND d.precision IS c.precision "
                   "ORDER BY d.measured_at DESC, d.id DESC LIMIT 1) ORDER BY c.kind, c.precision"}));
  bind_gpu(s, gpu);
  std::vector<DeviceCeiling> out;
  while (s.step()) {
    DeviceCeiling c;
    if (!s.column_is_null(0)) c.precision = parse_precision(s.column_text(0));
    c.value = s.column_double(1);
    c.method = s.column_text(2);
    c.measured_at = s.column_int(3);
    out.push_back(std::move(c));
  }
  return out;
}

StoreStats SqliteTrialStore::stats() {
  Database& db = impl_->db;
  StoreStats st;
  st.schema_version = static_cast<int>(db.query_int("PRAGMA user_version"));
  st.gpus = db.query_int("SELECT count(*) FROM gpus");
  st.searches = db.query_int("SELECT count(*) FROM searches");
  st.trials = db.query_int("SELECT count(*) FROM trials");
  st.baselines = db.query_int("SELECT count(*) FROM baselines");
  st.problems = db.query_int(
      "SELECT count(*) FROM (SELECT DISTINCT gpu_id, m, n, k, precision, layout, align "
      "FROM trials)");
  Statement s(db, "SELECT disposition, count(*) FROM trials GROUP BY disposition");
  while (s.step()) st.by_disposition[parse_disposition(s.column_text(0))] = s.column_int(1);
  return st;
}

TuningTable SqliteTrialStore::to_table(TableFilter const& filter, std::string generated_at) {
  Impl& d = *impl_;
  // Newest attempts of verified trials, grouped by (GPU, precision, layout) and, within a
  // problem, fastest first.
  struct Row {
    std::int64_t gpu_id;
    Trial trial;
  };
  std::vector<Row> rows;
  {
    Statement& s = d.export_rows;
    auto use = s.use();
    if (filter.gpu) bind_gpu(s, *filter.gpu);
    if (filter.precision) s.bind(5, to_string(*filter.precision));
    if (filter.layout) s.bind(6, to_string(*filter.layout));
    while (s.step()) {
      Row row{s.column_int(0), read_trial(s, path(), 1)};
      if (filter.own_only && is_vendor(row.trial.config)) continue;
      rows.push_back(std::move(row));
    }
  }

  // The fastest other kernels of a problem, relative to its winner, by their first figures.
  auto alternatives = [&d](std::int64_t gpu_id, Trial const& winner) {
    std::vector<std::pair<double, std::string>> times;
    double winner_ms = 0.0;
    {
      Statement& s = d.first_ok_times;
      auto use = s.use();
      s.bind(1, gpu_id);
      bind_problem(s, winner.problem);
      while (s.step()) {
        std::string id = s.column_text(0);
        double const ms = s.column_double(1);
        if (id == winner.config.id()) {
          winner_ms = ms;
        } else if (!is_vendor(parse_kernel_id(id))) {
          // Alternatives feed the lookup's wave model, which knows our kernels only.
          times.emplace_back(ms, std::move(id));
        }
      }
    }
    std::vector<TableAlternative> out;
    if (winner_ms <= 0.0) return out;  // no first figure of the winner to compare with
    std::sort(times.begin(), times.end());
    for (auto const& [ms, id] : times) {
      if (out.size() == kExportedAlternatives) break;
      double const relative = winner_ms / ms;
      if (relative <= 0.0 || relative > 100.0) continue;
      out.push_back(TableAlternative{parse_kernel_id(id), relative});
    }
    return out;
  };

  TuningTableBuilder builder(std::move(generated_at));
  using Group = std::tuple<std::int64_t, Precision, Layout>;
  std::map<Group, std::vector<ShapeTiming>> groups;
  std::map<Group, GpuIdentity> group_gpu;
  // Rows of a problem come fastest first; the tie rule picks its entry among them.
  for (std::size_t first = 0; first < rows.size();) {
    std::size_t last = first + 1;
    while (last < rows.size() && rows[last].trial.gpu == rows[first].trial.gpu &&
           rows[last].trial.problem == rows[first].trial.problem) {
      ++last;
    }
    std::vector<Trial> trials;
    std::vector<Trial> own;
    for (std::size_t i = first; i < last; ++i) {
      Trial const& t = rows[i].trial;
      // A cuBLASLt algorithm without the cuBLAS version it belongs to cannot be exported.
      if (t.config.family == kCublasLtFamily && !is_version_text(t.provenance.cublas)) continue;
      trials.push_back(t);
      if (is_vendor(t.config)) continue;  // defaults are our kernels, for shapes not tuned
      Group const g{rows[i].gpu_id, t.problem.precision, t.problem.layout};
      groups[g].push_back(ShapeTiming{t.problem, t.config.id(), t.time_ms});
      group_gpu.emplace(g, t.gpu);
      own.push_back(t);
    }
    std::int64_t const gpu_id = rows[first].gpu_id;
    if (trials.empty()) {
      first = last;
      continue;
    }
    Trial const& t = trials[pick_trial(trials)];
    std::optional<TableOwnFigure> own_figure;
    if (is_vendor(t.config) && !own.empty()) {
      Trial const& o = own[pick_trial(own)];
      own_figure = TableOwnFigure{o.config, o.time_ms};
    }
    first = last;
    // One speedup everywhere: the baseline paired with the pick (timed in its rounds, or by
    // its search) where the trial carries one, as `list` and the search's summary read it; the
    // newest stored baseline only for a trial recorded without one.
    std::optional<double> cublas, cublaslt;
    if (t.cublas_ms > 0) cublas = t.cublas_ms;
    if (t.cublaslt_ms > 0) cublaslt = t.cublaslt_ms;
    if (!cublas || !cublaslt) {
      Statement& s = d.newest_ok_baseline;
      auto use = s.use();
      s.bind(1, gpu_id);
      bind_problem(s, t.problem);
      if (s.step()) {
        double const a = s.column_double(0), b = s.column_double(1);
        if (!cublas && a > 0) cublas = a;
        if (!cublaslt && b > 0) cublaslt = b;
      }
    }
    double const tflops =
        t.tflops > 0 ? t.tflops : t.problem.flops() / (t.time_ms * 1e-3) / 1e12;
    std::optional<TableSpread> spread;
    if (t.spread_rounds > 0 && t.spread_lo_ms > 0 && t.spread_lo_ms <= t.time_ms &&
        t.spread_hi_ms >= t.time_ms) {
      spread = TableSpread{t.spread_lo_ms, t.spread_hi_ms, t.spread_rounds};
    }
    TableEntry& entry = builder.add_entry(
        t.gpu, t.problem, t.config, t.time_ms, tflops, cublas, cublaslt, alternatives(gpu_id, t),
        spread, own_figure,
        is_version_text(t.provenance.cublas) ? t.provenance.cublas : std::string());
    if (t.board_sm_clock_mhz > 0 && t.board_temperature_c > 0) {
      entry.board = TableBoard{t.board_sm_clock_mhz, t.board_temperature_c};
    }
  }
  for (auto const& [g, timings] : groups) {
    for (auto const& choice : choose_defaults(timings)) {
      builder.add_default(group_gpu.at(g), std::get<1>(g), std::get<2>(g), choice.align,
                          parse_kernel_id(choice.kernel_id), choice.mean_relative, choice.shapes);
    }
  }
  return builder.build();
}

}  // namespace gemmtune
