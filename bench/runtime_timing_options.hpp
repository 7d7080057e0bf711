// Command line of the runtime-timing benchmark: which table, which entries, how to time.
// Plain parsing with no CUDA, so it is unit-tested on machines without a GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/core/eval_job.hpp"
#include "src/core/precision.hpp"
#include "src/core/problem.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune::bench {

/// What the benchmark was asked to do.
struct RuntimeTimingOptions {
  std::string table;                    ///< tuning table (JSON, as `gemmtune export` writes)
  std::vector<Precision> precisions;    ///< empty = every precision
  std::vector<Layout> layouts;          ///< empty = every layout
  std::vector<std::string> shapes;      ///< "MxNxK"; empty = every shape
  /// Interleaved (tuner, runtime) timing rounds. Nine, not five: a 2048³ GEMM's rounds move
  /// between two levels 4–7 % apart within one process, and five rounds' median landed on
  /// different levels for two runs of the same cuBLAS call.
  int rounds = 9;
  int overhead_calls = 64;              ///< gemm() calls queued per host-overhead sample
  /// The entry's own launches run this long before its rounds, untimed. A tensor-core GEMM
  /// runs at the board's power cap, where the clock depends on what ran in the last second:
  /// the first round after an idle spell ran up to 14 % fast and one near 0.5 s in up to 20 %
  /// slow (the controller overshooting), while the search's re-time, which follows the
  /// shape's own candidates, sees neither. 0 = none.
  double settle_ms = 1000.0;
  /// Overrides of the re-time's protocol (per round and path), under which the table's
  /// figures were measured; unset = as the re-time times.
  std::optional<double> warmup_ms, target_ms;
  std::optional<int> repeats;
  std::string cubin_cache;              ///< "" = the runtime's default cubin cache
  std::string json_out;                 ///< "" = no JSON file
  std::string markdown_out;             ///< "" = no Markdown file
  bool dry_run = false;                 ///< compile and plan every entry; no device needed
  bool help = false;
};

/// `base` (the re-time's protocol) with the options' overrides applied.
TimingSpec timing_spec(RuntimeTimingOptions const& options, TimingSpec base);

/// Parses argv[1…]; throws std::invalid_argument with a one-line reason on a bad argument.
RuntimeTimingOptions parse_runtime_timing_args(std::vector<std::string> const& args);

/// The usage text.
std::string runtime_timing_usage();

/// Whether an entry passes the precision, layout and shape filters.
bool selected(RuntimeTimingOptions const& options, TableEntry const& entry);

}  // namespace gemmtune::bench
