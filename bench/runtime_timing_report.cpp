// Row statistics, summary and the JSON / Markdown writers of the runtime-timing benchmark.
#include "bench/runtime_timing_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/core/fixed_text.hpp"

namespace gemmtune::bench {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  std::size_t const n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Keeps a cell on one line of a Markdown table.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

/// "median SM clock over the rounds, temperature lowest–highest", or "–" where no round read
/// the sensors.
std::string board_state(TimingRow const& r) {
  std::vector<int> temperatures;
  for (PowerFigures const& f : r.round_board) {
    if (f.present()) temperatures.push_back(f.temperature_c);
  }
  if (temperatures.empty()) return "–";
  auto const [lo, hi] = std::minmax_element(temperatures.begin(), temperatures.end());
  return fixed(r.board_clock_median(), 0) + ", " + std::to_string(*lo) + "–" +
         std::to_string(*hi);
}

/// The table's board as "MHz, °C", or "–".
std::string table_board(TimingRow const& r) {
  if (r.table_board_mhz <= 0) return "–";
  return std::to_string(r.table_board_mhz) + ", " + std::to_string(r.table_board_c);
}

/// A ratio with 4 decimals, or "–".
std::string ratio_text(std::optional<double> v) { return v ? fixed(*v, 4) : std::string("–"); }

}  // namespace

double TimingRow::tuner_median() const { return median(tuner_ms); }
double TimingRow::runtime_median() const { return median(runtime_ms); }
double TimingRow::cublas_median() const { return median(cublas_ms); }

std::optional<double> TimingRow::table_ratio_vs_cublas() const {
  double const r = runtime_median();
  double const c = cublas_median();
  if (table_ms <= 0.0 || table_cublas_ms <= 0.0 || r <= 0.0 || c <= 0.0) return std::nullopt;
  return (r / c) / (table_ms / table_cublas_ms);
}

double TimingRow::board_clock_median() const {
  std::vector<double> clocks;
  for (PowerFigures const& f : round_board) {
    if (f.present() && f.sm_clock_mhz > 0) clocks.push_back(f.sm_clock_mhz);
  }
  return median(clocks);
}

std::optional<double> TimingRow::table_ratio_at_clock() const {
  auto const r = table_ratio();
  double const now = board_clock_median();
  if (!r || now <= 0.0 || table_board_mhz <= 0) return std::nullopt;
  return *r * (now / table_board_mhz);
}

std::optional<double> TimingRow::table_ratio() const {
  double const r = runtime_median();
  if (table_ms <= 0.0 || r <= 0.0) return std::nullopt;
  return r / table_ms;
}

std::optional<double> TimingRow::ratio() const {
  double const t = tuner_median();
  double const r = runtime_median();
  if (t <= 0.0 || r <= 0.0) return std::nullopt;
  return r / t;
}

bool TimingRow::clean() const {
  if (!note.empty() || !ratio()) return false;
  // A vendor pick is clean when the runtime ran it as the vendor call it names.
  if (kernel.rfind("cublaslt:", 0) == 0) return path == "cublaslt";
  if (kernel.rfind("cublas:", 0) == 0) return path == "cublas";
  return path == "tuned";
}

void TableAgreement::add(std::optional<double> ratio, std::string const& row) {
  if (!ratio) return;
  double const dev = std::abs(*ratio - 1.0);
  if (rows == 0 || dev > worst_dev) {
    worst_dev = dev;
    worst_row = row;
  }
  ++rows;
  // A hair of tolerance, so 3.000 % printed as 3.00 is counted as within.
  if (dev <= 0.03 + 1e-9) ++within_3pct;
}

TimingSummary summarize(std::vector<TimingRow> const& rows) {
  TimingSummary s;
  s.rows = static_cast<int>(rows.size());
  std::vector<double> devs, host, added, cublas;
  for (TimingRow const& r : rows) {
    if (!r.clean()) continue;
    double const dev = std::abs(*r.ratio() - 1.0);
    if (devs.empty() || dev > s.worst_abs_dev) {
      s.worst_abs_dev = dev;
      s.worst_row = r.shape + " " + r.precision + " " + r.layout;
    }
    devs.push_back(dev);
    host.push_back(r.host_us_runtime);
    s.worst_host_us = std::max(s.worst_host_us, r.host_us_runtime);
    double const extra = r.host_us_runtime - r.host_us_direct;
    s.worst_added_us = added.empty() ? extra : std::max(s.worst_added_us, extra);
    added.push_back(extra);
    cublas.push_back(r.host_us_cublas);
    std::string const row = r.shape + " " + r.precision + " " + r.layout;
    s.table.add(r.table_ratio(), row);
    s.table_vs_cublas.add(r.table_ratio_vs_cublas(), row);
    s.table_at_clock.add(r.table_ratio_at_clock(), row);
  }
  s.clean_rows = static_cast<int>(devs.size());
  s.median_abs_dev = median(devs);
  s.median_host_us = median(host);
  s.median_added_us = median(added);
  s.median_cublas_us = median(cublas);
  return s;
}

nlohmann::json to_json_report(std::vector<TimingRow> const& rows, TimingSummary const& summary,
                              nlohmann::json const& meta) {
  nlohmann::json j = meta;
  nlohmann::json list = nlohmann::json::array();
  for (TimingRow const& r : rows) {
    nlohmann::json e{{"shape", r.shape},
                     {"precision", r.precision},
                     {"layout", r.layout},
                     {"align", r.align},
                     {"kernel", r.kernel},
                     {"table_ms", r.table_ms},
                     {"table_cublas_ms", r.table_cublas_ms},
                     {"table_board_sm_clock_mhz", r.table_board_mhz},
                     {"table_board_temperature_c", r.table_board_c},
                     {"board_sm_clock_mhz", r.board_clock_median()},
                     {"cublas_ms", r.cublas_median()},
                     {"cublas_rounds_ms", r.cublas_ms},
                     {"path", r.path},
                     {"rule", r.rule},
                     {"tuner_ms", r.tuner_median()},
                     {"runtime_ms", r.runtime_median()},
                     {"tuner_rounds_ms", r.tuner_ms},
                     {"runtime_rounds_ms", r.runtime_ms},
                     {"rounds_board", r.round_board},
                     {"host_us_runtime", r.host_us_runtime},
                     {"host_us_direct", r.host_us_direct},
                     {"host_us_cublas", r.host_us_cublas},
                     {"overhead_calls", r.overhead_calls},
                     {"clean", r.clean()},
                     {"note", r.note}};
    e["ratio"] = r.ratio() ? nlohmann::json(*r.ratio()) : nlohmann::json(nullptr);
    e["table_ratio"] = r.table_ratio() ? nlohmann::json(*r.table_ratio()) : nlohmann::json(nullptr);
    e["table_ratio_vs_cublas"] = r.table_ratio_vs_cublas()
                                     ? nlohmann::json(*r.table_ratio_vs_cublas())
                                     : nlohmann::json(nullptr);
    e["table_ratio_at_clock"] = r.table_ratio_at_clock()
                                    ? nlohmann::json(*r.table_ratio_at_clock())
                                    : nlohmann::json(nullptr);
    e["outputs_match"] =
        r.outputs_match ? nlohmann::json(*r.outputs_match) : nlohmann::json(nullptr);
    list.push_back(std::move(e));
  }
  j["entries"] = std::move(list);
  j["summary"] = {{"rows", summary.rows},
                  {"clean_rows", summary.clean_rows},
                  {"median_abs_ratio_minus_1", summary.median_abs_dev},
                  {"worst_abs_ratio_minus_1", summary.worst_abs_dev},
                  {"worst_row", summary.worst_row},
                  {"median_host_us_runtime", summary.median_host_us},
                  {"worst_host_us_runtime", summary.worst_host_us},
                  {"median_host_us_added", summary.median_added_us},
                  {"worst_host_us_added", summary.worst_added_us},
                  {"median_host_us_cublas", summary.median_cublas_us},
                  {"table_rows", summary.table.rows},
                  {"table_within_3pct", summary.table.within_3pct},
                  {"worst_abs_table_ratio_minus_1", summary.table.worst_dev},
                  {"worst_table_row", summary.table.worst_row},
                  {"table_vs_cublas_rows", summary.table_vs_cublas.rows},
                  {"table_vs_cublas_within_3pct", summary.table_vs_cublas.within_3pct},
                  {"worst_abs_table_ratio_vs_cublas_minus_1", summary.table_vs_cublas.worst_dev},
                  {"worst_table_vs_cublas_row", summary.table_vs_cublas.worst_row},
                  {"table_at_clock_rows", summary.table_at_clock.rows},
                  {"table_at_clock_within_3pct", summary.table_at_clock.within_3pct},
                  {"worst_abs_table_ratio_at_clock_minus_1", summary.table_at_clock.worst_dev},
                  {"worst_table_at_clock_row", summary.table_at_clock.worst_row}};
  return j;
}

std::string to_markdown(std::vector<TimingRow> const& rows, TimingSummary const& summary,
                        std::string const& context) {
  std::string md;
  if (!context.empty()) md += context + "\n\n";
  md += "| shape | precision | layout | kernel | table ms | tuner ms | runtime ms | runtime/tuner | "
        "runtime/table | cuBLAS ms (table, now) | runtime/table ÷ cuBLAS | "
        "host µs/call (runtime) | host µs/call (direct) | host µs/call (cuBLAS) | "
        "board (SM MHz, °C) | table's board | runtime/table at the table's clock | path | "
        "note |\n";
  md += "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|\n";
  for (TimingRow const& r : rows) {
    auto const ratio = r.ratio();
    // The table's figure is the search's re-timed median, taken at another moment: the
    // runtime/table column is what a user who trusts the table sees.
    auto const vs_table = r.table_ratio();
    auto const vs_cublas = r.table_ratio_vs_cublas();
    md += "| " + r.shape + " | " + r.precision + " | " + r.layout + " | `" + cell(r.kernel) +
          "` | " + fixed(r.table_ms, 4) + " | " + fixed(r.tuner_median(), 4) + " | " +
          fixed(r.runtime_median(), 4) + " | " +
          (ratio ? fixed(*ratio, 4) : std::string("–")) + " | " +
          (vs_table ? fixed(*vs_table, 4) : std::string("–")) + " | " +
          (r.table_cublas_ms > 0.0 ? fixed(r.table_cublas_ms, 4) : std::string("–")) + ", " +
          (r.cublas_ms.empty() ? std::string("–") : fixed(r.cublas_median(), 4)) + " | " +
          (vs_cublas ? fixed(*vs_cublas, 4) : std::string("–")) + " | " +
          fixed(r.host_us_runtime, 2) +
          " | " + fixed(r.host_us_direct, 2) + " | " + fixed(r.host_us_cublas, 2) + " | " +
          board_state(r) + " | " + table_board(r) + " | " + ratio_text(r.table_ratio_at_clock()) +
          " | " + cell(r.path) + " | " + cell(r.note) +
          " |\n";
  }
  md += "\n";
  if (summary.clean_rows == 0) {
    md += "Summary: no entry was timed cleanly on the path its kernel names (" +
          std::to_string(summary.rows) + " rows).\n";
  } else {
    md += "Summary over " + std::to_string(summary.clean_rows) + " of " +
          std::to_string(summary.rows) + " entries: median |runtime/tuner − 1| = " +
          fixed(100.0 * summary.median_abs_dev, 2) + " %, worst = " +
          fixed(100.0 * summary.worst_abs_dev, 2) + " % (" + summary.worst_row +
          "); host overhead per gemm() call: median " + fixed(summary.median_host_us, 2) +
          " µs, worst " + fixed(summary.worst_host_us, 2) + " µs, of which the library adds to " +
          "queueing the same launches directly: median " + fixed(summary.median_added_us, 2) +
          " µs, worst " + fixed(summary.worst_added_us, 2) + " µs; a cuBLAS call of the same " +
          "problem takes a median " + fixed(summary.median_cublas_us, 2) + " µs the same way.\n";
    // One line per agreement: what it compares, then "N of M within 3 %, worst X % (row)".
    auto line = [&md](TableAgreement const& a, std::string const& what, std::string const& worst) {
      if (a.rows == 0) return;
      md += what + std::to_string(a.within_3pct) + " of " + std::to_string(a.rows) +
            " within 3 %, worst " + worst + fixed(100.0 * a.worst_dev, 2) + " % (" + a.worst_row +
            ").\n";
    };
    line(summary.table, "Runtime against the table's figure: ", "|runtime/table − 1| = ");
    line(summary.table_vs_cublas,
         "The same with each side divided by the cuBLAS call timed beside it (the board's state "
         "taken out): ",
         "");
    line(summary.table_at_clock,
         "The same with the runtime's figure scaled to the SM clock the table's figure ran at "
         "(time × clock now / clock then): ",
         "");
  }
  return md;
}

}  // namespace gemmtune::bench
