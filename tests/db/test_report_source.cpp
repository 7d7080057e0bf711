// The report's data from a cache and a table, and the page drawn from it: what each section
// shows, the caps that keep a large cache readable, and what an empty source says.
#include "db/report_source.hpp"

#include <gtest/gtest.h>

#include <string>

#include "src/report/html_report.hpp"
#include "src/report/table_report.hpp"
#include "tests/db/db_test_support.hpp"

namespace gemmtune {
namespace {
using namespace testing_support;

std::size_t count(std::string const& hay, std::string const& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

class Report : public testing::Test {
 protected:
  TempDir dir;
  SqliteTrialStore store{dir / "cache.db"};

  /// A search of `p`: `n` configs of simt, X = 1..n, taking (n + 1 - X) · 0.1 ms (the last is
  /// the fastest), every fifth a wrong result.
  std::int64_t search(Problem const& p, int n, std::string const& args) {
    std::int64_t const id = store.begin_search(args);
    for (int x = 1; x <= n; ++x) {
      bool const bad = x % 5 == 0;
      Trial t = trial(h200(), p, "simt:X=" + std::to_string(x) + ",Y=" + std::to_string(x % 3),
                      bad ? Disposition::kWrongResult : Disposition::kOk, 0.1 * (n + 1 - x));
      t.search_id = id;
      t.created_at = 1700000000 + x;
      t.cublas_ms = 0.2;
      t.cublaslt_ms = 0.18;
      store.record_trial(t);
    }
    store.finish_search(id, "{}");
    return id;
  }
};

TEST_F(Report, ACacheGivesBarsPointsCurvesAndALandscape) {
  Problem const big = problem(4096, 4096, 4096);
  Problem const small = problem(512, 512, 512);
  search(big, 12, "search --shape 4096x4096x4096 --strategy exhaustive");
  search(small, 6, "search --shape 512x512x512");
  search(small, 4, "search --shape 512x512x512 --budget 4");
  ReportData const d = report_from_cache(store, {});
  ASSERT_EQ(d.shapes.size(), 2u);
  for (ReportShape const& s : d.shapes) {
    EXPECT_FALSE(s.pick_id.empty());
    EXPECT_DOUBLE_EQ(s.cublas_ms, 0.2);  // the baseline timed with the pick
    EXPECT_EQ(s.own_id, s.pick_id);      // no vendor trials here
  }
  ASSERT_EQ(d.curves.size(), 3u);
  EXPECT_GT(d.curves[0].search_id, d.curves[2].search_id);  // newest first
  for (ReportCurve const& c : d.curves) {
    for (std::size_t i = 1; i < c.best_ms.size(); ++i) EXPECT_LE(c.best_ms[i], c.best_ms[i - 1]);
    EXPECT_EQ(c.best_ms.size(), c.elapsed_s.size());
  }
  // The exhaustive search of the big shape is its optimum.
  for (ReportCurve const& c : d.curves) {
    if (c.problem.m == 4096) {
      EXPECT_NEAR(c.optimum_ms, 0.1, 1e-12);
    }
  }
  ASSERT_TRUE(d.landscape);
  EXPECT_EQ(d.landscape->family, "simt");
  EXPECT_EQ(d.landscape->params, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(d.landscape->points.size(), 12u);  // the big shape: the most trials
  EXPECT_EQ(d.commands.size(), 3u);

  std::string const page = render_html(d);
  for (char const* id : {"shapes", "roofline", "convergence", "landscape", "mcurves", "ladder",
                         "provenance"}) {
    EXPECT_NE(page.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  // fp32 alone: one bar chart of 2 shapes × (own, pick, cuBLAS, cuBLASLt) bars.
  EXPECT_EQ(count(page, "<rect class=\"bar "), 8u);
  EXPECT_NE(page.find("data-kind=\"bars\" data-marks=\"8\""), std::string::npos);
  EXPECT_EQ(count(page, "<polyline class=\"curve"), 6u);  // 3 searches, by evaluation and time
  // Landscape: one small multiple per parameter, every config a point (failures included).
  EXPECT_EQ(count(page, "data-kind=\"scatter\" data-marks=\"12\""), 2u);
  EXPECT_NE(page.find("TFLOP/s"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);  // self-contained, nothing to run
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));  // no fetches
}

TEST_F(Report, AnEmptyCacheSaysWhatIsMissing) {
  ReportData const d = report_from_cache(store, {});
  EXPECT_TRUE(d.shapes.empty());
  ASSERT_FALSE(d.missing.empty());
  EXPECT_NE(d.missing[0].find("no trials"), std::string::npos);
  std::string const page = render_html(d);
  EXPECT_NE(page.find("No tuned shapes"), std::string::npos);
  EXPECT_NE(page.find("No searches"), std::string::npos);
  EXPECT_EQ(count(page, "<rect class=\"bar "), 0u);
}

TEST_F(Report, ALargeLandscapeIsSampledAndSaysSo) {
  Problem const p = problem(2048, 2048, 2048);
  search(p, 300, "search --shape 2048x2048x2048");
  ReportQuery q;
  q.max_landscape_points = 100;
  ReportData const d = report_from_cache(store, q);
  ASSERT_TRUE(d.landscape);
  EXPECT_EQ(d.landscape->total, 300);
  EXPECT_EQ(d.landscape->points.size(), 100u);
  std::size_t failed = 0;
  for (ReportPoint const& pt : d.landscape->points) failed += pt.disposition != Disposition::kOk;
  EXPECT_EQ(failed, 60u);  // every failure is kept
  EXPECT_NE(render_html(d).find("A sample of 100 of the 300"), std::string::npos);
}

TEST_F(Report, TheQueryChoosesShapesPrecisionAndTheLandscape) {
  search(problem(4096, 4096, 4096), 12, "a");
  search(problem(512, 512, 512), 6, "b");
  ReportQuery q;
  q.shapes = {problem(512, 512, 512)};
  q.landscape = problem(512, 512, 512);
  ReportData const d = report_from_cache(store, q);
  ASSERT_EQ(d.shapes.size(), 1u);
  EXPECT_EQ(d.shapes[0].problem.m, 512);
  ASSERT_TRUE(d.landscape);
  EXPECT_EQ(d.landscape->points.size(), 6u);
  q = {};
  q.precision = Precision::kBF16;
  EXPECT_TRUE(report_from_cache(store, q).shapes.empty());
}

TEST_F(Report, MeasuredCeilingsReplaceTheKnownOnesAndSaySo) {
  Problem const p = problem(1024, 1024, 1024);
  search(p, 5, "search --shape 1024x1024x1024");
  ReportData const before = report_from_cache(store, {});
  ASSERT_TRUE(before.ceilings.has_value());
  double const datasheet_tf32 = before.ceilings->peak_tflops.at(Precision::kTF32);
  store.record_ceiling(h200(), provenance(), {Precision::kFP32, 51.5, "cuBLAS at 8192^3", 0});
  store.record_ceiling(h200(), provenance(), {std::nullopt, 4012.0, "copy of 2 GiB", 0});
  ReportData const d = report_from_cache(store, {});
  ASSERT_TRUE(d.ceilings.has_value());
  EXPECT_EQ(d.ceilings->peak_tflops.at(Precision::kFP32), 51.5);
  EXPECT_EQ(d.ceilings->copy_gbps, 4012.0);
  EXPECT_EQ(d.ceilings->peak_tflops.at(Precision::kTF32), datasheet_tf32);  // not measured
  std::string const& src = d.ceilings->source;
  EXPECT_NE(src.find("measured on this device by `gemmtune devices --ceilings` on 20"), std::string::npos) << src;
  EXPECT_NE(src.find("fp32: cuBLAS at 8192^3"), std::string::npos) << src;
  EXPECT_NE(src.find("copy: copy of 2 GiB"), std::string::npos) << src;
  EXPECT_NE(src.find("Not measured, so as known for this GPU (tf32, fp16, bf16, e4m3, e4m3-row, "
                     "e4m3-blk, e5m2, e5m2-row, e5m2-blk)"),
            std::string::npos)
      << src;
  std::string const page = render_html(d);
  EXPECT_NE(page.find("4012 GB/s"), std::string::npos);
  EXPECT_NE(page.find("51.5 TFLOP/s"), std::string::npos);
}

TEST(ReportCeilings, AGpuWithoutKnownFiguresDrawsWhatWasMeasured) {
  EXPECT_FALSE(with_measured_ceilings(std::nullopt, {}).has_value());
  auto const c = with_measured_ceilings(std::nullopt, {{Precision::kBF16, 300.0, "cuBLASLt", 0}});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->peak_tflops.size(), 1u);
  EXPECT_EQ(c->copy_gbps, 0.0);  // no bandwidth line without a copy figure
  EXPECT_EQ(c->source.find("Not measured"), std::string::npos) << c->source;
}

TEST(ReportTable, ATableGivesPicksWithTheirOwnFigureAndSaysWhatItLacks) {
  TuningTableBuilder b("2026-12-03T00:00:00Z");
  b.add_entry(h200(), problem(4096, 4096, 4096), parse_kernel_id("cublas:default"), 0.2, 680.0,
              0.2, 0.21, {}, TableSpread{0.198, 0.203, 6},
              TableOwnFigure{parse_kernel_id("simt:X=1"), 0.25}, "13.1.0");
  b.add_entry(h200(), problem(512, 512, 512), parse_kernel_id("simt:X=2"), 0.01, 26.0, 0.012,
              0.011, {}, std::nullopt, std::nullopt, "");
  ReportData const d = report_from_table(b.build(), {}, "t.json");
  ASSERT_EQ(d.shapes.size(), 2u);
  ReportShape const& big = d.shapes[0].problem.m == 4096 ? d.shapes[0] : d.shapes[1];
  ReportShape const& small = d.shapes[0].problem.m == 4096 ? d.shapes[1] : d.shapes[0];
  EXPECT_TRUE(big.pick_vendor);
  EXPECT_EQ(big.own_id, "simt:X=1");
  EXPECT_DOUBLE_EQ(big.pick_hi_ms, 0.203);
  EXPECT_EQ(small.own_id, "simt:X=2");
  EXPECT_TRUE(d.ceilings.has_value());  // an H200: the roofline has its ceilings
  EXPECT_FALSE(d.missing.empty());
  auto const lines = win_lose_lines(d);
  // Own 0.25 ms against the vendor's 0.2: trails; own 0.01 against 0.011: wins.
  EXPECT_NE(lines.at(Precision::kFP32).find("beat the best vendor figure on 1 of 2"),
            std::string::npos)
      << lines.at(Precision::kFP32);
  std::string const md = render_markdown(d);
  EXPECT_NE(md.find("| 4096x4096x4096 | NN | `cublas:default` |"), std::string::npos) << md;
}

}  // namespace
}  // namespace gemmtune
