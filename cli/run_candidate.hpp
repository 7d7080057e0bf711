// Compile one config for the local GPU and run it in the worker, or run a vendor call there as
// it is: the path shared by `bench`, `ladder` and `regret`.
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

/// Why `config` names nothing that can run ("" when it can): an unknown family, or a vendor id
/// (cublas:default, a cublaslt algorithm) that does not validate.
std::string unknown_kernel_reason(KernelConfig const& config);

/// The canonical form of a config that unknown_kernel_reason() accepts.
KernelConfig canonical_kernel(KernelConfig const& config);

/// Any candidate: a vendor call runs in the worker with exactly its configuration (verified and
/// timed as our kernels are); one of our kernels goes through its family (run_candidate). What
/// unknown_kernel_reason() refuses comes back as kRejected with that reason.
CandidateRun run_any_candidate(AppContext& ctx, KernelConfig const& config, Problem const& problem,
                               TimingSpec const& timing, std::uint64_t seed, double timeout_s);

}  // namespace gemmtune
