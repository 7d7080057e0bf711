// Compile one config for the local GPU and run it in the worker: the path shared by `bench`
// and `ladder`.
#pragma once

#include "app_context.hpp"
#include "core/eval_job.hpp"
#include "family.hpp"
#include "nvrtc/compiler.hpp"

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
