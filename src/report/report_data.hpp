// What a report shows, gathered from a cache or a table before any drawing: per-shape figures,
// search convergence, one landscape, the device's ceilings and provenance. Plain data, no CUDA,
// SQLite or HTML; the store side fills it (db/report_source), the renderers draw it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/device_report.hpp"
#include "src/core/disposition.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// One tuned problem: the pick, our own best, and both vendor figures of the same rounds.
struct ReportShape {
  Problem problem;
  std::string pick_id;
  bool pick_vendor = false;
  double pick_ms = 0.0;
  double pick_lo_ms = 0.0;  ///< spread of the pick's rounds (0: none recorded)
  double pick_hi_ms = 0.0;
  std::string own_id;       ///< empty when no kernel of ours was verified
  double own_ms = 0.0;
  double cublas_ms = 0.0;   ///< 0: not timed
  double cublaslt_ms = 0.0;
};

/// One search of one problem: best-so-far of our kernels over its evaluations, in record order.
struct ReportCurve {
  std::int64_t search_id = 0;
  Problem problem;
  std::vector<double> best_ms;    ///< after each evaluation (ok or not)
  std::vector<double> elapsed_s;  ///< seconds from the search's first trial, per evaluation
  double optimum_ms = 0.0;        ///< fastest figure of a stored exhaustive search, 0 if none
};

/// One config of a family measured on the landscape's problem.
struct ReportPoint {
  std::map<std::string, std::int64_t> params;
  Disposition disposition = Disposition::kOk;
  double time_ms = 0.0;  ///< 0 unless ok
};

/// Time against each parameter of one family for one problem.
struct ReportLandscape {
  Problem problem;
  std::string family;
  std::vector<std::string> params;  ///< in the family's id order
  std::vector<ReportPoint> points;
  std::int64_t total = 0;           ///< configs measured; > points.size() when sampled
};

/// Compute ceilings and copy bandwidth for the roofline, with where they come from.
struct ReportCeilings {
  std::map<Precision, double> peak_tflops;
  double copy_gbps = 0.0;
  std::string source;  ///< shown under the chart
};

/// An M curve: the tuned shapes of one layer (N, K, precision, layout and alignment class) at
/// two or more M, ascending, with the first M of each of the table's M buckets after the first
/// (the bucket boundaries as the export draws them: range_buckets).
struct ReportRange {
  std::vector<ReportShape> points;
  std::vector<std::int64_t> boundaries;
};

/// The M curves of these shapes: every layer tuned at two or more M.
std::vector<ReportRange> report_ranges(std::vector<ReportShape> const& shapes);

/// One stage of a `gemmtune ladder` run.
struct ReportLadderStage {
  std::string stage;   ///< "1 naive", ...
  std::string kernel;  ///< canonical id
  Disposition disposition = Disposition::kOk;
  std::string reason;  ///< empty when ok
  double time_ms = 0.0;  ///< 0 unless ok
};

/// A `gemmtune ladder` run (its --json-out file): the seed stages on one problem, each against
/// cuBLAS and cuBLASLt-autotuned timed in the same worker.
struct ReportLadder {
  std::string source;  ///< the file
  std::string gpu;
  Problem problem;
  double cublas_ms = 0.0;
  double cublaslt_ms = 0.0;
  std::string protocol;  ///< timing protocol as the file records it; empty: not recorded
  std::map<std::string, std::string> provenance;  ///< driver, CUDA runtime, cuBLAS, gemmtune
  std::vector<ReportLadderStage> stages;
};

struct ReportData {
  std::string title;
  std::string gpu;                    ///< name
  std::vector<ReportShape> shapes;
  std::vector<ReportCurve> curves;
  std::int64_t curves_total = 0;      ///< searches with trials; > curves.size() when capped
  std::optional<ReportLandscape> landscape;
  std::vector<ReportRange> ranges;    ///< M curves (report_ranges of the shapes)
  std::optional<ReportCeilings> ceilings;
  std::vector<ReportLadder> ladders;  ///< from --ladder files
  std::map<std::string, std::string> provenance;  ///< label -> value (driver, CUDA, ...)
  std::vector<std::string> commands;  ///< what made the data (search arguments)
  std::vector<std::string> missing;   ///< what the source lacks, said on the page
  std::string source;                 ///< the cache or table path
};

/// Which part of a cache or table to report, and the caps that keep a large one readable.
struct ReportQuery {
  std::vector<Problem> shapes;           ///< empty: every tuned shape (m, n, k, precision, layout)
  std::optional<Precision> precision;    ///< only this precision
  std::optional<Problem> landscape;      ///< the landscape's shape (default: the most measured)
  std::size_t max_curves = 24;           ///< newest searches drawn
  std::size_t max_landscape_points = 2000;
};

/// Whether two problems are the same shape: M, N, K, precision and layout (any alignment).
bool same_shape(Problem const& a, Problem const& b);

/// Whether `p` is one of the query's shapes (or the query names none) and of its precision.
bool report_wants(ReportQuery const& q, Problem const& p);

/// Dense peak TFLOP/s per precision and copy bandwidth of a GPU known by name (H100/H200: the
/// rates per SM at the 1980 MHz boost clock), or nullopt: the roofline then has no ceilings.
std::optional<ReportCeilings> known_ceilings(std::string const& gpu_name, int sm_count);

/// The ceilings to draw: each measured one (`devices --ceilings`, newest per kind) in place of
/// the known figure of its kind, the rest as known; the source says which is which and how each
/// was measured. nullopt when neither has anything.
std::optional<ReportCeilings> with_measured_ceilings(std::optional<ReportCeilings> known,
                                                     std::vector<DeviceCeiling> const& measured);

}  // namespace gemmtune
