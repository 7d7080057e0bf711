// `gemmtune import`: merging a tuning table or another cache into the cache, in one transaction,
// without ever hiding a local measurement. Table entries become trials with an "imported"
// provenance; cache trials keep their own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "src/core/trial.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune {

/// Checks a kernel id, for the precision it is stored under, against the families this build
/// knows: "" to accept, else the reason. db/ cannot see the families, so the caller supplies it;
/// empty = accept every id.
using KernelCheck = std::function<std::string(KernelConfig const&, Precision)>;

/// What one import did. Every offered trial is counted in exactly one of added, duplicates and
/// kept_local.
struct ImportReport {
  std::string source;           ///< the imported file
  std::string kind;             ///< "table" or "cache"
  std::int64_t search_id = 0;   ///< the search row recording this import (0 when nothing added)
  std::int64_t offered = 0;     ///< trials read from the source
  std::int64_t added = 0;       ///< stored as new rows
  std::int64_t duplicates = 0;  ///< the same key with the same outcome was already stored
  std::int64_t kept_local = 0;  ///< the same key with another outcome was stored: local kept
  std::int64_t new_best = 0;    ///< added verified trials now fastest for their (GPU, problem)
  std::int64_t not_best = 0;    ///< added verified trials slower than one already stored
  std::int64_t baselines_added = 0;
  std::int64_t baselines_duplicate = 0;
  std::int64_t ceilings_added = 0;      ///< measured device ceilings (`devices --ceilings`)
  std::int64_t ceilings_duplicate = 0;
};

/// Provenance of a trial imported from a table. A table carries no provenance, so every field
/// says so: gemmtune_version is "imported:<the table's gemmtune_version>", the toolchain fields
/// and template_hash are "unknown". The current template hash would be a claim the table cannot
/// back (it may come from another build), and as no search provenance ever equals this one, an
/// imported figure never makes a search skip a config: searches re-measure under their own
/// provenance, while best() and export, which read every provenance, use the figure.
Provenance imported_table_provenance(std::string const& table_gemmtune_version);

/// The trials a table stands for: one verified trial per entry (time, TFLOP/s and the cuBLAS
/// figures it carries), reason "imported from <source>". Defaults are derived data and are not
/// imported; export recomputes them from all trials.
std::vector<Trial> trials_from_table(TuningTable const& table, std::string const& source);

/// True when the file starts with the SQLite 3 header (so it is a cache, not a table).
bool is_sqlite_file(std::filesystem::path const& path);

/// Merges a validated table into the cache at `cache` (created when missing). Throws Error
/// naming "entries[i].kernel" when `check` refuses a kernel; on any error the cache is unchanged.
ImportReport import_table(std::filesystem::path const& cache, TuningTable const& table,
                          std::string const& source, KernelCheck const& check = {});

/// Merges every trial and baseline of another cache (opened read-only; a foreign, corrupt or
/// newer file is refused by the same checks as --db) into `cache`. Every figure is checked as
/// strictly as a table's (trial_defect, baseline_defect) and every kernel by `check`: the first
/// bad row refuses the whole file, named by its id. Refuses importing a cache into itself. On
/// any error the cache is unchanged.
ImportReport import_cache(std::filesystem::path const& cache, std::filesystem::path const& other,
                          KernelCheck const& check = {});

}  // namespace gemmtune
