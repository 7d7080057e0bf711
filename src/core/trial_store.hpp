// TrialStore: the tuner's only view of the cache. db/ implements it with SQLite; tests use an
// in-memory one. Keeps the tuner free of SQLite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/eval_job.hpp"
#include "src/core/trial.hpp"

namespace gemmtune {

/// A search as recorded in the cache: its arguments and its per-phase time.
struct SearchRecord {
  std::int64_t id = 0;
  std::string arguments;      ///< the command line or a JSON description
  std::int64_t started_at = 0;
  std::int64_t finished_at = 0;  ///< 0 while running or when interrupted
  std::string phase_times_json;  ///< {"compile_s":..,"gpu_s":..,...}
};

/// Storage for trials and cuBLAS baselines. Every write is committed before it returns, so a
/// search killed at any moment loses at most the trial in flight.
class TrialStore {
 public:
  virtual ~TrialStore() = default;

  /// Starts a search and returns its id.
  virtual std::int64_t begin_search(std::string const& arguments) = 0;
  /// Marks a search finished, with its per-phase times.
  virtual void finish_search(std::int64_t search_id, std::string const& phase_times_json) = 0;

  /// Stores one trial (any disposition) and returns its id.
  virtual std::int64_t record_trial(Trial const& trial) = 0;
  /// The stored trial for this (GPU, problem, config) under this provenance, if any: a resumed
  /// search skips configs that already have one, whatever their disposition.
  virtual std::optional<Trial> find_trial(GpuIdentity const& gpu, Problem const& problem,
                                          KernelConfig const& config,
                                          Provenance const& provenance) = 0;
  /// All trials of one problem on one GPU (every provenance), newest first.
  virtual std::vector<Trial> trials_for(GpuIdentity const& gpu, Problem const& problem) = 0;
  /// Every problem of one GPU and precision with at least one verified trial (resolved; any
  /// layout and alignment): the shapes a warm start can learn from.
  virtual std::vector<Problem> tuned_problems(GpuIdentity const& gpu, Precision precision) = 0;

  /// Marks `problem` finished by search `search_id` (its search loop and final re-time ran to the
  /// end) under `settings`: everything besides the problem that decides its search (families,
  /// strategy, budget, seed, timing, provenance). A later search with the same settings skips it.
  virtual void record_finished_problem(std::int64_t search_id, GpuIdentity const& gpu,
                                       Problem const& problem, std::string const& settings) = 0;
  /// The newest search that finished `problem` under exactly `settings`, if any.
  virtual std::optional<std::int64_t> finished_by(GpuIdentity const& gpu, Problem const& problem,
                                                  std::string const& settings) = 0;

  /// Stores a cuBLAS / cuBLASLt baseline for a problem on a GPU.
  virtual void record_baseline(GpuIdentity const& gpu, Problem const& problem,
                               BaselineResult const& baseline, Provenance const& provenance) = 0;
  /// The newest baseline for a problem on a GPU, if any.
  virtual std::optional<BaselineResult> find_baseline(GpuIdentity const& gpu,
                                                      Problem const& problem) = 0;
};

}  // namespace gemmtune
