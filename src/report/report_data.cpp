// The report's data helpers: shape matching, the M curves, and the ceilings the report knows
// without a measurement of its own.
#include "src/report/report_data.hpp"

#include <algorithm>
#include <tuple>

#include "src/core/tuning_table.hpp"

namespace gemmtune {

bool same_shape(Problem const& a, Problem const& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.precision == b.precision &&
         a.layout == b.layout;
}

bool report_wants(ReportQuery const& q, Problem const& p) {
  if (q.precision && p.precision != *q.precision) return false;
  if (q.shapes.empty()) return true;
  return std::any_of(q.shapes.begin(), q.shapes.end(),
                     [&](Problem const& s) { return same_shape(s, p); });
}

std::vector<ReportRange> report_ranges(std::vector<ReportShape> const& shapes) {
  std::map<std::tuple<std::int64_t, std::int64_t, Precision, Layout, int>, ReportRange> layers;
  for (ReportShape const& s : shapes) {
    Problem const& p = s.problem;
    layers[{p.n, p.k, p.precision, p.layout, p.align}].points.push_back(s);
  }
  std::vector<ReportRange> out;
  for (auto& [key, r] : layers) {
    if (r.points.size() < 2) continue;
    std::sort(r.points.begin(), r.points.end(),
              [](ReportShape const& a, ReportShape const& b) { return a.problem.m < b.problem.m; });
    std::vector<std::int64_t> ms;
    for (ReportShape const& s : r.points) ms.push_back(s.problem.m);
    std::vector<TableRangeBucket> const buckets = range_buckets(ms);
    for (std::size_t i = 1; i < buckets.size(); ++i) r.boundaries.push_back(buckets[i].m_lo);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<ReportCeilings> known_ceilings(std::string const& gpu_name, int sm_count) {
  // The H200 only: its copy bandwidth is a figure measured here; other GPUs get no ceilings
  // rather than guessed ones.
  if (gpu_name.find("H200") == std::string::npos || sm_count <= 0) return std::nullopt;
  // Dense rates per SM and clock (fp32 256 FLOP, tf32 1893, fp16/bf16 3786) at the 1980 MHz
  // boost clock: with 132 SMs the datasheet's 66.9 / 494.7 / 989.4 TFLOP/s.
  double const scale = sm_count / 132.0;
  ReportCeilings c;
  c.peak_tflops = {{Precision::kFP32, 66.9 * scale},
                   {Precision::kTF32, 494.7 * scale},
                   {Precision::kFP16, 989.4 * scale},
                   {Precision::kBF16, 989.4 * scale}};
  c.copy_gbps = 4270.0;
  c.source = "dense tensor-core and FP32 peaks of the datasheet at the 1980 MHz boost clock for " +
             std::to_string(sm_count) +
             " SMs; copy bandwidth 4270 GB/s, the device-to-device copy (read + write) the bench "
             "write-ups measure against (bench/summarize.py). Neither is measured by the report "
             "itself.";
  return c;
}

}  // namespace gemmtune
