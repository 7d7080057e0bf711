// Range checks of a trial's problem and figures (positive finite times, ordered spreads,
// resources a GPU can have), shared by import and check.
#include "src/core/trial_check.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace gemmtune {
namespace {

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string problem_defect(Problem const& p) {
  for (auto [name, v] : {std::pair{"m", p.m}, std::pair{"n", p.n}, std::pair{"k", p.k}}) {
    if (v < 1 || v > kMaxDim) {
      return std::string(name) + ": " + std::to_string(v) + " is not in [1, " +
             std::to_string(kMaxDim) + "]";
    }
  }
  if (p.align != 0 && p.align != 1 && p.align != 2 && p.align != 4 && p.align != 8 &&
      p.align != 16) {
    return "align: " + std::to_string(p.align) + " is not 1, 2, 4, 8 or 16";
  }
  return {};
}

/// "" when v is finite and ≥ 0 (or > 0 when `positive`), else why not.
std::string figure_defect(char const* name, double v, bool positive) {
  if (!std::isfinite(v) || v < 0.0 || (positive && v == 0.0)) {
    return std::string(name) + ": " + number_text(v) + " is not a " +
           (positive ? "positive" : "non-negative") + " finite number";
  }
  return {};
}

}  // namespace

std::string trial_defect(Trial const& t) {
  if (std::string why = problem_defect(t.problem); !why.empty()) return "problem " + why;
  bool const ok = t.disposition == Disposition::kOk;
  if (ok) {
    for (auto const& [name, v] : {std::pair{"time_ms", t.time_ms}, std::pair{"tflops", t.tflops}}) {
      if (std::string why = figure_defect(name, v, true); !why.empty()) return why;
    }
  }
  for (auto const& [name, v] :
       {std::pair{"time_ms", t.time_ms}, std::pair{"min_ms", t.min_ms},
        std::pair{"spread_lo_ms", t.spread_lo_ms}, std::pair{"spread_hi_ms", t.spread_hi_ms},
        std::pair{"tflops", t.tflops}, std::pair{"cublas_ms", t.cublas_ms},
        std::pair{"cublaslt_ms", t.cublaslt_ms}, std::pair{"compile_ms", t.compile_ms}}) {
    if (std::string why = figure_defect(name, v, false); !why.empty()) return why;
  }
  // A failed check may have met an infinite or NaN output; a verified result cannot have.
  for (auto const& [name, v] : {std::pair{"max_abs_err", t.max_abs_err},
                                std::pair{"max_err_ratio", t.max_err_ratio},
                                std::pair{"rel_fro_err", t.rel_fro_err}}) {
    if (ok ? (!std::isfinite(v) || v < 0.0) : v < 0.0) {
      return std::string(name) + ": " + number_text(v) + " is not a possible error of a " +
             (ok ? "verified" : "checked") + " result";
    }
  }
  if (ok && t.min_ms > t.time_ms * (1.0 + 1e-9)) {
    return "min_ms: " + number_text(t.min_ms) + " is above the median time_ms " +
           number_text(t.time_ms);
  }
  if (t.spread_rounds < 0 || t.spread_rounds > 1000) {
    return "spread_rounds: " + std::to_string(t.spread_rounds) + " is not in [0, 1000]";
  }
  if (ok && t.spread_rounds > 0 && t.spread_lo_ms > 0.0 &&
      !(t.spread_lo_ms <= t.time_ms * (1.0 + 1e-9) && t.time_ms <= t.spread_hi_ms * (1.0 + 1e-9))) {
    return "spread: [" + number_text(t.spread_lo_ms) + ", " + number_text(t.spread_hi_ms) +
           "] ms does not contain time_ms " + number_text(t.time_ms);
  }
  if (t.exact_mismatches < 0) return "exact_mismatches: " + std::to_string(t.exact_mismatches) + " is negative";
  if (t.registers < 0 || t.registers > 255) {
    return "registers: " + std::to_string(t.registers) + " is not in [0, 255]";
  }
  if (t.spill_bytes < 0) return "spill_bytes: " + std::to_string(t.spill_bytes) + " is negative";
  if (t.smem_bytes < 0 || t.smem_bytes > (1 << 20)) {
    return "smem_bytes: " + std::to_string(t.smem_bytes) + " is not in [0, 1 MiB]";
  }
  if (t.created_at < 0) return "created_at: " + std::to_string(t.created_at) + " is negative";
  return {};
}

std::string baseline_defect(Problem const& problem, double cublas_ms, double cublaslt_ms) {
  if (std::string why = problem_defect(problem); !why.empty()) return "problem " + why;
  if (std::string why = figure_defect("cublas_ms", cublas_ms, false); !why.empty()) return why;
  return figure_defect("cublaslt_ms", cublaslt_ms, false);
}

}  // namespace gemmtune
