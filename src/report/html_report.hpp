// The report as one self-contained HTML page (inline SVG and CSS, no script, no network) or as
// Markdown with the same tables. Sections: shapes, roofline, convergence, landscape, M curves,
// ladder, provenance; a section without data says what is missing instead.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "src/report/report_data.hpp"

namespace gemmtune {

/// Shapes drawn per precision in the bar chart; the table below it lists them all.
inline constexpr std::size_t kReportMaxBars = 60;

/// The HTML page.
std::string render_html(ReportData const& data);

/// The Markdown summary: the per-shape tables and the where-we-win lines of each precision.
std::string render_markdown(ReportData const& data);

/// For each precision, one line: where our own kernels beat the best vendor figure and where
/// they trail it (the reader's question the report answers first).
std::map<Precision, std::string> win_lose_lines(ReportData const& data);

}  // namespace gemmtune
