// Results of the runtime-timing benchmark: one row per table entry, the summary over rows, and
// their JSON and Markdown forms. No CUDA here, so the writers are unit-tested without a GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/power_figures.hpp"

namespace gemmtune::bench {

/// One table entry timed both ways.
struct TimingRow {
  std::string shape;       ///< "MxNxK"
  std::string precision;
  std::string layout;
  int align = 0;           ///< of the entry
  std::string kernel;      ///< the entry's kernel id
  double table_ms = 0.0;   ///< what the table recorded when it was tuned
  /// The default cuBLAS call's figure the table recorded beside it (same rounds), or 0.
  double table_cublas_ms = 0.0;
  /// The board the table's figure was measured on (its rounds' median SM clock and
  /// temperature), or 0 where the table does not say.
  int table_board_mhz = 0;
  int table_board_c = 0;
  std::string path;        ///< the runtime's GemmPath for the call ("tuned" is the point)
  std::string rule;        ///< the table rule the runtime matched
  std::vector<double> tuner_ms;    ///< per round: median of the tuner protocol, ms per call
  std::vector<double> runtime_ms;  ///< per round: the same protocol around Runtime::gemm
  /// Per round: the default cuBLAS call, its repeats in turn with both paths', so the board
  /// state of this run can be told from the table's (the table recorded cuBLAS beside it).
  std::vector<double> cublas_ms;
  /// Per round, beside tuner_ms and runtime_ms: the board's sensors while the round ran (both
  /// paths' repeats take turns within a round; empty where the sensors could not be read), so
  /// figures can be compared at board state.
  std::vector<PowerFigures> round_board;
  double host_us_runtime = 0.0;    ///< wall time per gemm() call while queueing
  double host_us_direct = 0.0;     ///< wall time per direct launch of the plan, same way
  /// Wall time per cuBLAS call of the same problem (its baseline contract), same way: what
  /// submitting one GEMM costs on this host without gemmtune.
  double host_us_cublas = 0.0;
  int overhead_calls = 0;
  std::optional<bool> outputs_match;  ///< C of both paths bitwise equal on one call
  std::string note;        ///< why the row is not a clean comparison, or ""

  /// Median over rounds (0 without rounds).
  double tuner_median() const;
  double runtime_median() const;
  double cublas_median() const;
  /// runtime median / table_ms; nullopt when either is missing.
  std::optional<double> table_ratio() const;
  /// (runtime / cuBLAS, both of this run) / (table_ms / table_cublas_ms): the runtime against
  /// the table with each side's board state taken out by the cuBLAS call timed beside it;
  /// nullopt when a figure is missing.
  std::optional<double> table_ratio_vs_cublas() const;
  /// Median SM clock over the rounds that read the sensors (0 without any).
  double board_clock_median() const;
  /// runtime median × (this run's clock / the table's clock) / table_ms: the runtime against
  /// the table with the figure scaled to the table's SM clock, as a GEMM bound by the SMs
  /// scales; nullopt when a figure or either clock is missing.
  std::optional<double> table_ratio_at_clock() const;
  /// runtime / tuner of the medians; nullopt when either is missing.
  std::optional<double> ratio() const;
  /// Timed on the tuned path with no note: the rows the summary counts.
  bool clean() const;
};

/// How one ratio against the table came out over the rows that have it.
struct TableAgreement {
  int rows = 0;
  int within_3pct = 0;      ///< |ratio − 1| ≤ 3 %
  double worst_dev = 0.0;   ///< largest |ratio − 1|
  std::string worst_row;    ///< "shape precision layout" of that row
  /// Counts one row's ratio (nothing when absent).
  void add(std::optional<double> ratio, std::string const& row);
};

/// Over the clean rows: median and worst |ratio − 1|.
struct TimingSummary {
  int rows = 0;
  int clean_rows = 0;
  double median_abs_dev = 0.0;
  double worst_abs_dev = 0.0;
  std::string worst_row;   ///< "shape precision layout" of the worst row
  double median_host_us = 0.0;  ///< of host_us_runtime over clean rows
  double worst_host_us = 0.0;
  /// Of host_us_runtime − host_us_direct: what the library adds to queueing the same launches.
  double median_added_us = 0.0;
  double worst_added_us = 0.0;
  double median_cublas_us = 0.0;  ///< of host_us_cublas over clean rows
  /// Runtime against the table's figure, over the clean rows with a table figure.
  TableAgreement table;
  /// The same, for table_ratio_vs_cublas().
  TableAgreement table_vs_cublas;
  /// The same, for table_ratio_at_clock().
  TableAgreement table_at_clock;
};

TimingSummary summarize(std::vector<TimingRow> const& rows);

/// The rows, summary and context (`meta`: device, table, timing) as one JSON document.
nlohmann::json to_json_report(std::vector<TimingRow> const& rows, TimingSummary const& summary,
                              nlohmann::json const& meta);

/// A Markdown table (shape, precision, layout, kernel, tuner ms, runtime ms, ratio, host µs)
/// followed by the summary line; `context` is printed above the table when not empty.
std::string to_markdown(std::vector<TimingRow> const& rows, TimingSummary const& summary,
                        std::string const& context);

}  // namespace gemmtune::bench
