// Compile one config for the local GPU and run it in the worker: the path shared by `bench`
// and `ladder`.
#pragma once

#include "cli/app_context.hpp"
#include "src/core/eval_job.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

struct CandidateRun {
  CompileResult compiled;
  EvalResult result;
};

/// Checks the config against the device, compiles it, and evaluates it in the worker. Every
/// failure comes back as a Disposition in `result`.
CandidateRun run_candidate(AppContext& ctx, Family const& family, KernelConfig const& config,
                           Problem const& problem, TimingSpec const& timing, std::uint64_t seed,
                           double timeout_s);

}  // namespace gemmtune
