// Inline SVG charts for the report: grouped bars with whiskers, log-log scatter with ceiling
// lines, step lines, and small multiples. Every mark carries a class (bar, point, curve) and every
// chart a data-kind and data-marks attribute, so a test can count what was drawn.
#pragma once

#include <string>
#include <vector>

namespace gemmtune {

/// One series of a grouped bar chart: a value per group (≤ 0: no bar), optional whiskers.
struct BarSeries {
  std::string name;                 ///< legend
  std::string css_class;            ///< colour class (own, pick, cublas, cublaslt)
  std::vector<double> values;       ///< one per group
  std::vector<double> lo, hi;       ///< whisker ends per group (empty: none)
  std::vector<std::string> labels;  ///< text above each bar (empty: none)
  std::vector<std::string> classes; ///< per-group colour class instead of css_class (empty: none)
};

/// Grouped vertical bars, one group per label, linear y from 0.
std::string bar_chart(std::vector<std::string> const& groups, std::vector<BarSeries> const& series,
                      std::string const& y_label);

/// A point of a scatter chart.
struct ScatterPoint {
  double x = 0.0, y = 0.0;
  std::string css_class;
  std::string title;  ///< tooltip
};

/// A straight segment in data coordinates (a roofline ceiling, an optimum).
struct ChartLine {
  double x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0;
  std::string css_class;
  std::string label;
};

/// Scatter with optional lines; log scales where asked (values ≤ 0 are left out there).
std::string scatter_chart(std::vector<ScatterPoint> const& points,
                          std::vector<ChartLine> const& lines, std::string const& x_label,
                          std::string const& y_label, bool log_x, bool log_y, int width = 640,
                          int height = 360);

/// One polyline of a line chart.
struct LineSeries {
  std::vector<double> x, y;
  std::string css_class;
  std::string title;
};

/// Lines (step-free polylines) with optional horizontal or other straight lines.
std::string line_chart(std::vector<LineSeries> const& series, std::vector<ChartLine> const& lines,
                       std::string const& x_label, std::string const& y_label, bool log_y,
                       int width = 640, int height = 320);

/// Text escaped for HTML and SVG content and attributes.
std::string html_escape(std::string const& s);

}  // namespace gemmtune
