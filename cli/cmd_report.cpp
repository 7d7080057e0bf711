// `gemmtune report`: one self-contained HTML page (or Markdown) of a cache or a table: per-shape
// bars, roofline, search convergence, a landscape, M curves, ladder runs and provenance.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "db/report_source.hpp"
#include "src/core/error.hpp"
#include "src/core/file_output.hpp"
#include "src/core/tuning_table.hpp"
#include "src/report/html_report.hpp"
#include "src/report/ladder_file.hpp"
#include "src/report/table_report.hpp"

namespace gemmtune {
namespace {

struct ReportArgs {
  std::string table;
  std::vector<std::string> shapes;
  std::string shapes_file;
  std::string precision;  ///< empty: every precision
  std::string layout = "NN";
  std::string landscape;
  std::vector<std::string> ladders;
  std::string out;
  std::string format = "html";
};

void run_report(ReportArgs const& a, AppContext& ctx) {
  if (a.format != "html" && a.format != "md") {
    throw UsageError("bad --format '" + a.format + "': expected html or md");
  }
  ReportQuery q;
  if (!a.precision.empty()) q.precision = parse_precision(a.precision);
  Precision const shape_precision = q.precision.value_or(Precision::kFP32);
  if (!a.shapes.empty() || !a.shapes_file.empty()) {
    if (!q.precision) {
      // A shape names one problem only with its precision: every precision of it is meant.
      for (Precision p : kAllPrecisions) {
        for (Problem const& s : collect_problems(a.shapes, a.shapes_file, p, parse_layout(a.layout), 0)) {
          q.shapes.push_back(s);
        }
      }
    } else {
      q.shapes = collect_problems(a.shapes, a.shapes_file, shape_precision, parse_layout(a.layout), 0);
    }
  }
  if (!a.landscape.empty()) {
    q.landscape = parse_shape(a.landscape, shape_precision, parse_layout(a.layout)).resolved();
  }
  ReportData data;
  if (!a.table.empty()) {
    data = report_from_table(read_tuning_table(a.table), q, a.table);
  } else if (!std::filesystem::exists(ctx.db_path())) {
    // Nothing tuned yet is a report too: it says so, rather than an error with no page.
    data.title = "gemmtune report";
    data.source = ctx.db_path();
    data.missing.push_back("no tuning cache at " + ctx.db_path() +
                           ": it holds no trials yet; run `gemmtune search` first");
  } else {
    data = report_from_cache(ctx.store_for_reading(), q);
  }
  for (std::string const& f : a.ladders) data.ladders.push_back(read_ladder_file(f));
  std::string const page = a.format == "md" ? render_markdown(data) : render_html(data);
  if (a.out == "-") {
    std::cout << page;
  } else {
    write_file_safely(a.out, page, "report");
    if (!ctx.options.quiet) {
      std::cerr << "wrote " << a.out << ": " << data.shapes.size() << " shapes, "
                << data.curves.size() << " search curves"
                << (data.landscape ? ", a landscape of " + data.landscape->family : std::string())
                << (data.ladders.empty() ? std::string()
                                         : ", " + std::to_string(data.ladders.size()) + " ladder runs")
                << (data.missing.empty() ? std::string()
                                         : "; " + std::to_string(data.missing.size()) +
                                               " notes on what the source lacks")
                << std::endl;
    }
  }
  // A page with nothing measured on it (no shape, no ladder) is not a report of results.
  if (data.shapes.empty() && data.ladders.empty()) command_status() = 3;
}

}  // namespace

void setup_report(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand(
      "report", "A self-contained HTML report (bars, roofline, convergence, landscape) of the cache or a table");
  sub->add_option("--table", a->table, "Report this tuning table instead of the cache");
  sub->add_option("--shape", a->shapes, "Only this shape MxNxK (repeatable)");
  sub->add_option("--shapes-file", a->shapes_file, "Only the shapes of this file");
  sub->add_option("--precision", a->precision, "Only this precision (default: all)");
  sub->add_option("--layout", a->layout, "Layout of --shape and --landscape")->capture_default_str();
  sub->add_option("--landscape", a->landscape,
                  "Shape MxNxK of the landscape (default: the shape with the most trials)");
  sub->add_option("--ladder", a->ladders,
                  "A `gemmtune ladder --json-out` file to draw in the ladder section (repeatable)");
  sub->add_option("--out,-o", a->out, "Output file ('-': stdout)")->required();
  sub->add_option("--format", a->format, "html or md")->capture_default_str();
  sub->callback([a, &ctx] { run_report(*a, ctx); });
}

}  // namespace gemmtune
