// Reading a tuning table into report data.
#include "src/report/table_report.hpp"

namespace gemmtune {

ReportData report_from_table(TuningTable const& table, ReportQuery const& query,
                             std::string const& source) {
  ReportData d;
  d.source = source;
  int gpu_id = -1;
  for (TableEntry const& e : table.entries) {
    if (!report_wants(query, e.problem)) continue;
    if (gpu_id < 0) gpu_id = e.gpu;
    if (e.gpu != gpu_id) continue;
    ReportShape s;
    s.problem = e.problem;
    s.pick_id = e.kernel.id();
    s.pick_vendor = e.vendor();
    s.pick_ms = e.time_ms;
    if (e.spread && e.spread->rounds >= 2) {
      s.pick_lo_ms = e.spread->lo_ms;
      s.pick_hi_ms = e.spread->hi_ms;
    }
    if (!e.vendor()) {
      s.own_id = s.pick_id;
      s.own_ms = e.time_ms;
    } else if (e.own) {
      s.own_id = e.own->kernel.id();
      s.own_ms = e.own->time_ms;
    }
    s.cublas_ms = e.cublas_ms.value_or(0.0);
    s.cublaslt_ms = e.cublaslt_ms.value_or(0.0);
    d.shapes.push_back(std::move(s));
  }
  d.ranges = report_ranges(d.shapes);
  if (TableGpu const* g = gpu_id >= 0 ? table.find_gpu(gpu_id) : nullptr) {
    d.gpu = g->gpu.name;
    d.ceilings = known_ceilings(g->gpu.name, g->gpu.sm_count);
    for (TableGpu const& other : table.gpus) {
      if (other.id != gpu_id) {
        d.missing.push_back("the table also holds entries for " + other.gpu.describe() +
                            "; this report shows " + g->gpu.describe() + " only");
      }
    }
  }
  d.title = "gemmtune report" + (d.gpu.empty() ? std::string() : ": " + d.gpu);
  if (d.shapes.empty()) d.missing.push_back("no entry of the table matches the shapes asked for");
  d.missing.push_back("a table holds each shape's pick only: no search convergence or landscape "
                      "(report a cache with --db for those)");
  d.provenance["table written"] = table.generated_at;
  d.provenance["table written by gemmtune"] = table.gemmtune_version;
  d.provenance["report written by gemmtune"] = std::string(gemmtune_version());
  return d;
}

}  // namespace gemmtune
