// cuBLASLt's algorithms for one problem as candidates (DESIGN.md §6): the heuristic's top
// results (each split-K one also with its partial sums reduced in the compute type, where it
// offers that), plus a bounded set of one-knob variations of the best of them (split-K, CTA swizzling)
// and of the other algorithm ids cublasLtMatmulAlgoGetIds lists, each rebuilt from its canonical
// config and kept only when cublasLtMatmulAlgoCheck accepts it. All are timed with a short
// protocol and the winner with the full one; or one given algorithm is prepared and timed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <cublasLt.h>

#include "src/core/eval_job.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/gpu/device_buffer.hpp"
#include "src/gpu/rotation_pool.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/launch/cublaslt_matmul.hpp"

namespace gemmtune {

/// How many heuristic results are requested.
inline constexpr int kLtHeuristicAlgos = 16;
/// Heuristic results whose one-knob variations are added.
inline constexpr int kLtVariedAlgos = 4;
/// Other algorithm ids (not among the heuristic's results) tried with their default config.
inline constexpr int kLtExtraIds = 8;
/// Candidates timed per problem, at most.
inline constexpr int kLtMaxCandidates = 48;
/// Wall time the short timings of one problem's candidates may take before the rest are
/// passed over (each is a few ms on small problems, 100 ms and more at 8192³ in fp32).
inline constexpr double kLtTimingCapMs = 1500.0;
/// Algorithms after the chosen one of the short protocol that a baseline names, fastest first:
/// the short figures of algorithms a few per cent apart swap places from run to run, so a final
/// re-time times these beside the winner rather than trusting the short ranking.
inline constexpr int kLtRunnersUp = 2;
/// Algorithms after the fastest that a verified baseline tries, in short-timing order, when the
/// faster ones fail the tolerance pass (split-K summed in place in bf16 fails it at large K).
inline constexpr int kLtVerifyFallbacks = 6;
/// Workspace offered to cuBLASLt's algorithms.
inline constexpr std::size_t kLtWorkspaceBytes = std::size_t{64} << 20;

/// One candidate that ran in the short protocol.
struct LtRankedAlgo {
  LtAlgoConfig config;
  int index = -1;         ///< 0-based position among the candidates (heuristic results first)
  double short_ms = 0.0;  ///< its short-protocol median
};

struct LtAutotuneResult {
  bool ok = false;
  std::string reason;     ///< why not ok; or a note (compute-type fallback) when ok
  TimingResult timing;    ///< full protocol, of the winner
  LtAlgoConfig winner;    ///< the winning algorithm's whole configuration
  /// Every candidate that ran in the short protocol, fastest first (the winner first), so a
  /// caller whose check rejects the winner can take the next.
  std::vector<LtRankedAlgo> ranked;
  int algo_index = -1;    ///< 0-based position of the winner among the candidates (heuristic first)
  int algos_tried = 0;    ///< candidates that ran in the short protocol
  int algos_checked = 0;  ///< candidates cuBLASLt accepted (cublasLtMatmulAlgoCheck)
};

class CublasLtAutotuner {
 public:
  /// Creates the cuBLASLt handle and workspace; throws Error / CudaFailure when that fails.
  explicit CublasLtAutotuner(cudaStream_t stream);
  ~CublasLtAutotuner();
  CublasLtAutotuner(CublasLtAutotuner const&) = delete;
  CublasLtAutotuner& operator=(CublasLtAutotuner const&) = delete;

  /// Enumerates and times the candidates for `p` (packed storage, alpha 1, beta 0) on `pool`;
  /// the winner's full timing reads `sensors` when given (time_launches). The winner stays
  /// prepared for launch().
  LtAutotuneResult run(Problem const& p, RotationPool const& pool, TimingSpec const& spec,
                       DeviceSensors const* sensors = nullptr);

  /// Times the one algorithm `config` on `pool` with the full protocol (the rounds of a final
  /// re-time); not ok with the reason when cuBLASLt refuses it here.
  LtAutotuneResult time_one(Problem const& p, LtAlgoConfig const& config, RotationPool const& pool,
                            TimingSpec const& spec, DeviceSensors const* sensors = nullptr);

  /// Prepares `config` for launch() on `p`: "" or why cuBLASLt cannot run it.
  std::string prepare(Problem const& p, LtAlgoConfig const& config);
  /// One matmul of the prepared algorithm on packed operands, queued on the stream.
  LaunchStatus launch(void const* a, void const* b, void* c, float alpha, float beta);
  /// The per-tensor scales every FP8 matmul of this autotuner reads (device pointers that must
  /// outlive its use); ignored for the other precisions.
  void use_scales(float const* scale_a, float const* scale_b);
  /// One matmul of the heuristic's first algorithm for `p` (kept between calls for the same
  /// problem): the cuBLAS default of an FP8 problem, which cublasGemmEx cannot run.
  LaunchStatus launch_default(Problem const& p, void const* a, void const* b, void* c,
                              float alpha, float beta);

 private:
  struct Candidate {
    LtAlgoConfig config;
    cublasLtMatmulAlgo_t algo;
    std::size_t workspace = 0;
  };
  std::vector<Candidate> enumerate(Problem const& p, LtDescriptors const& d,
                                   std::int64_t compute);
  /// Descriptors of `p` under `config`'s contract, with the FP8 scales where they apply.
  cublasStatus_t init_descriptors(LtDescriptors& d, Problem const& p, LtAlgoConfig const& config);

  cublasLtHandle_t handle_ = nullptr;
  cudaStream_t stream_;
  DeviceBuffer workspace_;
  LtDescriptors prepared_desc_{};
  cublasLtMatmulAlgo_t prepared_algo_{};
  bool has_prepared_ = false;
  float const* scale_a_ = nullptr;
  float const* scale_b_ = nullptr;
  // launch_default's algorithm and the problem it was chosen for.
  LtDescriptors default_desc_{};
  cublasLtMatmulAlgo_t default_algo_{};
  std::optional<Problem> default_for_;
};

}  // namespace gemmtune
