// `gemmtune check`: every trial and baseline row of a cache held to the rules a table's entries
// meet (trial_defect, baseline_defect, a kernel id this build can run for its precision), and
// the repair of a cache that holds rows no search could have written: the file is copied aside
// first, then the bad rows are deleted in one transaction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "db/cache_import.hpp"

namespace gemmtune {

/// One row that fails the checks.
struct CacheDefect {
  std::string table;        ///< "trials" or "baselines"
  std::int64_t id = 0;      ///< its rowid
  std::string what;         ///< kernel id and problem, for the reader
  std::string reason;       ///< "<field>: <why>"
};

/// What one check (and repair) found and did.
struct CacheCheckReport {
  std::string cache;
  std::int64_t trials = 0;     ///< rows read
  std::int64_t baselines = 0;
  std::vector<CacheDefect> defects;
  std::string backup;          ///< the copy made before a repair ("" when nothing was removed)
  std::int64_t removed = 0;    ///< rows deleted by the repair
};

/// Reads every row of the cache at `path` (read-only unless `repair`) and names each bad one.
/// With `repair` and at least one defect, first writes a complete copy beside the cache
/// (`<cache>.before-repair-<unix seconds>`, never over an existing file), then deletes the bad
/// rows in one transaction; an error leaves the cache as it was.
CacheCheckReport check_cache(std::filesystem::path const& path, KernelCheck const& check,
                             bool repair);

}  // namespace gemmtune
