// One candidate through compile → worker.
#include "cli/run_candidate.hpp"

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

}  // namespace gemmtune
