// gemmtune_runtime_timing's command line, row statistics, summary and writers (no GPU).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/runtime_timing_options.hpp"
#include "bench/runtime_timing_report.hpp"
#include "src/core/problem.hpp"

namespace gemmtune::bench {
namespace {

TimingRow row(std::string shape, std::vector<double> tuner, std::vector<double> runtime,
              std::string path = "tuned", std::string note = {}) {
  TimingRow r;
  r.shape = std::move(shape);
  r.precision = "fp16";
  r.layout = "NT";
  r.kernel = "mma:bm=128";
  r.tuner_ms = std::move(tuner);
  r.runtime_ms = std::move(runtime);
  r.path = std::move(path);
  r.note = std::move(note);
  r.host_us_runtime = 2.5;
  return r;
}

TEST(RuntimeTimingArgs, ParsesFiltersAndTimingOverrides) {
  RuntimeTimingOptions const o = parse_runtime_timing_args(
      {"t.json", "--precision", "fp16,bf16", "--layout", "NT", "--shape", "4096x4096x4096",
       "--rounds", "3", "--target-ms", "5", "--json-out", "o.json"});
  EXPECT_EQ(o.table, "t.json");
  EXPECT_EQ(o.precisions, (std::vector<Precision>{Precision::kFP16, Precision::kBF16}));
  EXPECT_EQ(o.layouts, (std::vector<Layout>{Layout::kNT}));
  EXPECT_EQ(o.shapes, (std::vector<std::string>{"4096x4096x4096"}));
  EXPECT_EQ(o.rounds, 3);
  EXPECT_EQ(o.json_out, "o.json");
  TimingSpec base;
  base.warmup_ms = 10.0;
  base.early_stop_ms = 4.0;
  TimingSpec const t = timing_spec(o, base);
  EXPECT_EQ(t.warmup_ms, 10.0);  // not overridden
  EXPECT_EQ(t.target_ms, 5.0);
  EXPECT_EQ(t.early_stop_ms, 0.0);  // both paths are always timed in full
}

TEST(RuntimeTimingArgs, RejectsBadArguments) {
  EXPECT_THROW(parse_runtime_timing_args({}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--rounds", "0"}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--rounds", "2x"}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--precision", "fp8"}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--shape"}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--bogus"}), std::invalid_argument);
  EXPECT_THROW(parse_runtime_timing_args({"a.json", "b.json"}), std::invalid_argument);
  EXPECT_TRUE(parse_runtime_timing_args({"--help"}).help);
  EXPECT_TRUE(parse_runtime_timing_args({"t.json", "--dry-run"}).dry_run);
  EXPECT_THROW(parse_runtime_timing_args({"t.json", "--settle-ms", "-1"}), std::invalid_argument);
}

TEST(RuntimeTimingArgs, SettlesASecondUnlessToldAndStartsFromTheReTimesProtocol) {
  EXPECT_EQ(parse_runtime_timing_args({"t.json"}).settle_ms, 1000.0);
  EXPECT_EQ(parse_runtime_timing_args({"t.json", "--settle-ms", "0"}).settle_ms, 0.0);
  EXPECT_EQ(parse_runtime_timing_args({"t.json", "--settle-ms", "250"}).settle_ms, 250.0);
  // No override: the base the caller passes (the re-time's) goes through unchanged.
  TimingSpec const full;
  TimingSpec const t = timing_spec(parse_runtime_timing_args({"t.json"}), full);
  EXPECT_EQ(t.warmup_ms, full.warmup_ms);
  EXPECT_EQ(t.target_ms, full.target_ms);
  EXPECT_EQ(t.repeats, full.repeats);
}

TEST(RuntimeTimingArgs, FiltersEntries) {
  RuntimeTimingOptions const o =
      parse_runtime_timing_args({"t.json", "--precision", "fp16", "--shape", "64x32x16"});
  TableEntry e;
  e.problem = parse_shape("64x32x16", Precision::kFP16, Layout::kTN);
  EXPECT_TRUE(selected(o, e));
  e.problem.precision = Precision::kBF16;
  EXPECT_FALSE(selected(o, e));
  e.problem = parse_shape("64x32x17", Precision::kFP16, Layout::kTN);
  EXPECT_FALSE(selected(o, e));
}

TEST(RuntimeTimingReport, RatioOfMediansAndCleanRows) {
  TimingRow const r = row("1x1x1", {1.0, 3.0, 2.0}, {2.2, 2.1, 9.0});
  EXPECT_DOUBLE_EQ(r.tuner_median(), 2.0);
  EXPECT_DOUBLE_EQ(r.runtime_median(), 2.2);
  ASSERT_TRUE(r.ratio());
  EXPECT_NEAR(*r.ratio(), 1.1, 1e-12);
  EXPECT_TRUE(r.clean());
  EXPECT_FALSE(row("1x1x1", {1.0}, {1.0}, "cublas").clean());
  EXPECT_FALSE(row("1x1x1", {1.0}, {1.0}, "tuned", "runtime ran another kernel").clean());
  EXPECT_FALSE(row("1x1x1", {}, {}).ratio());
  // Vendor picks: clean on the vendor path their kernel names.
  TimingRow lt = row("1x1x1", {1.0}, {1.0}, "cublaslt");
  lt.kernel = "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0";
  EXPECT_TRUE(lt.clean());
  lt.path = "cublas";
  EXPECT_FALSE(lt.clean());
  TimingRow cb = row("1x1x1", {1.0}, {1.0}, "cublas");
  cb.kernel = "cublas:default";
  EXPECT_TRUE(cb.clean());
}

TEST(RuntimeTimingReport, SummaryCountsOnlyCleanRows) {
  std::vector<TimingRow> const rows{
      row("a", {1.0}, {1.01}), row("b", {1.0}, {0.95}), row("c", {1.0}, {1.02}),
      row("d", {1.0}, {5.0}, "cublas")};
  TimingSummary const s = summarize(rows);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.clean_rows, 3);
  EXPECT_NEAR(s.median_abs_dev, 0.02, 1e-12);
  EXPECT_NEAR(s.worst_abs_dev, 0.05, 1e-12);
  EXPECT_EQ(s.worst_row, "b fp16 NT");
}

TEST(RuntimeTimingReport, SummarySaysWhatTheLibraryAddsToTheLaunches) {
  std::vector<TimingRow> rows{row("a", {1.0}, {1.0}), row("b", {1.0}, {1.0}),
                              row("c", {1.0}, {1.0})};
  rows[0].host_us_direct = 2.0;  // runtime 2.5: adds 0.5
  rows[1].host_us_direct = 2.6;  // adds −0.1 (noise: the library cannot be faster)
  rows[2].host_us_direct = 1.0;  // adds 1.5
  rows[0].host_us_cublas = 4.0;
  rows[1].host_us_cublas = 3.0;
  rows[2].host_us_cublas = 9.0;
  TimingSummary const s = summarize(rows);
  EXPECT_NEAR(s.median_added_us, 0.5, 1e-12);
  EXPECT_NEAR(s.worst_added_us, 1.5, 1e-12);
  EXPECT_NEAR(s.median_cublas_us, 4.0, 1e-12);
  EXPECT_NE(to_markdown(rows, s, "").find("a cuBLAS call of the same problem takes a median "
                                          "4.00 µs the same way"),
            std::string::npos);
  EXPECT_NE(to_markdown(rows, s, "").find("| 2.50 | 2.00 | 4.00 |"), std::string::npos);
  EXPECT_NE(to_markdown(rows, s, "").find("the library adds to queueing the same launches "
                                          "directly: median 0.50 µs, worst 1.50 µs"),
            std::string::npos);
}

TEST(RuntimeTimingReport, MarkdownHasOneLinePerRowAndTheSummary) {
  std::vector<TimingRow> rows{row("4096x4096x4096", {2.0}, {2.02}),
                              row("8x8x8", {0.01}, {0.02}, "cublas", "no | tuned\npath")};
  rows[0].table_ms = 1.98;
  std::string const md = to_markdown(rows, summarize(rows), "ctx");
  EXPECT_EQ(md.rfind("ctx\n\n", 0), 0u);
  // table, tuner and runtime figures, runtime/tuner and runtime/table.
  EXPECT_NE(md.find("| 4096x4096x4096 | fp16 | NT | `mma:bm=128` | 1.9800 | 2.0000 | 2.0200 | "
                    "1.0100 | 1.0202 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("no \\| tuned path"), std::string::npos);  // one table line per row
  EXPECT_NE(md.find("Summary over 1 of 2 entries: median |runtime/tuner − 1| = 1.00 %, worst = "
                    "1.00 % (4096x4096x4096 fp16 NT)"),
            std::string::npos);
  std::string const none = to_markdown({rows[1]}, summarize({rows[1]}), "");
  EXPECT_NE(none.find("no entry was timed cleanly"), std::string::npos);
}

TEST(RuntimeTimingReport, SummaryCountsEntriesWithin3PercentOfTheTable) {
  std::vector<TimingRow> rows{row("a", {1.0}, {1.0}), row("b", {1.0}, {1.03}),
                              row("c", {1.0}, {0.95}), row("d", {1.0}, {1.0}),
                              row("e", {1.0}, {2.0}, "cublas")};
  rows[0].table_ms = 1.0;   // 1.000
  rows[1].table_ms = 1.0;   // 1.030: on the line, within
  rows[2].table_ms = 1.0;   // 0.950: outside
  rows[4].table_ms = 1.0;   // not clean: not counted
  TimingSummary const s = summarize(rows);  // d has no table figure
  EXPECT_EQ(s.table.rows, 3);
  EXPECT_EQ(s.table.within_3pct, 2);
  EXPECT_NEAR(s.table.worst_dev, 0.05, 1e-12);
  EXPECT_EQ(s.table.worst_row, "c fp16 NT");
  EXPECT_FALSE(rows[3].table_ratio());
  std::string const md = to_markdown(rows, s, "");
  EXPECT_NE(md.find("Runtime against the table's figure: 2 of 3 within 3 %, worst "
                    "|runtime/table − 1| = 5.00 % (c fp16 NT)"),
            std::string::npos)
      << md;
}

// A board that runs 8% slower than when the table was tuned: every figure is off the table's by
// 8%, and dividing each side by the cuBLAS call timed beside it takes that out.
TEST(RuntimeTimingReport, TheTableComparedWithCublasTakenOutOfBothSides) {
  std::vector<TimingRow> rows{row("a", {1.08}, {1.08}), row("b", {1.08}, {1.15}),
                              row("c", {1.0}, {1.0})};
  for (TimingRow& r : rows) {
    r.table_ms = 1.0;
    r.table_cublas_ms = 2.0;
    r.cublas_ms = {2.16, 2.17, 2.15};
  }
  rows[2].cublas_ms.clear();  // cuBLAS not timed: no such figure
  TimingSummary const s = summarize(rows);
  EXPECT_EQ(s.table.within_3pct, 1);  // c only
  ASSERT_TRUE(rows[0].table_ratio_vs_cublas());
  EXPECT_NEAR(*rows[0].table_ratio_vs_cublas(), 1.0, 1e-12);
  EXPECT_NEAR(*rows[1].table_ratio_vs_cublas(), 1.15 / 1.08, 1e-12);
  EXPECT_FALSE(rows[2].table_ratio_vs_cublas());
  EXPECT_EQ(s.table_vs_cublas.rows, 2);
  EXPECT_EQ(s.table_vs_cublas.within_3pct, 1);
  EXPECT_EQ(s.table_vs_cublas.worst_row, "b fp16 NT");
  std::string const md = to_markdown(rows, s, "");
  EXPECT_NE(md.find("| 2.0000, 2.1600 | 1.0000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("(the board's state taken out): 1 of 2 within 3 %"), std::string::npos) << md;
  nlohmann::json const j = to_json_report(rows, s, {});
  EXPECT_EQ(j["entries"][1]["cublas_rounds_ms"].size(), 3u);
  EXPECT_TRUE(j["entries"][2]["table_ratio_vs_cublas"].is_null());
  EXPECT_EQ(j["summary"]["table_vs_cublas_within_3pct"], 1);
}

TEST(RuntimeTimingReport, BoardStateOfTheRoundsIsShownAndKept) {
  std::vector<TimingRow> rows{row("a", {1.0, 1.0}, {1.0})};
  PowerFigures hot, warm, unread;
  hot.sm_clock_mhz = 1500;
  hot.temperature_c = 61;
  warm.sm_clock_mhz = 1980;
  warm.temperature_c = 48;
  rows[0].round_board = {hot, warm, hot, unread};  // an unread round counts for neither figure
  std::string const md = to_markdown(rows, summarize(rows), "");
  EXPECT_NE(md.find("| 1500, 48–61 | – | – | tuned |"), std::string::npos) << md;
  nlohmann::json const j = to_json_report(rows, summarize(rows), {});
  EXPECT_EQ(j["entries"][0]["rounds_board"].size(), 4u);
  EXPECT_EQ(j["entries"][0]["rounds_board"][1]["sm_clock_mhz"], 1980);
  rows[0].round_board.clear();
  EXPECT_NE(to_markdown(rows, summarize(rows), "").find("| – | – | – | tuned |"),
            std::string::npos);
}

TEST(RuntimeTimingReport, TheTableComparedAtTheClockItsFigureRanAt) {
  // a: 10 % slower than the table at 10 % lower clock, as an SM-bound GEMM runs: at the
  // table's clock it matches. b: slower at the same clock. c: the table has no board.
  std::vector<TimingRow> rows{row("a", {1.1}, {1.1}), row("b", {1.1}, {1.1}),
                              row("c", {1.0}, {1.0})};
  PowerFigures slow, unread;
  slow.sm_clock_mhz = 1350;
  slow.temperature_c = 60;
  for (TimingRow& r : rows) {
    r.table_ms = 1.0;
    r.round_board = {slow, unread, slow};
  }
  rows[0].table_board_mhz = 1500;
  rows[0].table_board_c = 55;
  rows[1].table_board_mhz = 1350;
  rows[1].table_board_c = 60;
  EXPECT_DOUBLE_EQ(rows[0].board_clock_median(), 1350.0);
  ASSERT_TRUE(rows[0].table_ratio_at_clock());
  EXPECT_NEAR(*rows[0].table_ratio_at_clock(), 1.1 * 1350.0 / 1500.0, 1e-12);
  EXPECT_NEAR(*rows[1].table_ratio_at_clock(), 1.1, 1e-12);
  EXPECT_FALSE(rows[2].table_ratio_at_clock());
  rows[1].round_board.clear();  // no sensors in this run: no clock to scale by
  EXPECT_FALSE(rows[1].table_ratio_at_clock());
  rows[1].round_board = {slow};
  TimingSummary const s = summarize(rows);
  EXPECT_EQ(s.table_at_clock.rows, 2);
  EXPECT_EQ(s.table_at_clock.within_3pct, 1);
  EXPECT_EQ(s.table_at_clock.worst_row, "b fp16 NT");
  std::string const md = to_markdown(rows, s, "");
  EXPECT_NE(md.find("| 1350, 60–60 | 1500, 55 | 0.9900 | tuned |"), std::string::npos) << md;
  EXPECT_NE(md.find("ran at (time × clock now / clock then): 1 of 2 within 3 %"),
            std::string::npos) << md;
  nlohmann::json const j = to_json_report(rows, s, {});
  EXPECT_EQ(j["entries"][0]["table_board_sm_clock_mhz"], 1500);
  EXPECT_TRUE(j["entries"][2]["table_ratio_at_clock"].is_null());
  EXPECT_EQ(j["summary"]["table_at_clock_within_3pct"], 1);
}

TEST(RuntimeTimingReport, JsonCarriesRoundsAndNullsForMissingFigures) {
  std::vector<TimingRow> rows{row("a", {1.0, 1.2}, {1.1, 1.3}), row("b", {}, {}, "none", "x")};
  nlohmann::json const j = to_json_report(rows, summarize(rows), {{"table", "t.json"}});
  EXPECT_EQ(j.at("table"), "t.json");
  ASSERT_EQ(j.at("entries").size(), 2u);
  EXPECT_EQ(j["entries"][0]["tuner_rounds_ms"].size(), 2u);
  EXPECT_NEAR(j["entries"][0]["ratio"].get<double>(), 1.2 / 1.1, 1e-12);
  EXPECT_TRUE(j["entries"][1]["ratio"].is_null());
  EXPECT_TRUE(j["entries"][1]["outputs_match"].is_null());
  EXPECT_EQ(j["summary"]["clean_rows"], 1);
}

}  // namespace
}  // namespace gemmtune::bench
