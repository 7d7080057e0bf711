// The report's data helpers: shape matching, the M curves, and the ceilings the report knows
// without a measurement of its own.
#include "src/report/report_data.hpp"

#include <algorithm>
#include <ctime>
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
  // Dense rates per SM and clock (fp32 256 FLOP, tf32 1893, fp16/bf16 3786, FP8 7572) at the
  // 1980 MHz boost clock: with 132 SMs the datasheet's 66.9 / 494.7 / 989.4 / 1978.9 TFLOP/s.
  double const scale = sm_count / 132.0;
  ReportCeilings c;
  c.peak_tflops = {{Precision::kFP32, 66.9 * scale},
                   {Precision::kTF32, 494.7 * scale},
                   {Precision::kFP16, 989.4 * scale},
                   {Precision::kBF16, 989.4 * scale}};
  for (Precision p : kAllPrecisions) {
    if (is_fp8(p)) c.peak_tflops[p] = 1978.9 * scale;
  }
  c.copy_gbps = 4270.0;
  c.source = "dense tensor-core and FP32 peaks of the datasheet at the 1980 MHz boost clock for " +
             std::to_string(sm_count) +
             " SMs; copy bandwidth 4270 GB/s, the device-to-device copy (read + write) the bench "
             "write-ups measure against (bench/summarize.py). Neither is measured by the report "
             "itself.";
  return c;
}

std::optional<ReportCeilings> with_measured_ceilings(std::optional<ReportCeilings> known,
                                                     std::vector<DeviceCeiling> const& measured) {
  if (measured.empty()) return known;
  ReportCeilings out;
  std::string kept;  // known figures no measurement replaced
  std::string measured_text;
  std::int64_t newest = 0;
  for (DeviceCeiling const& c : measured) {
    std::string const what = c.precision ? std::string(to_string(*c.precision)) : "copy";
    measured_text += (measured_text.empty() ? "" : "; ") + what + ": " + c.method;
    newest = std::max(newest, c.measured_at);
    if (c.precision) {
      out.peak_tflops[*c.precision] = c.value;
    } else {
      out.copy_gbps = c.value;
    }
  }
  if (known) {
    for (auto const& [p, v] : known->peak_tflops) {
      if (out.peak_tflops.emplace(p, v).second) kept += (kept.empty() ? "" : ", ") + std::string(to_string(p));
    }
    if (out.copy_gbps <= 0.0 && known->copy_gbps > 0.0) {
      out.copy_gbps = known->copy_gbps;
      kept += (kept.empty() ? "" : ", ") + std::string("copy");
    }
  }
  char when[32] = "";
  std::time_t const t = static_cast<std::time_t>(newest);
  std::tm tm{};
  if (newest > 0 && gmtime_r(&t, &tm) != nullptr) std::strftime(when, sizeof(when), " on %Y-%m-%d", &tm);
  out.source = std::string("measured on this device by `gemmtune devices --ceilings`") + when +
               " (" + measured_text + ")";
  if (!kept.empty()) out.source += ". Not measured, so as known for this GPU (" + kept + "): " + known->source;
  return out;
}

}  // namespace gemmtune
