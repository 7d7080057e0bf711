// State shared by the subcommands: global options and the services they open lazily (the
// cache, the compile pool, the GPU worker). The parent process never creates a CUDA context.
#pragma once

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "src/core/problem.hpp"
#include "tuner/search/search_session.hpp"

namespace gemmtune {

class SqliteTrialStore;
class Compiler;
class CompilePool;
class WorkerEvaluator;

/// Options every subcommand accepts.
struct GlobalOptions {
  std::string db_path;        ///< --db; empty = $GEMMTUNE_DB or the per-user default
  std::string cache_dir;      ///< --cache-dir for cubins; empty = next to the per-user default
  bool json = false;          ///< --json: results as JSON on stdout
  bool csv = false;           ///< --csv: the result table as CSV on stdout, other lines on stderr
  bool quiet = false;         ///< -q: no progress on stderr
  int device = 0;             ///< --device: GPU index for the worker
  int compile_threads = 0;    ///< --jobs: compile threads (0 = all cores)
};

/// The result table's format under `o`.
inline TableFormat table_format(GlobalOptions const& o) {
  return o.csv ? TableFormat::kCsv : TableFormat::kText;
}
/// Where a command's lines around its result table go: stdout, or stderr under --csv, so
/// stdout stays one CSV document.
inline std::ostream& prose(GlobalOptions const& o) { return o.csv ? std::cerr : std::cout; }

class AppContext {
 public:
  AppContext();
  ~AppContext();

  GlobalOptions options;

  /// The tuning cache, opened on first use (throws Error with a clear line if it cannot be).
  SqliteTrialStore& store();
  /// The cache opened read-only, for commands that only read (throws when it does not exist).
  SqliteTrialStore& store_for_reading();
  /// The resolved cache path.
  std::string db_path() const;
  /// Where compiled cubins are cached.
  std::string cubin_dir() const;
  /// The compile pool, created on first use.
  CompilePool& pool();
  /// Submits to the pool, as the search wants it.
  CompileFn compile_fn();
  /// The GPU worker for options.device, started on first use.
  WorkerEvaluator& gpu();
  /// The device report; throws Error("no GPU ...") with the reason when there is none.
  DeviceReport const& require_gpu();
  /// argv that re-executes this binary as a worker.
  std::vector<std::string> worker_argv() const;

 private:
  std::unique_ptr<SqliteTrialStore> store_;
  std::unique_ptr<Compiler> compiler_;
  std::unique_ptr<CompilePool> pool_;
  std::unique_ptr<WorkerEvaluator> gpu_;
  std::optional<DeviceReport> device_;
};

/// Shapes from --shape values and a --shapes-file (lines "M N K" or "MxNxK", then optionally
/// the line's precision and layout; '#' comments); a dimension may be a sweep A:B:pow2 or A:B:S.
std::vector<Problem> collect_problems(std::vector<std::string> const& shapes,
                                      std::string const& shapes_file, Precision precision,
                                      Layout layout, int align);

/// Checks an --align value (0, 1, 2, 4, 8 or 16); throws UsageError otherwise.
int check_align(int align, Precision precision);

}  // namespace gemmtune
