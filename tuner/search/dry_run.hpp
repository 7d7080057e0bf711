// Dry run: compile a search space for an arch without a GPU and report what compiles, with
// registers and spills. Nothing is stored.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "search/search_session.hpp"

namespace gemmtune {

/// Per-family figures of a dry run.
struct DryRunFamily {
  std::string family;
  int candidates = 0;      ///< valid after pruning
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

struct DryRunReport {
  std::string arch;
  std::vector<Problem> problems;
  std::vector<DryRunFamily> families;
  double wall_s = 0.0;
};

/// Compiles every valid config (or the first `max_configs` per family and problem when > 0)
/// of `families` for every problem, through `compile`.
DryRunReport dry_run(std::vector<Problem> const& problems, std::vector<Family const*> const& families,
                     std::string const& arch, CompileFn const& compile, long long max_configs,
                     SearchProgress* progress = nullptr);

}  // namespace gemmtune
