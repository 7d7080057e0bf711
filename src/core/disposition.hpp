// Disposition: how one trial ended. Failures are values, stored like successes.
#pragma once

#include <string_view>

namespace gemmtune {

/// Outcome of evaluating one (config, problem).
enum class Disposition {
  kOk,            ///< verified and timed
  kRejected,      ///< a constraint said no before compiling or launching (reason given)
  kCompileError,  ///< NVRTC or ptxas failed (log kept)
  kLaunchError,   ///< launch refused for resources (not sticky; the worker lives on)
  kFault,         ///< sticky CUDA error (illegal address, misaligned access, ...); worker restarted
  kTimeout,       ///< the worker missed its deadline and was killed
  kCrash,         ///< the worker process died
  kWrongResult,   ///< ran, but failed verification (error figures given)
  kSkipped,       ///< not run (spills, budget, early stop, device stopped)
};

/// "ok", "rejected", "compile_error", "launch_error", "fault", "timeout", "crash",
/// "wrong_result", "skipped".
std::string_view to_string(Disposition d);
/// Parses the text form; throws Error on unknown text.
Disposition parse_disposition(std::string_view text);

}  // namespace gemmtune
