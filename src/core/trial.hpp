// Trial: one stored evaluation of (GPU, problem, config), with its disposition, figures and
// provenance. The cache keeps every trial; "best" is a query over them.
#pragma once

#include <cstdint>
#include <string>

#include "src/core/disposition.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// One row of the tuning cache.
struct Trial {
  std::int64_t id = 0;          ///< assigned by the store
  std::int64_t search_id = 0;   ///< the search that produced it (0 = none)
  GpuIdentity gpu;
  Problem problem;              ///< resolved
  KernelConfig config;
  Disposition disposition = Disposition::kSkipped;
  std::string reason;
  double time_ms = 0.0;         ///< median per call; 0 unless kOk
  double min_ms = 0.0;
  /// The figure's spread: with spread_rounds ≥ 2, the fastest and slowest round median of the
  /// final re-time (interleaved with the baselines in rotated order); with 1, the fastest and
  /// slowest repeat of one timing; 0 where not recorded (trials of older caches).
  double spread_lo_ms = 0.0;
  double spread_hi_ms = 0.0;
  int spread_rounds = 0;
  double tflops = 0.0;
  double cublas_ms = 0.0;       ///< baseline timed in the same worker (0 = not timed)
  double cublaslt_ms = 0.0;
  double max_abs_err = 0.0;
  double max_err_ratio = 0.0;
  double rel_fro_err = 0.0;
  std::int64_t exact_mismatches = 0;
  int registers = 0;
  int spill_bytes = 0;          ///< ptxas spill stores + loads
  int smem_bytes = 0;           ///< static + dynamic
  double compile_ms = 0.0;
  Provenance provenance;
  std::int64_t created_at = 0;  ///< unix seconds
  /// The board while the figure's rounds ran (re-timed trials): median over the rounds of their
  /// mean SM clock and highest temperature; 0 where not recorded. A figure of another process is compared
  /// with its board in mind: under the power cap the same GEMM runs 5-10 % apart between them.
  int board_sm_clock_mhz = 0;
  int board_temperature_c = 0;
};

}  // namespace gemmtune
