// Page layout of the report: sections, tables and the charts' data, in HTML or Markdown.
#include "src/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "src/core/fixed_text.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/report/svg_chart.hpp"

namespace gemmtune {
namespace {

double tflops(Problem const& p, double ms) { return ms > 0 ? p.flops() / (ms * 1e-3) / 1e12 : 0.0; }

/// The faster of the two vendor figures (0 when neither was timed).
double best_vendor_ms(ReportShape const& s) {
  return gemmtune::best_vendor_ms(s.cublas_ms, s.cublaslt_ms);
}

std::string ratio_text(double num, double den) {
  return num > 0 && den > 0 ? fixed(num / den, 2) + "×" : "-";
}

std::map<Precision, std::vector<ReportShape const*>> by_precision(ReportData const& d) {
  std::map<Precision, std::vector<ReportShape const*>> out;
  for (ReportShape const& s : d.shapes) out[s.problem.precision].push_back(&s);
  return out;
}

constexpr char const* kStyle = R"css(
body { font-family: sans-serif; margin: 24px auto; max-width: 1200px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; } p.note, p.missing, .source { color: #555; font-size: 13px; }
p.missing { color: #8a5a00; } ul.missing li { color: #8a5a00; font-size: 13px; }
p.verdict { font-size: 14px; background: #f4f6f8; padding: 6px 10px; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; }
th { background: #f0f0f0; }
td.id { text-align: left; font-family: monospace; font-size: 11px; word-break: break-all; max-width: 330px; }
.chart { display: block; margin: 8px 0; overflow: visible; }
.chart text { font-size: 11px; fill: #333; } .chart .axis { stroke: #333; }
.chart .grid { stroke: #e6e6e6; } .chart .whisker { stroke: #000; stroke-width: 1.5; }
.bar.own, .legend.own { fill: #2b7bb9; } .bar.pick, .legend.pick { fill: #e07b00; }
.bar.cublas, .legend.cublas { fill: #9a9a9a; } .bar.cublaslt, .legend.cublaslt { fill: #5c5c5c; }
.point.own { fill: #2b7bb9; } .point.pick { fill: #e07b00; } .point.ok { fill: #2b7bb9; opacity: .6; }
.point.fail { fill: #c62828; } .ceiling { stroke: #c62828; stroke-dasharray: 5 3; }
.point.cublas { fill: #9a9a9a; } .ceiling.boundary { stroke: #777; stroke-dasharray: 2 3; }
.ceiling.optimum { stroke: #2e7d32; } .curve { fill: none; stroke: #2b7bb9; stroke-width: 1.2; opacity: .8; }
.smalls { display: flex; flex-wrap: wrap; gap: 8px; } .smalls figure { margin: 0; }
figcaption { font-size: 12px; text-align: center; }
footer { margin-top: 40px; font-size: 12px; color: #555; border-top: 1px solid #ccc; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; } dt { font-weight: bold; }
)css";

void shape_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"shapes\"><h2>Per shape: own best, pick, cuBLAS, cuBLASLt</h2>";
  if (d.shapes.empty()) {
    o << "<p class=\"missing\">No tuned shapes in this source.</p></section>";
    return;
  }
  o << "<p class=\"note\">GPU time with host launch cost removed (CUDA-graph replay), as TFLOP/s; "
       "whiskers are the fastest and slowest round of the pick's re-time. The label on a pick or "
       "own bar is its speed against the best of cuBLAS and cuBLASLt-autotuned (above 1: faster)."
       "</p>";
  auto const lines = win_lose_lines(d);
  for (auto const& [precision, shapes] : by_precision(d)) {
    std::string const name(to_string(precision));
    o << "<div class=\"precision\" data-precision=\"" << name << "\"><h3>" << name << "</h3>";
    o << "<p class=\"verdict\">" << html_escape(lines.at(precision)) << "</p>";
    std::size_t const drawn = std::min(shapes.size(), kReportMaxBars);
    std::vector<std::string> groups;
    BarSeries own{"own best", "own", {}, {}, {}, {}, {}};
    BarSeries pick{"pick", "pick", {}, {}, {}, {}, {}};
    BarSeries cublas{"cuBLAS", "cublas", {}, {}, {}, {}, {}};
    BarSeries lt{"cuBLASLt-autotuned", "cublaslt", {}, {}, {}, {}, {}};
    for (std::size_t i = 0; i < drawn; ++i) {
      ReportShape const& s = *shapes[i];
      Problem const& p = s.problem;
      double const vendor = best_vendor_ms(s);
      groups.push_back(p.shape());
      own.values.push_back(tflops(p, s.own_ms));
      own.labels.push_back(s.own_ms > 0 ? ratio_text(vendor, s.own_ms) : "");
      pick.values.push_back(tflops(p, s.pick_ms));
      pick.labels.push_back(ratio_text(vendor, s.pick_ms));
      // A faster round is a higher TFLOP/s: the whisker runs from the slowest to the fastest.
      pick.lo.push_back(tflops(p, s.pick_hi_ms));
      pick.hi.push_back(tflops(p, s.pick_lo_ms));
      cublas.values.push_back(tflops(p, s.cublas_ms));
      lt.values.push_back(tflops(p, s.cublaslt_ms));
    }
    o << bar_chart(groups, {own, pick, cublas, lt}, "TFLOP/s");
    if (drawn < shapes.size()) {
      o << "<p class=\"note\">The chart shows the first " << drawn << " of " << shapes.size()
        << " shapes; the table lists all.</p>";
    }
    o << "<table class=\"shapes\"><tr><th>shape</th><th>layout</th><th>pick</th><th>µs</th>"
         "<th>TFLOP/s</th><th>spread</th><th>vs cuBLAS</th><th>vs cuBLASLt</th><th>own best</th>"
         "<th>own µs</th><th>own vs best vendor</th></tr>";
    for (ReportShape const* sp : shapes) {
      ReportShape const& s = *sp;
      std::string spread = "-";
      if (s.pick_lo_ms > 0 && s.pick_hi_ms > 0) {
        spread = fixed(100 * (s.pick_lo_ms / s.pick_ms - 1), 1) + "/+" +
                 fixed(100 * (s.pick_hi_ms / s.pick_ms - 1), 1) + "%";
      }
      o << "<tr><td>" << s.problem.shape() << "</td><td>" << to_string(s.problem.layout)
        << "</td><td class=\"id\">" << html_escape(s.pick_id) << "</td><td>"
        << fixed(s.pick_ms * 1e3, 1) << "</td><td>" << fixed(tflops(s.problem, s.pick_ms), 1)
        << "</td><td>" << spread << "</td><td>" << ratio_text(s.cublas_ms, s.pick_ms)
        << "</td><td>" << ratio_text(s.cublaslt_ms, s.pick_ms) << "</td><td class=\"id\">"
        << html_escape(s.own_id.empty() ? "-" : s.own_id) << "</td><td>"
        << (s.own_ms > 0 ? fixed(s.own_ms * 1e3, 1) : "-") << "</td><td>"
        << ratio_text(best_vendor_ms(s), s.own_ms) << "</td></tr>";
    }
    o << "</table></div>";
  }
  o << "</section>";
}

void roofline_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"roofline\"><h2>Roofline</h2>";
  if (d.shapes.empty()) {
    o << "<p class=\"missing\">No tuned shapes to place.</p></section>";
    return;
  }
  if (!d.ceilings) {
    o << "<p class=\"missing\">No ceilings are known for " << html_escape(d.gpu)
      << ": the points are drawn without them.</p>";
  }
  for (auto const& [precision, shapes] : by_precision(d)) {
    std::vector<ScatterPoint> points;
    double max_ai = 1.0, min_ai = 1e9;
    for (ReportShape const* s : shapes) {
      Problem const& p = s->problem;
      double const ai = p.flops() / p.min_bytes();
      min_ai = std::min(min_ai, ai);
      max_ai = std::max(max_ai, ai);
      points.push_back({ai, tflops(p, s->pick_ms), "pick", p.shape() + " pick " + s->pick_id});
      if (s->own_ms > 0) {
        points.push_back({ai, tflops(p, s->own_ms), "own", p.shape() + " own " + s->own_id});
      }
    }
    std::vector<ChartLine> lines;
    if (d.ceilings) {
      auto const peak = d.ceilings->peak_tflops.find(precision);
      double const bw_tb = d.ceilings->copy_gbps / 1000.0;
      double const lo = std::max(0.5, min_ai / 4), hi = max_ai * 4;
      if (peak != d.ceilings->peak_tflops.end() && bw_tb > 0) {
        double const knee = peak->second / bw_tb;
        lines.push_back({lo, bw_tb * lo, std::min(knee, hi), bw_tb * std::min(knee, hi), "bandwidth",
                         fixed(d.ceilings->copy_gbps, 0) + " GB/s"});
        if (knee < hi) {
          lines.push_back({knee, peak->second, hi, peak->second, "compute",
                           fixed(peak->second, 1) + " TFLOP/s"});
        }
      }
    }
    std::string const name(to_string(precision));
    o << "<div class=\"precision\" data-precision=\"" << name << "\"><h3>" << name << "</h3>"
      << scatter_chart(points, lines, "arithmetic intensity (FLOP per byte of A, B and C)",
                       "TFLOP/s", true, true)
      << "</div>";
  }
  if (d.ceilings) o << "<p class=\"note\">Ceilings: " << html_escape(d.ceilings->source) << "</p>";
  o << "</section>";
}

void convergence_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"convergence\"><h2>Search convergence</h2>";
  if (d.curves.empty()) {
    o << "<p class=\"missing\">No searches with trials of our kernels in this source (a table "
         "holds picks only; a cache imported from a table holds no search records).</p>"
         "</section>";
    return;
  }
  o << "<p class=\"note\">Best-so-far of our kernels over the evaluations of each search, as a "
       "multiple of the best figure it (or a stored exhaustive search of the shape, green) "
       "reached; 1 is that optimum.";
  if (d.curves_total > static_cast<std::int64_t>(d.curves.size())) {
    o << " The newest " << d.curves.size() << " of " << d.curves_total << " searches are drawn.";
  }
  o << "</p>";
  std::vector<LineSeries> by_eval, by_time;
  bool any_optimum = false;
  double max_eval = 1.0;
  for (ReportCurve const& c : d.curves) {
    if (c.best_ms.empty()) continue;
    double ref = c.best_ms.back();
    if (c.optimum_ms > 0) {
      ref = std::min(ref, c.optimum_ms);
      any_optimum = true;
    }
    LineSeries e{{}, {}, "eval", "search " + std::to_string(c.search_id) + " " + c.problem.describe()};
    LineSeries t = e;
    // A step line: a corner where the best improves and the last evaluation, so a search of
    // 10^5 evaluations draws as many points as it had improvements.
    double shown = 0.0;
    auto point = [&](std::size_t i, double y) {
      e.x.push_back(static_cast<double>(i + 1));
      e.y.push_back(y / ref);
      t.x.push_back(i < c.elapsed_s.size() ? c.elapsed_s[i] : 0.0);
      t.y.push_back(y / ref);
    };
    for (std::size_t i = 0; i < c.best_ms.size(); ++i) {
      double const b = c.best_ms[i];
      if (!(b > 0)) continue;
      bool const last = i + 1 == c.best_ms.size();
      if (b != shown) {
        if (shown > 0) point(i, shown);
        point(i, b);
        shown = b;
      } else if (last) {
        point(i, b);
      }
    }
    max_eval = std::max(max_eval, static_cast<double>(c.best_ms.size()));
    by_eval.push_back(std::move(e));
    by_time.push_back(std::move(t));
  }
  std::vector<ChartLine> optimum;
  if (any_optimum) optimum.push_back({1.0, 1.0, max_eval, 1.0, "optimum", "exhaustive optimum"});
  o << "<div class=\"smalls\"><figure>"
    << line_chart(by_eval, optimum, "evaluations", "best so far ÷ optimum", true, 560, 300)
    << "<figcaption>against evaluations</figcaption></figure><figure>"
    << line_chart(by_time, {}, "seconds from the first trial", "best so far ÷ optimum", true, 560,
                  300)
    << "<figcaption>against wall time (trial timestamps, 1 s resolution)</figcaption></figure>"
       "</div></section>";
}

void landscape_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"landscape\"><h2>Landscape</h2>";
  if (!d.landscape || d.landscape->points.empty()) {
    o << "<p class=\"missing\">No family with measured configs on one shape in this source.</p>"
         "</section>";
    return;
  }
  ReportLandscape const& l = *d.landscape;
  double worst = 0.0;
  for (ReportPoint const& p : l.points) worst = std::max(worst, p.time_ms);
  o << "<p class=\"note\">" << html_escape(l.family) << " on " << html_escape(l.problem.describe())
    << ": time of each measured config against each parameter; red marks at the top are configs "
       "that failed (their disposition in the tooltip).";
  if (l.total > static_cast<std::int64_t>(l.points.size())) {
    o << " A sample of " << l.points.size() << " of the " << l.total
      << " measured configs is drawn (every failure kept, the ok ones evenly spaced).";
  }
  o << "</p><div class=\"smalls\">";
  for (std::string const& param : l.params) {
    std::vector<ScatterPoint> pts;
    std::set<std::int64_t> values;
    for (ReportPoint const& p : l.points) {
      auto const v = p.params.find(param);
      if (v == p.params.end()) continue;
      values.insert(v->second);
      bool const ok = p.disposition == Disposition::kOk;
      pts.push_back({static_cast<double>(v->second), ok ? p.time_ms * 1e3 : worst * 1.15e3,
                     ok ? "ok" : "fail",
                     param + "=" + std::to_string(v->second) + ": " +
                         (ok ? fixed(p.time_ms * 1e3, 1) + " µs"
                             : std::string(to_string(p.disposition)))});
    }
    bool const log_x = values.size() > 2 && *values.begin() > 0 && *values.rbegin() >= 8 * *values.begin();
    o << "<figure>" << scatter_chart(pts, {}, param, "µs", log_x, false, 300, 220)
      << "<figcaption>" << html_escape(param) << "</figcaption></figure>";
  }
  o << "</div></section>";
}

}  // namespace

std::map<Precision, std::string> win_lose_lines(ReportData const& d) {
  std::map<Precision, std::string> out;
  for (auto const& [precision, shapes] : by_precision(d)) {
    std::vector<std::string> win, lose;
    int timed = 0, vendor_picks = 0;
    for (ReportShape const* s : shapes) {
      if (s->pick_vendor) ++vendor_picks;
      double const v = best_vendor_ms(*s);
      if (!(v > 0) || !(s->own_ms > 0)) continue;
      ++timed;
      double const r = v / s->own_ms;
      std::string const item = s->problem.shape() + " " + fixed(r, 3) + "×";
      (r >= 1.0 ? win : lose).push_back(item);
    }
    std::string line = std::string(to_string(precision)) + ": ";
    if (timed == 0) {
      line += "no shape has both an own figure and a vendor figure.";
    } else {
      line += "our own kernels beat the best vendor figure on " + std::to_string(win.size()) +
              " of " + std::to_string(timed) + " shapes";
      auto list = [](std::vector<std::string> const& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + v[i];
        if (v.size() > 8) s += ", …";
        return s;
      };
      if (!win.empty()) line += " (" + list(win) + ")";
      if (!lose.empty()) line += "; they trail it on " + list(lose);
      line += ". The pick is a vendor call on " + std::to_string(vendor_picks) + " of " +
              std::to_string(shapes.size()) + ".";
    }
    out[precision] = line;
  }
  return out;
}

namespace {

/// The layer of an M curve, as its caption says it.
std::string layer_text(Problem const& p) {
  return "M × " + std::to_string(p.n) + " × " + std::to_string(p.k) + " " +
         std::string(to_string(p.precision)) + " " + std::string(to_string(p.layout)) + " a" +
         std::to_string(p.align);
}

void mcurves_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"mcurves\"><h2>M curves</h2>";
  if (d.ranges.empty()) {
    o << "<p class=\"missing\">No layer of this source was tuned at two or more M (a range "
         "search such as <code>--shape 1-16384x4096x4096</code>, or a model's shapes, makes "
         "one).</p></section>";
    return;
  }
  o << "<p class=\"note\">TFLOP/s against M for each layer tuned at several M: the pick "
       "(orange), our best kernel where it is not the pick (blue) and cuBLAS (grey) at each "
       "measured M; dashed lines are the M buckets' boundaries "
       "(each M runs the pick measured nearest in log space).</p>";
  for (ReportRange const& r : d.ranges) {
    std::vector<ScatterPoint> points;
    double lo = 0.0, hi = 0.0;
    auto add = [&](Problem const& p, double ms, char const* cls, std::string const& what) {
      if (!(ms > 0)) return;
      double const v = tflops(p, ms);
      lo = lo == 0.0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
      points.push_back({static_cast<double>(p.m), v, cls, "M=" + std::to_string(p.m) + " " + what});
    };
    for (ReportShape const& s : r.points) {
      add(s.problem, s.pick_ms, "pick", "pick " + s.pick_id);
      if (s.own_ms > 0 && s.own_id != s.pick_id) add(s.problem, s.own_ms, "own", "own " + s.own_id);
      add(s.problem, s.cublas_ms, "cublas", "cuBLAS");
    }
    std::vector<ChartLine> lines;
    for (std::int64_t const b : r.boundaries) {
      lines.push_back({static_cast<double>(b), lo, static_cast<double>(b), hi, "boundary",
                       "M ≥ " + std::to_string(b)});
    }
    Problem const& layer = r.points.front().problem;
    o << "<div class=\"range\" data-precision=\"" << to_string(layer.precision) << "\"><h3>"
      << html_escape(layer_text(layer)) << "</h3>"
      << scatter_chart(points, lines, "M (rows of A: tokens)", "TFLOP/s", true, true) << "</div>";
  }
  o << "</section>";
}

/// A ladder stage's speed against cuBLAS, as the seeds' chart labels it.
std::string pct_of(double base_ms, double ms) {
  return base_ms > 0 && ms > 0 ? fixed(100.0 * base_ms / ms, 1) + "%" : "-";
}

std::string ladder_caption(ReportLadder const& l) { return l.problem.describe() + " on " + l.gpu; }

/// How a ladder run was timed and with what, as one line under its chart.
std::string protocol_text(ReportLadder const& l) {
  std::string out = l.protocol.empty() ? "timing protocol not recorded in the file"
                                       : "timing protocol: " + l.protocol;
  for (auto const& [k, v] : l.provenance) out += "; " + k + " " + v;
  return out;
}

void ladder_section(std::ostringstream& o, ReportData const& d) {
  o << "<section id=\"ladder\"><h2>Ladder</h2>";
  if (d.ladders.empty()) {
    o << "<p class=\"missing\">No ladder results: pass the JSON of <code>gemmtune ladder "
         "--json-out FILE</code> as <code>--ladder FILE</code>.</p></section>";
    return;
  }
  o << "<p class=\"note\">The seed ladder: each stage's TFLOP/s, with cuBLAS and "
       "cuBLASLt-autotuned timed in the same worker; the label on each bar is its speed as a "
       "percentage of cuBLAS. A stage that failed has no bar and says why in the table.</p>";
  for (ReportLadder const& l : d.ladders) {
    std::vector<std::string> groups{"cuBLAS", "cuBLASLt"};
    BarSeries bars{"seed stage", "own", {}, {}, {}, {}, {"cublas", "cublaslt"}};
    for (double ms : {l.cublas_ms, l.cublaslt_ms}) {
      bars.values.push_back(tflops(l.problem, ms));
      bars.labels.push_back(pct_of(l.cublas_ms, ms));
    }
    for (ReportLadderStage const& st : l.stages) {
      bool const ok = st.disposition == Disposition::kOk;
      groups.push_back(st.stage);
      bars.values.push_back(ok ? tflops(l.problem, st.time_ms) : 0.0);
      bars.labels.push_back(ok ? pct_of(l.cublas_ms, st.time_ms) : "");
    }
    o << "<div class=\"ladder\" data-precision=\"" << to_string(l.problem.precision) << "\"><h3>"
      << html_escape(ladder_caption(l)) << "</h3><p class=\"note\">"
      << html_escape(protocol_text(l) + "; from " + l.source) << "</p>"
      << bar_chart(groups, {bars}, "TFLOP/s");
    o << "<table class=\"ladder\"><tr><th>stage</th><th>kernel</th><th>µs</th><th>TFLOP/s</th>"
         "<th>% of cuBLAS</th><th>% of cuBLASLt</th><th>result</th></tr>";
    for (ReportLadderStage const& st : l.stages) {
      bool const ok = st.disposition == Disposition::kOk;
      o << "<tr><td>" << html_escape(st.stage) << "</td><td class=\"id\">"
        << html_escape(st.kernel) << "</td><td>" << (ok ? fixed(st.time_ms * 1e3, 1) : "-")
        << "</td><td>" << (ok ? fixed(tflops(l.problem, st.time_ms), 2) : "-") << "</td><td>"
        << (ok ? pct_of(l.cublas_ms, st.time_ms) : "-") << "</td><td>"
        << (ok ? pct_of(l.cublaslt_ms, st.time_ms) : "-") << "</td><td>"
        << html_escape(ok ? std::string("ok")
                          : std::string(to_string(st.disposition)) + ": " + st.reason)
        << "</td></tr>";
    }
    o << "</table></div>";
  }
  o << "</section>";
}

}  // namespace

std::string render_html(ReportData const& d) {
  std::ostringstream o;
  o << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
    << html_escape(d.title) << "</title><style>" << kStyle << "</style></head><body><h1>"
    << html_escape(d.title) << "</h1><p class=\"source\">Source: " << html_escape(d.source)
    << "</p>";
  if (!d.missing.empty()) {
    o << "<ul class=\"missing\">";
    for (std::string const& m : d.missing) o << "<li>" << html_escape(m) << "</li>";
    o << "</ul>";
  }
  shape_section(o, d);
  roofline_section(o, d);
  convergence_section(o, d);
  landscape_section(o, d);
  mcurves_section(o, d);
  ladder_section(o, d);
  o << "<footer id=\"provenance\"><h2>Provenance</h2><dl>";
  for (auto const& [k, v] : d.provenance) {
    o << "<dt>" << html_escape(k) << "</dt><dd>" << html_escape(v) << "</dd>";
  }
  o << "</dl>";
  if (!d.commands.empty()) {
    o << "<p>Commands that made the data:</p><ul>";
    for (std::string const& c : d.commands) o << "<li><code>" << html_escape(c) << "</code></li>";
    o << "</ul>";
  }
  o << "</footer></body></html>\n";
  return o.str();
}

std::string render_markdown(ReportData const& d) {
  std::ostringstream o;
  o << "# " << d.title << "\n\nSource: `" << d.source << "`\n\n";
  for (std::string const& m : d.missing) o << "- " << m << "\n";
  if (!d.missing.empty()) o << "\n";
  auto const lines = win_lose_lines(d);
  for (auto const& [precision, shapes] : by_precision(d)) {
    o << "## " << to_string(precision) << "\n\n" << lines.at(precision) << "\n\n";
    o << "| shape | layout | pick | µs | TFLOP/s | vs cuBLAS | vs cuBLASLt | own best | own vs "
         "best vendor |\n|---|---|---|---:|---:|---:|---:|---|---:|\n";
    for (ReportShape const* s : shapes) {
      o << "| " << s->problem.shape() << " | " << to_string(s->problem.layout) << " | `"
        << s->pick_id << "` | " << fixed(s->pick_ms * 1e3, 1) << " | "
        << fixed(tflops(s->problem, s->pick_ms), 1) << " | " << ratio_text(s->cublas_ms, s->pick_ms)
        << " | " << ratio_text(s->cublaslt_ms, s->pick_ms) << " | "
        << (s->own_id.empty() ? "-" : "`" + s->own_id + "`") << " | "
        << ratio_text(best_vendor_ms(*s), s->own_ms) << " |\n";
    }
    o << "\n";
  }
  if (d.shapes.empty()) o << "No tuned shapes in this source.\n\n";
  for (ReportRange const& r : d.ranges) {
    o << "## M curve: " << layer_text(r.points.front().problem)
      << "\n\n| M | pick | µs | TFLOP/s | vs cuBLAS | own vs best vendor |\n"
         "|---:|---|---:|---:|---:|---:|\n";
    for (ReportShape const& s : r.points) {
      o << "| " << s.problem.m << " | `" << s.pick_id << "` | " << fixed(s.pick_ms * 1e3, 1)
        << " | " << fixed(tflops(s.problem, s.pick_ms), 1) << " | "
        << ratio_text(s.cublas_ms, s.pick_ms) << " | " << ratio_text(best_vendor_ms(s), s.own_ms)
        << " |\n";
    }
    o << "\nBucket boundaries (first M of each bucket after the first):";
    for (std::int64_t const b : r.boundaries) o << " " << b;
    o << "\n\n";
  }
  for (ReportLadder const& l : d.ladders) {
    o << "## Ladder: " << ladder_caption(l) << "\n\n" << protocol_text(l) << "; from `" << l.source
      << "`. cuBLAS " << fixed(l.cublas_ms * 1e3, 1) << " µs, cuBLASLt-autotuned "
      << fixed(l.cublaslt_ms * 1e3, 1)
      << " µs.\n\n| stage | kernel | µs | TFLOP/s | % of cuBLAS | % of cuBLASLt | result |\n"
         "|---|---|---:|---:|---:|---:|---|\n";
    for (ReportLadderStage const& st : l.stages) {
      bool const ok = st.disposition == Disposition::kOk;
      o << "| " << st.stage << " | `" << st.kernel << "` | " << (ok ? fixed(st.time_ms * 1e3, 1) : "-")
        << " | " << (ok ? fixed(tflops(l.problem, st.time_ms), 2) : "-") << " | "
        << (ok ? pct_of(l.cublas_ms, st.time_ms) : "-") << " | "
        << (ok ? pct_of(l.cublaslt_ms, st.time_ms) : "-") << " | "
        << (ok ? std::string("ok") : std::string(to_string(st.disposition))) << " |\n";
    }
    o << "\n";
  }
  o << "## Provenance\n\n";
  for (auto const& [k, v] : d.provenance) o << "- " << k << ": " << v << "\n";
  for (std::string const& c : d.commands) o << "- command: `" << c << "`\n";
  return o.str();
}

}  // namespace gemmtune
