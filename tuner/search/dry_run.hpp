// Dry run: compile a search space for an arch without a GPU and report what compiles, with
// registers and spills. Nothing is stored.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/search/search_session.hpp"

namespace gemmtune {

/// Per-family figures of a dry run.
struct DryRunFamily {
  std::string family;
  int valid = 0;           ///< valid after pruning
  int candidates = 0;      ///< of those, the ones compiled (the sample, or all)
  int pruned = 0;
  int compiled = 0;        ///< ok
  int failed = 0;          ///< compile errors
  int spilling = 0;        ///< compiled, but with spills (the search would skip them)
  int min_registers = 0;
  int max_registers = 0;
  double compile_s = 0.0;
  std::string first_error; ///< head of the first failure's log
  std::map<std::string, int> prune_reasons;
};

/// One config of a dry run with what happened to it (recorded only when asked for).
struct DryRunConfig {
  std::string problem;  ///< Problem::describe()
  std::string kernel;   ///< canonical id
  std::string outcome;  ///< "ok", "spills", "compile_error", "not_compiled" (past the cap) or "rejected"
  int registers = 0;    ///< most registers of the config's kernels (compiled only)
  int spill_bytes = 0;  ///< spill loads + stores (compiled only)
  std::string reason;   ///< the rejecting constraint, or the head of the compile log
};

struct DryRunReport {
  std::string arch;
  std::vector<Problem> problems;
  std::vector<DryRunFamily> families;
  std::vector<DryRunConfig> configs;  ///< every config, when dry_run() was asked to record them
  double wall_s = 0.0;
  /// Stopped by Ctrl-C or SIGTERM: the counts cover only what was compiled before.
  bool interrupted = false;
};

/// Compiles every valid config (or an evenly spread sample of `max_configs` per family and
/// problem when > 0, see even_sample())
/// of `families` for every problem, through `compile`. With `record_configs`, the report also
/// lists every config: each compiled one with its registers and spills, each rejected one with
/// the constraint that rejects it for this arch.
DryRunReport dry_run(std::vector<Problem> const& problems, std::vector<Family const*> const& families,
                     std::string const& arch, CompileFn const& compile, long long max_configs,
                     SearchProgress* progress = nullptr, bool record_configs = false);

}  // namespace gemmtune
