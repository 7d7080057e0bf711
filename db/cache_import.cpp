// Import into the cache. A trial's key is (GPU, problem, kernel id, provenance). The merge only
// appends rows, and only for keys the cache did not hold before the import, so a key measured
// here keeps its newest attempt (and best() its answer) whatever the source says; an imported
// trial can only win best() by being a faster measurement of another key. All of it runs in one
// BEGIN IMMEDIATE transaction, after the source has been read and validated in full.
#include "db/cache_import.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "db/schema.hpp"
#include "db/sqlite_handle.hpp"
#include "db/sqlite_trial_store.hpp"
#include "db/trial_row.hpp"
#include "src/core/error.hpp"
#include "src/core/trial_check.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kUnknown = "unknown";

/// A baseline row of a source cache with what it belongs to.
struct SourceBaseline {
  GpuIdentity gpu;
  Problem problem;
  BaselineResult result;
  Provenance provenance;
  std::int64_t created_at = 0;
};

/// A measured device ceiling of a source cache, with the GPU and provenance it was measured on.
struct SourceCeiling {
  GpuIdentity gpu;
  Provenance provenance;
  std::string precision;  ///< empty: the copy bandwidth
  double value = 0.0;
  std::string method;
  std::int64_t measured_at = 0;
};

std::string key_text(std::int64_t gpu_id, Problem const& p, std::string const& kernel_id,
                     std::int64_t provenance_id) {
  return std::to_string(gpu_id) + "|" + p.shape() + "|" + std::string(to_string(p.precision)) +
         "|" + std::string(to_string(p.layout)) + "|" + std::to_string(p.align) + "|" + kernel_id +
         "|" + std::to_string(provenance_id);
}

/// The destination side: one connection, one transaction, the statements the merge needs.
class Merger {
 public:
  Merger(std::filesystem::path const& cache, std::string const& source, std::string kind)
      : db_(open_cache(cache, Database::Mode::kReadWrite)),
        tx_(db_),
        insert_gpu_(db_, "INSERT INTO gpus (name, cc_major, cc_minor, sm_count) "
                         "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING"),
        select_gpu_(db_, "SELECT id FROM gpus WHERE name = ?1 AND cc_major = ?2 "
                         "AND cc_minor = ?3 AND sm_count = ?4"),
        insert_provenance_(db_, "INSERT INTO provenances (driver, cuda_runtime, nvrtc, cublas, "
                                "gemmtune_version, template_hash, compile_options) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING"),
        select_provenance_(db_, "SELECT id FROM provenances WHERE driver = ?1 "
                                "AND cuda_runtime = ?2 AND nvrtc = ?3 AND cublas = ?4 "
                                "AND gemmtune_version = ?5 AND template_hash = ?6 "
                                "AND compile_options = ?7"),
        key_rows_(db_, "SELECT count(*), coalesce(sum(disposition = ?10 AND "
                       "(?10 != 'ok' OR time_ms IS ?11)), 0) FROM trials WHERE gpu_id = ?1 "
                       "AND m = ?2 AND n = ?3 AND k = ?4 AND precision = ?5 AND layout = ?6 "
                       "AND align = ?7 AND kernel_id = ?8 AND provenance_id = ?9"),
        fastest_ok_(db_, "SELECT min(time_ms) FROM trials WHERE gpu_id = ?1 AND m = ?2 "
                         "AND n = ?3 AND k = ?4 AND precision = ?5 AND layout = ?6 "
                         "AND align = ?7 AND disposition = 'ok'"),
        insert_trial_(db_, kInsertTrialSql),
        same_baseline_(db_, "SELECT count(*) FROM baselines WHERE gpu_id = ?1 AND m = ?2 "
                            "AND n = ?3 AND k = ?4 AND precision = ?5 AND layout = ?6 "
                            "AND align = ?7 AND provenance_id = ?8 AND ok = ?9 "
                            "AND cublas_ms IS ?10 AND cublaslt_ms IS ?11 AND created_at = ?12"),
        insert_baseline_(db_, "INSERT INTO baselines (gpu_id, m, n, k, precision, layout, align, "
                              "ok, reason, cublas_ms, cublaslt_ms, cublaslt_algo_index, "
                              "cublaslt_algos_tried, provenance_id, created_at) VALUES (?1, ?2, "
                              "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)") {
    report_.source = source;
    report_.kind = std::move(kind);
  }

  void add_trial(Trial const& t) {
    ++report_.offered;
    Problem const p = t.problem.resolved();
    std::int64_t const gpu_id = ensure_gpu(t.gpu);
    std::int64_t const provenance_id = ensure_provenance(t.provenance);
    std::string const kernel_id = t.config.id();
    std::string const key = key_text(gpu_id, p, kernel_id, provenance_id);

    int attempt = 1;
    if (auto it = next_attempt_.find(key); it != next_attempt_.end()) {
      attempt = it->second;  // a later attempt, in the source, of a key this import added
    } else {
      // Any attempt with the same outcome makes it a duplicate (re-importing a file is a
      // no-op); a key stored with other outcomes only keeps the local ones.
      auto use = key_rows_.use();
      bind_problem(key_rows_.bind(1, gpu_id), p, 2);
      key_rows_.bind(8, std::string_view(kernel_id))
          .bind(9, provenance_id)
          .bind(10, to_string(t.disposition))
          .bind(11, t.time_ms);
      if (key_rows_.step() && key_rows_.column_int(0) > 0) {
        ++(key_rows_.column_int(1) > 0 ? report_.duplicates : report_.kept_local);
        return;
      }
    }

    if (t.disposition == Disposition::kOk) {
      auto use = fastest_ok_.use();
      bind_problem(fastest_ok_.bind(1, gpu_id), p, 2);
      bool const faster = !fastest_ok_.step() || fastest_ok_.column_is_null(0) ||
                          t.time_ms < fastest_ok_.column_double(0);
      ++(faster ? report_.new_best : report_.not_best);
    }

    std::int64_t const search = t.search_id > 0 && source_searches_.count(t.search_id) > 0
                                    ? source_search(t.search_id)
                                    : search_id();
    auto use = insert_trial_.use();
    Statement& s = insert_trial_;
    bind_trial_row(s, t, kernel_id, {search, gpu_id, provenance_id, attempt, now()});
    s.run();
    next_attempt_[key] = attempt + 1;
    ++report_.added;
  }

  void add_baseline(SourceBaseline const& b) {
    Problem const p = b.problem.resolved();
    std::int64_t const gpu_id = ensure_gpu(b.gpu);
    std::int64_t const provenance_id = ensure_provenance(b.provenance);
    {
      auto use = same_baseline_.use();
      bind_problem(same_baseline_.bind(1, gpu_id), p, 2);
      same_baseline_.bind(8, provenance_id)
          .bind(9, b.result.ok ? 1 : 0)
          .bind(10, b.result.cublas_ms)
          .bind(11, b.result.cublaslt_ms)
          .bind(12, b.created_at);
      if (same_baseline_.step() && same_baseline_.column_int(0) > 0) {
        ++report_.baselines_duplicate;
        return;
      }
    }
    auto use = insert_baseline_.use();
    Statement& s = insert_baseline_;
    bind_problem(s.bind(1, gpu_id), p, 2);
    s.bind(8, b.result.ok ? 1 : 0)
        .bind(9, std::string_view(b.result.reason))
        .bind(10, b.result.cublas_ms)
        .bind(11, b.result.cublaslt_ms)
        .bind(12, b.result.cublaslt_algo_index)
        .bind(13, b.result.cublaslt_algos_tried)
        .bind(14, provenance_id)
        .bind(15, b.created_at > 0 ? b.created_at : now());
    s.run();
    ++report_.baselines_added;
  }

  void add_ceiling(SourceCeiling const& c) {
    std::int64_t const gpu_id = ensure_gpu(c.gpu);
    std::int64_t const provenance_id = ensure_provenance(c.provenance);
    Statement same(db_,
                   "SELECT count(*) FROM device_ceilings WHERE gpu_id = ?1 AND provenance_id = ?2 "
                   "AND precision IS ?3 AND value = ?4 AND method = ?5 AND measured_at = ?6");
    Statement insert(db_,
                     "INSERT INTO device_ceilings (gpu_id, provenance_id, kind, precision, value, "
                     "method, measured_at) VALUES (?1, ?2, ?7, ?3, ?4, ?5, ?6)");
    for (Statement* s : {&same, &insert}) {
      s->bind(1, gpu_id).bind(2, provenance_id);
      if (c.precision.empty()) {
        s->bind_null(3);
      } else {
        s->bind(3, std::string_view(c.precision));
      }
      s->bind(4, c.value).bind(5, std::string_view(c.method)).bind(6, c.measured_at);
    }
    if (same.step() && same.column_int(0) > 0) {
      ++report_.ceilings_duplicate;
      return;
    }
    insert.bind(7, c.precision.empty() ? "copy" : "compute");
    insert.run();
    ++report_.ceilings_added;
  }

  /// The searches of a source cache: a trial of one keeps it (a copy of its record), so the
  /// merged cache still tells which trials one search evaluated, in what order.
  void keep_searches(std::vector<SearchRecord> const& searches) {
    for (SearchRecord const& r : searches) source_searches_[r.id] = r;
  }

  /// Records the counts on the import's search row and commits everything at once.
  ImportReport commit() {
    if (report_.added > 0) search_id();  // the import itself is recorded once it added anything
    if (report_.search_id != 0) {
      nlohmann::json const counts{{"offered", report_.offered},
                                  {"added", report_.added},
                                  {"duplicates", report_.duplicates},
                                  {"kept_local", report_.kept_local},
                                  {"baselines_added", report_.baselines_added},
                                  {"ceilings_added", report_.ceilings_added}};
      Statement s(db_, "UPDATE searches SET finished_at = ?2, phase_times_json = ?3 WHERE id = ?1");
      s.bind(1, report_.search_id).bind(2, now()).bind(3, counts.dump());
      s.run();
    }
    tx_.commit();
    return report_;
  }

 private:
  static std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

  static Statement& bind_problem(Statement& s, Problem const& p, int first) {
    return s.bind(first, p.m)
        .bind(first + 1, p.n)
        .bind(first + 2, p.k)
        .bind(first + 3, to_string(p.precision))
        .bind(first + 4, to_string(p.layout))
        .bind(first + 5, p.align);
  }

  /// The search row every added trial points to, created with the first one, so an import
  /// that adds nothing leaves no trace.
  std::int64_t search_id() {
    if (report_.search_id == 0) {
      Statement s(db_, "INSERT INTO searches (arguments, started_at) VALUES (?1, ?2)");
      s.bind(1, "import " + report_.kind + " " + report_.source).bind(2, now());
      s.run();
      report_.search_id = db_.last_insert_rowid();
    }
    return report_.search_id;
  }

  /// The destination's copy of a source search, made with its first trial.
  std::int64_t source_search(std::int64_t source_id) {
    if (auto it = copied_searches_.find(source_id); it != copied_searches_.end()) return it->second;
    SearchRecord const& r = source_searches_.at(source_id);
    Statement s(db_, "INSERT INTO searches (arguments, started_at, finished_at, phase_times_json) "
                     "VALUES (?1, ?2, ?3, ?4)");
    s.bind(1, std::string_view(r.arguments)).bind(2, r.started_at);
    if (r.finished_at > 0) s.bind(3, r.finished_at);
    if (!r.phase_times_json.empty()) s.bind(4, std::string_view(r.phase_times_json));
    s.run();
    return copied_searches_[source_id] = db_.last_insert_rowid();
  }

  std::int64_t ensure_gpu(GpuIdentity const& g) {
    std::string const key = g.describe() + "|" + g.name;
    if (auto it = gpu_ids_.find(key); it != gpu_ids_.end()) return it->second;
    for (Statement* s : {&insert_gpu_, &select_gpu_}) {
      auto use = s->use();
      s->bind(1, std::string_view(g.name)).bind(2, g.cc_major).bind(3, g.cc_minor).bind(4, g.sm_count);
      if (s == &insert_gpu_) {
        s->run();
      } else if (s->step()) {
        return gpu_ids_[key] = s->column_int(0);
      }
    }
    db_.raise(0, "cannot find the GPU row just stored in");
  }

  std::int64_t ensure_provenance(Provenance const& v) {
    std::string const key = nlohmann::json::array({v.driver, v.cuda_runtime, v.nvrtc, v.cublas,
                                                   v.gemmtune_version, v.template_hash,
                                                   v.compile_options})
                                .dump();
    if (auto it = provenance_ids_.find(key); it != provenance_ids_.end()) return it->second;
    for (Statement* s : {&insert_provenance_, &select_provenance_}) {
      auto use = s->use();
      s->bind(1, std::string_view(v.driver))
          .bind(2, std::string_view(v.cuda_runtime))
          .bind(3, std::string_view(v.nvrtc))
          .bind(4, std::string_view(v.cublas))
          .bind(5, std::string_view(v.gemmtune_version))
          .bind(6, std::string_view(v.template_hash))
          .bind(7, std::string_view(v.compile_options));
      if (s == &insert_provenance_) {
        s->run();
      } else if (s->step()) {
        return provenance_ids_[key] = s->column_int(0);
      }
    }
    db_.raise(0, "cannot find the provenance row just stored in");
  }

  Database db_;
  Transaction tx_;
  Statement insert_gpu_, select_gpu_, insert_provenance_, select_provenance_;
  Statement key_rows_, fastest_ok_, insert_trial_, same_baseline_, insert_baseline_;
  std::map<std::string, std::int64_t> gpu_ids_, provenance_ids_;
  std::map<std::int64_t, SearchRecord> source_searches_;
  std::map<std::int64_t, std::int64_t> copied_searches_;  ///< source search id -> ours
  std::map<std::string, int> next_attempt_;
  ImportReport report_;
};

/// Every measured device ceiling of a source cache, oldest first.
std::vector<SourceCeiling> read_ceilings(std::filesystem::path const& path) {
  Database db = open_cache(path, Database::Mode::kReadOnly);
  Statement s(db,
              "SELECT g.name, g.cc_major, g.cc_minor, g.sm_count, p.driver, p.cuda_runtime, "
              "p.nvrtc, p.cublas, p.gemmtune_version, p.template_hash, p.compile_options, "
              "c.precision, c.value, c.method, c.measured_at FROM device_ceilings c "
              "JOIN gpus g ON g.id = c.gpu_id JOIN provenances p ON p.id = c.provenance_id "
              "ORDER BY c.id");
  std::vector<SourceCeiling> out;
  while (s.step()) {
    SourceCeiling c;
    int i = 0;
    c.gpu = read_gpu(s, i);
    i += 4;
    c.provenance = read_provenance(s, i);
    i += 7;
    c.precision = s.column_is_null(i) ? std::string() : s.column_text(i);
    ++i;
    c.value = s.column_double(i++);
    c.method = s.column_text(i++);
    c.measured_at = s.column_int(i++);
    out.push_back(std::move(c));
  }
  return out;
}

/// Every baseline of a source cache, oldest first.
std::vector<SourceBaseline> read_baselines(std::filesystem::path const& path) {
  Database db = open_cache(path, Database::Mode::kReadOnly);
  Statement s(db,
              "SELECT g.name, g.cc_major, g.cc_minor, g.sm_count, b.m, b.n, b.k, b.precision, "
              "b.layout, b.align, b.ok, b.reason, b.cublas_ms, b.cublaslt_ms, "
              "b.cublaslt_algo_index, b.cublaslt_algos_tried, p.driver, p.cuda_runtime, p.nvrtc, "
              "p.cublas, p.gemmtune_version, p.template_hash, p.compile_options, b.created_at "
              "FROM baselines b JOIN gpus g ON g.id = b.gpu_id "
              "JOIN provenances p ON p.id = b.provenance_id ORDER BY b.id");
  std::vector<SourceBaseline> out;
  while (s.step()) {
    SourceBaseline b;
    int c = 0;
    b.gpu = read_gpu(s, c);
    c += 4;
    b.problem = read_problem(s, c);
    c += 6;
    b.result.ok = s.column_int(c++) != 0;
    b.result.reason = s.column_text(c++);
    b.result.cublas_ms = s.column_double(c++);
    b.result.cublaslt_ms = s.column_double(c++);
    b.result.cublaslt_algo_index = static_cast<int>(s.column_int(c++));
    b.result.cublaslt_algos_tried = static_cast<int>(s.column_int(c++));
    b.provenance = read_provenance(s, c);
    c += 7;
    b.created_at = s.column_int(c++);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

Provenance imported_table_provenance(std::string const& table_gemmtune_version) {
  Provenance p;
  p.driver = kUnknown;
  p.cuda_runtime = kUnknown;
  p.nvrtc = kUnknown;
  p.cublas = kUnknown;
  p.gemmtune_version = "imported:" + table_gemmtune_version;
  p.template_hash = kUnknown;
  p.compile_options = kUnknown;
  return p;
}

std::vector<Trial> trials_from_table(TuningTable const& table, std::string const& source) {
  Provenance const provenance = imported_table_provenance(table.gemmtune_version);
  std::vector<Trial> out;
  out.reserve(table.entries.size());
  for (TableEntry const& e : table.entries) {
    TableGpu const* g = table.find_gpu(e.gpu);
    if (!g) throw Error(source + ": an entry refers to GPU id " + std::to_string(e.gpu) + ", which is not in gpus");
    Trial t;
    t.gpu = g->gpu;
    t.problem = e.problem.resolved();
    t.config = e.kernel;
    t.disposition = Disposition::kOk;
    t.reason = "imported from " + source + " (generated " + table.generated_at + ")";
    t.time_ms = e.time_ms;
    t.min_ms = e.time_ms;
    t.tflops = e.tflops;
    t.cublas_ms = e.cublas_ms.value_or(0.0);
    t.cublaslt_ms = e.cublaslt_ms.value_or(0.0);
    if (e.spread) {
      t.spread_lo_ms = e.spread->lo_ms;
      t.spread_hi_ms = e.spread->hi_ms;
      t.spread_rounds = e.spread->rounds;
    }
    if (e.board) {
      t.board_sm_clock_mhz = e.board->sm_clock_mhz;
      t.board_temperature_c = e.board->temperature_c;
    }
    t.provenance = provenance;
    if (e.vendor() && !e.cublas_version.empty()) {
      // A vendor pick belongs to the cuBLAS it was timed with; the export gives it back.
      t.provenance.cublas = e.cublas_version;
    }
    if (e.own) {
      // Our best kernel beside a vendor pick, as a figure timed on its own: it cannot take the
      // pick from the re-timed vendor figure on the way through.
      Trial own = t;
      own.provenance = provenance;
      own.config = e.own->kernel;
      own.time_ms = own.min_ms = e.own->time_ms;
      own.spread_lo_ms = own.spread_hi_ms = 0.0;
      own.spread_rounds = 0;
      own.tflops = t.problem.flops() / (own.time_ms * 1e-3) / 1e12;
      own.reason = t.reason + ": our best kernel beside the vendor pick " + e.kernel.id();
      out.push_back(std::move(own));
    }
    // Alternatives come in as the figures they stand for, the winner's time over their relative
    // speed, so that exporting the cache again gives them back. One never enters as faster than
    // its winner: that would change the entry's winner on the way through.
    for (TableAlternative const& a : e.alternatives) {
      Trial alt = t;
      alt.config = a.kernel;
      alt.time_ms = e.time_ms / std::min(a.relative, 1.0);
      alt.min_ms = alt.time_ms;
      // Timed on its own as far as the table says: it cannot win a tie against the winner.
      alt.spread_lo_ms = alt.spread_hi_ms = 0.0;
      alt.spread_rounds = 0;
      alt.tflops = t.problem.flops() / (alt.time_ms * 1e-3) / 1e12;
      alt.reason = t.reason + ": an alternative of " + e.kernel.id() + " at " +
                   std::to_string(a.relative) + " of its speed";
      out.push_back(std::move(alt));
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool is_sqlite_file(std::filesystem::path const& path) {
  constexpr std::string_view kHeader{"SQLite format 3\0", 16};
  std::ifstream in(path, std::ios::binary);
  char buf[16] = {};
  in.read(buf, sizeof buf);
  return in.gcount() == 16 && std::string_view(buf, 16) == kHeader;
}

ImportReport import_table(std::filesystem::path const& cache, TuningTable const& table,
                          std::string const& source, KernelCheck const& check) {
  if (check) {
    for (std::size_t i = 0; i < table.entries.size(); ++i) {
      if (std::string why = check(table.entries[i].kernel, table.entries[i].problem.precision); !why.empty()) {
        throw Error(source + ": entries[" + std::to_string(i) + "].kernel: " + why);
      }
      if (auto const& own = table.entries[i].own) {
        if (std::string why = check(own->kernel, table.entries[i].problem.precision); !why.empty()) {
          throw Error(source + ": entries[" + std::to_string(i) + "].own.kernel: " + why);
        }
      }
      auto const& alts = table.entries[i].alternatives;
      for (std::size_t j = 0; j < alts.size(); ++j) {
        if (std::string why = check(alts[j].kernel, table.entries[i].problem.precision); !why.empty()) {
          throw Error(source + ": entries[" + std::to_string(i) + "].alternatives[" +
                      std::to_string(j) + "].kernel: " + why);
        }
      }
    }
  }
  std::vector<Trial> const trials = trials_from_table(table, source);
  Merger merger(cache, source, "table");
  for (Trial const& t : trials) merger.add_trial(t);
  return merger.commit();
}

ImportReport import_cache(std::filesystem::path const& cache, std::filesystem::path const& other,
                          KernelCheck const& check) {
  std::error_code ec;
  if (std::filesystem::exists(cache, ec) && std::filesystem::equivalent(cache, other, ec)) {
    throw Error("cannot import '" + other.string() + "' into itself: it is the cache in use (" +
                cache.string() + ")");
  }
  std::vector<Trial> trials;
  std::vector<SearchRecord> searches;
  {
    SqliteTrialStore source(other, SqliteTrialStore::Access::kReadOnly);
    trials = source.trials(TrialFilter{});  // newest first
    searches = source.searches();
  }
  std::vector<SourceBaseline> const baselines = read_baselines(other);
  std::vector<SourceCeiling> const ceilings = read_ceilings(other);
  // Oldest first, so the row named is the first bad one in the file.
  for (auto it = trials.rbegin(); it != trials.rend(); ++it) {
    std::string why = trial_defect(*it);
    if (why.empty() && check) why = check(it->config, it->problem.precision);
    if (!why.empty()) {
      throw Error("cache '" + other.string() + "': trial " + std::to_string(it->id) + " (" +
                  it->config.id() + ", " + it->problem.describe() + "): " + why +
                  "; nothing was imported (gemmtune --db '" + other.string() +
                  "' check --repair removes such rows)");
    }
  }
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    SourceBaseline const& b = baselines[i];
    if (std::string why = baseline_defect(b.problem, b.result.cublas_ms, b.result.cublaslt_ms);
        !why.empty()) {
      throw Error("cache '" + other.string() + "': baseline " + std::to_string(i + 1) + " (" +
                  b.problem.describe() + "): " + why + "; nothing was imported");
    }
  }
  Merger merger(cache, other.string(), "cache");
  merger.keep_searches(searches);
  for (auto it = trials.rbegin(); it != trials.rend(); ++it) merger.add_trial(*it);
  for (SourceBaseline const& b : baselines) merger.add_baseline(b);
  for (SourceCeiling const& c : ceilings) merger.add_ceiling(c);
  return merger.commit();
}

}  // namespace gemmtune
