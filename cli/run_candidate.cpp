// One candidate through compile → worker.
#include "cli/run_candidate.hpp"

#include "src/core/vendor_kernel.hpp"

#include "tuner/search/eval_job_builder.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune {

CandidateRun run_candidate(AppContext& ctx, Family const& family, KernelConfig const& config,
                           Problem const& problem, TimingSpec const& timing, std::uint64_t seed,
                           double timeout_s) {
  CandidateRun run;
  DeviceReport const& dev = ctx.require_gpu();
  // An explicit kernel runs even where the search would skip it (an ablation, a comparison):
  // only what correctness needs is enforced.
  std::string const why = family.reject_reason(config, problem, dev.limits, RejectScope::kRun);
  if (!why.empty()) {
    run.result.disposition = Disposition::kRejected;
    run.result.reason = why;
    return run;
  }
  run.compiled = ctx.compile_fn()(family.compile_request(config, problem, dev.limits.arch)).get();
  if (!run.compiled.ok) {
    run.result.disposition = Disposition::kCompileError;
    run.result.reason = run.compiled.log.substr(0, 600);
    return run;
  }
  EvalJob job = make_eval_job(family, config, problem, run.compiled, ctx.cubin_dir() + "/loose",
                              seed, timing);
  run.result = ctx.gpu().evaluate(job, timeout_s);
  return run;
}

std::string unknown_kernel_reason(KernelConfig const& config) {
  if (is_vendor(config)) return vendor_reject_reason(config);
  if (!find_family(config.family)) return "unknown kernel family '" + config.family + "'";
  return "";
}

KernelConfig canonical_kernel(KernelConfig const& config) {
  if (is_vendor(config)) return config;  // validated vendor ids are canonical as they parse
  return find_family(config.family)->canonical(config);
}

CandidateRun run_any_candidate(AppContext& ctx, KernelConfig const& config, Problem const& problem,
                               TimingSpec const& timing, std::uint64_t seed, double timeout_s) {
  CandidateRun run;
  if (std::string const why = unknown_kernel_reason(config); !why.empty()) {
    run.result.disposition = Disposition::kRejected;
    run.result.reason = why;
    return run;
  }
  if (is_vendor(config)) {
    run.result = ctx.gpu().evaluate(make_vendor_eval_job(config, problem, seed, timing), timeout_s);
    return run;
  }
  Family const& family = *find_family(config.family);
  return run_candidate(ctx, family, family.canonical(config), problem, timing, seed, timeout_s);
}

}  // namespace gemmtune
