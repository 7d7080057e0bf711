// SqliteTrialStore: the tuning cache. Implements TrialStore for the tuner and adds the queries
// the CLI needs (best, listings, filters, statistics) and the export to a tuning table.
// "Best" is always a query over the stored trials, never a second table.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/device_report.hpp"
#include "src/core/trial_store.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune {

/// Which trials to list. Unset fields match everything.
struct TrialFilter {
  std::optional<GpuIdentity> gpu;
  /// m, n, k, precision and layout must match; align too unless it is 0 (then any alignment).
  std::optional<Problem> problem;
  std::optional<std::string> kernel_id;
  std::optional<Disposition> disposition;
  std::int64_t limit = 0;  ///< 0 = no limit
};

/// One tuned (GPU, problem) in the cache.
struct ProblemSummary {
  GpuIdentity gpu;
  Problem problem;
  std::map<Disposition, std::int64_t> counts;  ///< trials (all attempts) by disposition
  std::int64_t total = 0;
  std::optional<Trial> best;                   ///< fastest verified trial, if any
};

/// What the cache holds.
struct StoreStats {
  int schema_version = 0;
  std::int64_t gpus = 0;
  std::int64_t searches = 0;
  std::int64_t problems = 0;   ///< distinct (GPU, problem) with at least one trial
  std::int64_t trials = 0;
  std::int64_t baselines = 0;
  std::map<Disposition, std::int64_t> by_disposition;
};

/// Which part of the cache to export. Unset fields match everything.
struct TableFilter {
  std::optional<GpuIdentity> gpu;
  std::optional<Precision> precision;
  std::optional<Layout> layout;
  /// Our own kernels only: vendor trials (cublas, cublaslt) are left out of the picks, for
  /// studying our kernels; the default export keeps them so the table never loses to cuBLAS.
  bool own_only = false;
};

/// The SQLite tuning cache. One instance per thread (a connection is not shared); several
/// processes may use one file at once (WAL, busy_timeout, BEGIN IMMEDIATE for writes).
///
/// Re-runs: a trial whose (GPU, problem, kernel id, provenance) is already stored is kept as
/// a new row with the next attempt number; find_trial() and best() use the newest attempt of
/// each key. Every write is committed before the call returns.
class SqliteTrialStore final : public TrialStore {
 public:
  enum class Access {
    kReadWrite,  ///< creates, initialises or migrates the file as needed
    kReadOnly,   ///< queries only; writes throw Error; the file must already be a current cache
  };

  /// Opens the cache (see open_cache() in schema.hpp for what is refused and why).
  explicit SqliteTrialStore(std::filesystem::path const& path,
                            Access access = Access::kReadWrite);
  ~SqliteTrialStore() override;
  SqliteTrialStore(SqliteTrialStore const&) = delete;
  SqliteTrialStore& operator=(SqliteTrialStore const&) = delete;

  // TrialStore.
  std::int64_t begin_search(std::string const& arguments) override;
  void finish_search(std::int64_t search_id, std::string const& phase_times_json) override;
  std::int64_t record_trial(Trial const& trial) override;
  std::optional<Trial> find_trial(GpuIdentity const& gpu, Problem const& problem,
                                  KernelConfig const& config,
                                  Provenance const& provenance) override;
  std::vector<Trial> trials_for(GpuIdentity const& gpu, Problem const& problem) override;
  std::vector<Problem> tuned_problems(GpuIdentity const& gpu, Precision precision) override;
  void record_finished_problem(std::int64_t search_id, GpuIdentity const& gpu,
                               Problem const& problem, std::string const& settings) override;
  std::optional<std::int64_t> finished_by(GpuIdentity const& gpu, Problem const& problem,
                                          std::string const& settings) override;
  void record_baseline(GpuIdentity const& gpu, Problem const& problem,
                       BaselineResult const& baseline, Provenance const& provenance) override;
  std::optional<BaselineResult> find_baseline(GpuIdentity const& gpu,
                                              Problem const& problem) override;

  /// The fastest verified trial of a problem on a GPU (newest attempt of each config and
  /// provenance; any provenance), or nullopt. Align 0 is resolved from packed storage.
  std::optional<Trial> best(GpuIdentity const& gpu, Problem const& problem);
  /// The same pick among our own kernels only (vendor trials left out).
  std::optional<Trial> best_own(GpuIdentity const& gpu, Problem const& problem);
  /// Every GPU with stored results, in order of first appearance.
  std::vector<GpuIdentity> list_gpus();
  /// Every (GPU, problem) with trials, optionally of one GPU; ordered by GPU, precision,
  /// layout, shape.
  std::vector<ProblemSummary> list_problems(std::optional<GpuIdentity> const& gpu = std::nullopt);
  /// Trials matching a filter, newest first.
  std::vector<Trial> trials(TrialFilter const& filter);
  /// Every trial of one kernel id (all GPUs and problems), newest first.
  std::vector<Trial> trials_for_kernel(std::string const& kernel_id);
  /// Searches, newest first.
  std::vector<SearchRecord> searches();
  /// Stores a measured ceiling of `gpu` (value > 0), stamped now.
  void record_ceiling(GpuIdentity const& gpu, Provenance const& provenance,
                      DeviceCeiling const& ceiling);
  /// The newest ceiling of each kind (copy, and compute per precision) measured on `gpu`.
  std::vector<DeviceCeiling> ceilings(GpuIdentity const& gpu);
  /// Counts of what is stored.
  StoreStats stats();

  /// The tuning table for the selected part of the cache: one entry per (GPU, problem) with a
  /// verified trial (its best), the newest successful cuBLAS baseline (else the one timed with
  /// the trial), and per (GPU, precision, layout) defaults from all verified trials
  /// (choose_defaults()). `generated_at` defaults to now.
  TuningTable to_table(TableFilter const& filter = {}, std::string generated_at = {});

  /// The file this store uses.
  std::filesystem::path const& path() const;
  /// True when writes are refused (kReadOnly, or the file is not writable).
  bool read_only() const;

 private:
  /// best() over every trial, or over our own kernels only.
  std::optional<Trial> best_of(GpuIdentity const& gpu, Problem const& problem, bool own_only);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gemmtune
