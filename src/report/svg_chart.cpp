// Drawing of the report's charts: scales, ticks, marks, written as SVG text.
#include "src/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace gemmtune {
namespace {

constexpr int kLeft = 64, kRight = 16, kTop = 16, kBottom = 72;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

/// A tick label: short, no trailing zeros.
std::string tick_text(double v) {
  char buf[32];
  double const a = std::fabs(v);
  if (a >= 1e4 || (a > 0 && a < 1e-2)) {
    std::snprintf(buf, sizeof(buf), "%.0e", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%g", v);
  }
  return buf;
}

/// Maps data to pixels on one axis, linear or logarithmic, with its ticks.
struct Scale {
  double lo = 0.0, hi = 1.0;
  double p0 = 0.0, p1 = 1.0;  ///< pixel ends (p0 ↔ lo)
  bool log = false;

  double operator()(double v) const {
    double const a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    double const t = ((log ? std::log10(v) : v) - a) / (b - a);
    return p0 + t * (p1 - p0);
  }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double d = std::floor(std::log10(lo)); d <= std::ceil(std::log10(hi)); d += 1.0) {
        double const v = std::pow(10.0, d);
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push_back(v);
      }
      return out;
    }
    double const span = hi - lo;
    double step = std::pow(10.0, std::floor(std::log10(span / 5.0)));
    if (span / step > 10) step *= 2;
    if (span / step > 10) step *= 2.5;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
    return out;
  }
};

/// A scale over the values (positive only when log), padded; [0, max] when linear from zero.
Scale make_scale(std::vector<double> const& values, bool log, bool from_zero, double p0, double p1) {
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  for (double v : values) {
    if (!std::isfinite(v) || (log && v <= 0.0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  Scale s;
  s.log = log;
  s.p0 = p0;
  s.p1 = p1;
  if (lo > hi) {  // nothing to show
    lo = log ? 1.0 : 0.0;
    hi = log ? 10.0 : 1.0;
  }
  if (log) {
    s.lo = std::pow(10.0, std::floor(std::log10(lo)));
    s.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (s.hi <= s.lo) s.hi = s.lo * 10.0;
  } else {
    if (hi == lo && !from_zero) {  // one value: centred, not at the edge of a hair-thin range
      lo -= 1.0;
      hi += 1.0;
    }
    s.lo = from_zero ? std::min(0.0, lo) : lo - 0.05 * (hi - lo);
    s.hi = hi + 0.08 * (hi - lo > 0 ? hi - lo : std::max(1.0, std::fabs(hi)));
    if (s.hi <= s.lo) s.hi = s.lo + 1.0;
  }
  return s;
}

/// The frame, the ticks and the axis labels of a chart.
void axes(std::ostringstream& o, Scale const& x, Scale const& y, std::string const& x_label,
          std::string const& y_label, int width, int height, bool x_ticks) {
  o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << height - kBottom << "\" x2=\""
    << width - kRight << "\" y2=\"" << height - kBottom << "\"/>";
  o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft
    << "\" y2=\"" << height - kBottom << "\"/>";
  for (double v : y.ticks()) {
    double const py = y(v);
    o << "<line class=\"grid\" x1=\"" << kLeft << "\" y1=\"" << num(py) << "\" x2=\""
      << width - kRight << "\" y2=\"" << num(py) << "\"/><text class=\"tick\" x=\"" << kLeft - 6
      << "\" y=\"" << num(py + 4) << "\" text-anchor=\"end\">" << tick_text(v) << "</text>";
  }
  if (x_ticks) {
    for (double v : x.ticks()) {
      double const px = x(v);
      o << "<text class=\"tick\" x=\"" << num(px) << "\" y=\"" << height - kBottom + 16
        << "\" text-anchor=\"middle\">" << tick_text(v) << "</text>";
    }
  }
  o << "<text class=\"axis-label\" x=\"" << (kLeft + width - kRight) / 2 << "\" y=\""
    << height - 8 << "\" text-anchor=\"middle\">" << html_escape(x_label) << "</text>";
  o << "<text class=\"axis-label\" transform=\"translate(14," << (kTop + height - kBottom) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << html_escape(y_label) << "</text>";
}

void draw_lines(std::ostringstream& o, std::vector<ChartLine> const& lines, Scale const& x,
                Scale const& y) {
  for (ChartLine const& l : lines) {
    if ((x.log && (l.x0 <= 0 || l.x1 <= 0)) || (y.log && (l.y0 <= 0 || l.y1 <= 0))) continue;
    o << "<line class=\"ceiling " << html_escape(l.css_class) << "\" x1=\"" << num(x(l.x0))
      << "\" y1=\"" << num(y(l.y0)) << "\" x2=\"" << num(x(l.x1)) << "\" y2=\"" << num(y(l.y1))
      << "\"/>";
    if (!l.label.empty()) {
      o << "<text class=\"line-label\" x=\"" << num(x(l.x1) - 4) << "\" y=\"" << num(y(l.y1) - 4)
        << "\" text-anchor=\"end\">" << html_escape(l.label) << "</text>";
    }
  }
}

/// The opening tag of a chart: its kind and mark count for readers that check what was drawn.
void open_svg(std::ostringstream& o, char const* kind, int marks, int width, int height) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-kind=\"" << kind
    << "\" data-marks=\"" << marks << "\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << ' ' << height << "\">";
}

/// The lines' ends join the data the scales must cover.
void add_line_extents(std::vector<ChartLine> const& lines, std::vector<double>& xs,
                      std::vector<double>& ys) {
  for (ChartLine const& l : lines) {
    xs.insert(xs.end(), {l.x0, l.x1});
    ys.insert(ys.end(), {l.y0, l.y1});
  }
}

/// A chart with both axes ticked: frame, ticks and labels, then its lines, then its marks.
std::string plotted_chart(char const* kind, int marks, int width, int height, Scale const& x,
                          Scale const& y, std::string const& x_label, std::string const& y_label,
                          std::vector<ChartLine> const& lines, std::string const& marks_svg) {
  std::ostringstream o;
  open_svg(o, kind, marks, width, height);
  axes(o, x, y, x_label, y_label, width, height, true);
  draw_lines(o, lines, x, y);
  o << marks_svg << "</svg>";
  return o.str();
}

}  // namespace

std::string html_escape(std::string const& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string bar_chart(std::vector<std::string> const& groups, std::vector<BarSeries> const& series,
                      std::string const& y_label) {
  int const per_group = std::max<int>(1, static_cast<int>(series.size()));
  int const group_w = 18 * per_group + 24;
  int const width = kLeft + kRight + std::max(240, group_w * static_cast<int>(groups.size()));
  int const height = 360;
  std::vector<double> values{0.0};
  for (BarSeries const& s : series) {
    values.insert(values.end(), s.values.begin(), s.values.end());
    values.insert(values.end(), s.hi.begin(), s.hi.end());
  }
  // Room above the tallest bar for its rotated label and the legend.
  bool const labelled = std::any_of(series.begin(), series.end(),
                                    [](BarSeries const& s) { return !s.labels.empty(); });
  if (labelled) values.push_back(1.25 * *std::max_element(values.begin(), values.end()));
  Scale const y = make_scale(values, false, true, height - kBottom, kTop);
  Scale x;  // unused for ticks; groups are placed by index
  std::ostringstream o;
  int marks = 0;
  std::ostringstream body;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    int const gx = kLeft + static_cast<int>(g) * group_w + 12;
    for (std::size_t si = 0; si < series.size(); ++si) {
      BarSeries const& s = series[si];
      if (g >= s.values.size() || !(s.values[g] > 0.0)) continue;
      double const top = y(s.values[g]), base = y(0.0);
      int const bx = gx + static_cast<int>(si) * 18;
      std::string const& cls = g < s.classes.size() && !s.classes[g].empty() ? s.classes[g] : s.css_class;
      body << "<rect class=\"bar " << html_escape(cls) << "\" x=\"" << bx << "\" y=\""
           << num(top) << "\" width=\"16\" height=\"" << num(base - top) << "\"><title>"
           << html_escape(s.name + " · " + groups[g] + ": " + tick_text(s.values[g]))
           << "</title></rect>";
      ++marks;
      if (g < s.lo.size() && g < s.hi.size() && s.lo[g] > 0 && s.hi[g] > 0) {
        body << "<line class=\"whisker\" x1=\"" << bx + 8 << "\" y1=\"" << num(y(s.lo[g]))
             << "\" x2=\"" << bx + 8 << "\" y2=\"" << num(y(s.hi[g])) << "\"/>";
      }
      if (g < s.labels.size() && !s.labels[g].empty()) {
        body << "<text class=\"bar-label\" transform=\"translate(" << bx + 11 << ","
             << num(top - 4) << ") rotate(-90)\">" << html_escape(s.labels[g]) << "</text>";
      }
    }
    body << "<text class=\"group-label\" transform=\"translate(" << gx + 9 * per_group << ","
         << height - kBottom + 10 << ") rotate(35)\">" << html_escape(groups[g]) << "</text>";
  }
  open_svg(o, "bars", marks, width, height);
  axes(o, x, y, "", y_label, width, height, false);
  o << body.str();
  int lx = kLeft + 8;
  for (BarSeries const& s : series) {
    o << "<rect class=\"legend " << html_escape(s.css_class) << "\" x=\"" << lx << "\" y=\"" << kTop
      << "\" width=\"10\" height=\"10\"/><text class=\"legend-text\" x=\"" << lx + 14 << "\" y=\""
      << kTop + 9 << "\">" << html_escape(s.name) << "</text>";
    lx += 14 + 8 * static_cast<int>(s.name.size()) + 16;
  }
  o << "</svg>";
  return o.str();
}

std::string scatter_chart(std::vector<ScatterPoint> const& points,
                          std::vector<ChartLine> const& lines, std::string const& x_label,
                          std::string const& y_label, bool log_x, bool log_y, int width,
                          int height) {
  std::vector<double> xs, ys;
  for (ScatterPoint const& p : points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  add_line_extents(lines, xs, ys);
  Scale const x = make_scale(xs, log_x, false, kLeft, width - kRight);
  Scale const y = make_scale(ys, log_y, !log_y, height - kBottom, kTop);
  std::ostringstream body;
  int marks = 0;
  for (ScatterPoint const& p : points) {
    if ((log_x && p.x <= 0) || (log_y && p.y <= 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) {
      continue;
    }
    body << "<circle class=\"point " << html_escape(p.css_class) << "\" cx=\"" << num(x(p.x))
         << "\" cy=\"" << num(y(p.y)) << "\" r=\"4\"><title>" << html_escape(p.title)
         << "</title></circle>";
    ++marks;
  }
  return plotted_chart("scatter", marks, width, height, x, y, x_label, y_label, lines, body.str());
}

std::string line_chart(std::vector<LineSeries> const& series, std::vector<ChartLine> const& lines,
                       std::string const& x_label, std::string const& y_label, bool log_y,
                       int width, int height) {
  std::vector<double> xs, ys;
  for (LineSeries const& s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  add_line_extents(lines, xs, ys);
  Scale const x = make_scale(xs, false, true, kLeft, width - kRight);
  Scale const y = make_scale(ys, log_y, false, height - kBottom, kTop);
  std::ostringstream body;
  int marks = 0;
  for (LineSeries const& s : series) {
    std::ostringstream pts;
    std::size_t const n = std::min(s.x.size(), s.y.size());
    int drawn = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.y[i]) || (log_y && s.y[i] <= 0)) continue;
      pts << num(x(s.x[i])) << ',' << num(y(s.y[i])) << ' ';
      ++drawn;
    }
    if (drawn == 0) continue;
    body << "<polyline class=\"curve " << html_escape(s.css_class) << "\" points=\"" << pts.str()
         << "\"><title>" << html_escape(s.title) << "</title></polyline>";
    ++marks;
  }
  return plotted_chart("lines", marks, width, height, x, y, x_label, y_label, lines, body.str());
}

}  // namespace gemmtune
