// The messages between the search (parent) and a GPU worker: what to evaluate, and what came
// back. Plain data with JSON forms, so the worker protocol carries them without knowing them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/disposition.hpp"
#include "src/core/kernel_abi.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/power_figures.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// How the timed launches reach the GPU (DESIGN.md §5).
enum class TimingProtocol {
  /// The figure of record: the launches captured in a CUDA graph and replayed, so the GPU time
  /// per launch carries no host launch cost (as serving stacks run GEMMs).
  kGraph,
  /// Back-to-back launches on a stream, as a program without graphs runs them: a kernel shorter
  /// than the host's cost per call is timed at that cost.
  kStream,
};

/// "graph" or "stream".
std::string_view to_string(TimingProtocol p);
/// The protocol named `text`; throws UsageError naming the choices otherwise.
TimingProtocol parse_timing_protocol(std::string_view text);

/// Timing protocol knobs (DESIGN.md §5): warm-up by time, iterations sized to a target
/// duration, median of repeats, buffer sets rotated past `rotate_bytes`.
struct TimingSpec {
  double warmup_ms = 20.0;
  double target_ms = 25.0;   ///< per repeat
  int repeats = 7;
  int max_iterations = 10000;
  std::int64_t rotate_bytes = 0;  ///< 0 = 2 × the device's L2
  /// Stop timing early when the first repeat is slower than this (ms per launch); 0 = never.
  double early_stop_ms = 0.0;
  TimingProtocol protocol = TimingProtocol::kGraph;
  bool operator==(TimingSpec const&) const = default;
};

/// Evaluate one compiled candidate on one problem: verify, time, re-verify.
struct EvalJob {
  Problem problem;           ///< resolved (align filled in)
  std::string kernel_id;     ///< canonical id, for logs
  std::string cubin_path;    ///< the compiled candidate, in the cubin cache
  LaunchPlan plan;
  std::uint64_t seed = 1;
  TimingSpec timing;
  bool exact_check = true;   ///< small-integer exact pass (fp32 only)
  float alpha = 1.0f;
  float beta = 0.0f;
};

/// What came back from an EvalJob.
struct EvalResult {
  Disposition disposition = Disposition::kSkipped;
  std::string reason;         ///< empty for kOk
  double median_ms = 0.0;     ///< per launch of the whole plan, median of the repeats
  double min_ms = 0.0;        ///< fastest repeat
  double max_ms = 0.0;        ///< slowest repeat
  /// How the repeats were launched (median/min/max are GPU time without host launch cost
  /// under kGraph).
  TimingProtocol protocol = TimingProtocol::kGraph;
  double host_us_per_call = 0.0;  ///< host time of one launch of the plan, apart from the GPU
  int iterations = 0;         ///< per repeat
  int repeats = 0;
  double max_abs_err = 0.0;   ///< tolerance pass: largest |C − R|
  double max_err_ratio = 0.0; ///< tolerance pass: largest |C − R| / bound (≤ 1 passes)
  double rel_fro_err = 0.0;   ///< ‖C − R‖_F / ‖R‖_F
  std::int64_t exact_mismatches = 0;  ///< exact pass: elements that differ
  int cuda_error = 0;         ///< the CUDA error code behind a fault or launch error
  int registers = 0;          ///< from cudaFuncGetAttributes of the first launch
  int local_bytes = 0;        ///< local memory per thread (spills or stack)
  int static_smem = 0;
  /// The sensors over the timed repeats; only in the JSON when read.
  PowerFigures power;
  /// The worker's steps with their wall times in ms, in order ("load", "timing", ...); only in
  /// the JSON when present, and absent from older workers' answers.
  std::vector<std::pair<std::string, double>> steps;
};

/// Time cuBLAS for a problem with the same protocol: the default call and the best of
/// cuBLASLt's candidate algorithms (src/gpu/cublaslt_autotune.hpp), or one given algorithm.
struct BaselineJob {
  Problem problem;
  std::uint64_t seed = 1;
  TimingSpec timing;
  /// A cublaslt kernel id: time exactly that algorithm instead of choosing one (the rounds of a
  /// final re-time time the algorithm the search chose). Empty: choose.
  std::string cublaslt_kernel;
  /// Verify the default call and the cuBLASLt algorithm against the reference (a tolerance pass
  /// on the seeded normal inputs, as every candidate's first run), so both may be candidates.
  bool verify = false;
};

/// Time a device-to-device copy of `bytes` by the same protocol: the copy bandwidth the
/// report's roofline draws (DESIGN.md §5 timing; far larger than L2, so it is DRAM's rate).
struct CopyJob {
  std::int64_t bytes = std::int64_t{1} << 30;
  TimingSpec timing;
};

/// What came back from a CopyJob.
struct CopyResult {
  bool ok = false;
  std::string reason;    ///< empty when ok
  std::int64_t bytes = 0;
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;  ///< per copy
  TimingProtocol protocol = TimingProtocol::kGraph;
  /// Bytes moved per second at the median, reads and writes both counted (2 × bytes).
  double gbps() const { return median_ms > 0 ? 2.0 * static_cast<double>(bytes) / (median_ms * 1e6) : 0.0; }
};

/// A cuBLASLt algorithm a verified baseline passed over: faster in the short timings than the
/// one it names, but wrong by the tolerance pass.
struct VendorRejection {
  std::string kernel;  ///< canonical cublaslt id
  double err_ratio = 0.0;
  std::string reason;
};

struct BaselineResult {
  bool ok = false;
  std::string reason;
  double cublas_ms = 0.0;       ///< default cublasGemmEx call, median
  double cublaslt_ms = 0.0;     ///< the chosen (or given) cuBLASLt algorithm, median
  int cublaslt_algo_index = -1; ///< which candidate won (0-based; heuristic results first)
  int cublaslt_algos_tried = 0;
  /// The cuBLASLt algorithm timed, as a canonical cublaslt kernel id ("" when none ran).
  std::string cublaslt_kernel;
  /// When cuBLASLt's algorithms were chosen among: the next fastest of their short timings
  /// (canonical ids, fastest first), which a final re-time times beside the chosen one.
  std::vector<std::string> cublaslt_runners_up;
  /// With BaselineJob::verify: each vendor call's tolerance pass against the reference (kOk or
  /// kWrongResult; kSkipped when not run), with its worst error ratio and, when wrong, why.
  Disposition cublas_verdict = Disposition::kSkipped;
  Disposition cublaslt_verdict = Disposition::kSkipped;
  double cublas_err_ratio = 0.0;
  double cublaslt_err_ratio = 0.0;
  std::string verdict_reason;
  /// Faster cuBLASLt algorithms that failed the tolerance pass before cublaslt_kernel passed
  /// it (or, when none passed, before the last one tried), fastest first.
  std::vector<VendorRejection> cublaslt_rejected;
  double cublas_min_ms = 0.0, cublas_max_ms = 0.0;      ///< fastest and slowest repeat
  double cublaslt_min_ms = 0.0, cublaslt_max_ms = 0.0;  ///< of the winning algorithm
  double cublas_host_us = 0.0;    ///< host time of one cublasGemmEx call, apart from the GPU
  double cublaslt_host_us = 0.0;  ///< host time of one cublasLtMatmul call
  TimingProtocol protocol = TimingProtocol::kGraph;
  PowerFigures cublas_power;    ///< the sensors over the default call's repeats, when read
  PowerFigures cublaslt_power;  ///< the sensors over the winning algorithm's repeats, when read
};

/// The final re-time of a search's best candidates (DESIGN.md §5): the candidates, the default
/// cuBLAS call and one cuBLASLt algorithm timed in one worker, after a settle, their repeats
/// taken in turn in rounds of rotated order (src/gpu/timing_protocol.hpp, time_interleaved).
struct RetimeJob {
  /// One problem and seed; each verified before its rounds and after them (the tolerance pass).
  std::vector<EvalJob> candidates;
  /// The problem, seed and timing spec of the rounds; cublaslt_kernel the algorithm to time
  /// beside the default call ("" = the default call alone).
  BaselineJob baselines;
  int rounds = 6;
  /// Untimed repeats of the entries in turn before the first round, so the rounds start on a
  /// board under load rather than on an idle board's boost.
  double settle_ms = 1000.0;
};

/// What came back from a RetimeJob; every figure is per launch.
struct RetimeResult {
  /// In the job's order: the verdict, and median_ms the median of the round figures, min_ms and
  /// max_ms the fastest and slowest repeat.
  std::vector<EvalResult> candidates;
  /// Per candidate, its figure in each round (median of the round's repeats); fewer than the
  /// job's rounds when it dropped out or the re-time was stopped.
  std::vector<std::vector<double>> candidate_rounds_ms;
  /// ok when the default call ran every round; the same figures as a BaselineJob's.
  BaselineResult baselines;
  std::vector<double> cublas_rounds_ms;
  std::vector<double> cublaslt_rounds_ms;
  /// The board during each round (mean SM clock and power of the readings taken while it ran,
  /// its highest temperature), when the sensors were read.
  std::vector<PowerFigures> round_board;
};

void to_json(nlohmann::json& j, TimingSpec const& v);
void from_json(nlohmann::json const& j, TimingSpec& v);
void to_json(nlohmann::json& j, EvalJob const& v);
void from_json(nlohmann::json const& j, EvalJob& v);
void to_json(nlohmann::json& j, EvalResult const& v);
void from_json(nlohmann::json const& j, EvalResult& v);
void to_json(nlohmann::json& j, BaselineJob const& v);
void from_json(nlohmann::json const& j, BaselineJob& v);
void to_json(nlohmann::json& j, BaselineResult const& v);
void from_json(nlohmann::json const& j, BaselineResult& v);
/// The faster of the default cuBLAS call (when it was timed) and the cuBLASLt algorithm; 0 when
/// neither was.
double fastest_vendor_ms(BaselineResult const& b);

void to_json(nlohmann::json& j, CopyJob const& v);
void from_json(nlohmann::json const& j, CopyJob& v);
void to_json(nlohmann::json& j, CopyResult const& v);
void from_json(nlohmann::json const& j, CopyResult& v);

void to_json(nlohmann::json& j, RetimeJob const& v);
void from_json(nlohmann::json const& j, RetimeJob& v);
void to_json(nlohmann::json& j, RetimeResult const& v);
void from_json(nlohmann::json const& j, RetimeResult& v);

void to_json(nlohmann::json& j, Problem const& v);
void from_json(nlohmann::json const& j, Problem& v);
void to_json(nlohmann::json& j, LaunchPlan const& v);
void from_json(nlohmann::json const& j, LaunchPlan& v);

}  // namespace gemmtune
