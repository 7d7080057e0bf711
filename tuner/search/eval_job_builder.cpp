// EvalJob construction from a compile result.
#include "tuner/search/eval_job_builder.hpp"

#include <filesystem>
#include <fstream>

#include "src/core/error.hpp"

namespace gemmtune {

int spill_bytes(CompileResult const& compiled) {
  int spills = 0;
  for (auto const& r : compiled.resources) spills += r.spill_stores + r.spill_loads;
  return spills;
}

EvalJob make_eval_job(Family const& family, KernelConfig const& config, Problem const& problem,
                      CompileResult const& compiled, std::string const& cubin_dir,
                      std::uint64_t seed, TimingSpec const& timing) {
  EvalJob job;
  job.problem = problem;
  job.kernel_id = config.id();
  job.plan = family.launch_plan(config, problem);
  for (std::size_t i = 0; i < job.plan.launches.size() && i < compiled.lowered_names.size(); ++i) {
    job.plan.launches[i].lowered_name = compiled.lowered_names[i];
  }
  job.cubin_path = compiled.cubin_path;
  if (job.cubin_path.empty()) {
    std::filesystem::create_directories(cubin_dir);
    std::string const name = compiled.cache_key.empty() ? "candidate" : compiled.cache_key;
    job.cubin_path = cubin_dir + "/" + name + ".cubin";
    std::ofstream out(job.cubin_path, std::ios::binary | std::ios::trunc);
    out.write(compiled.cubin.data(), static_cast<std::streamsize>(compiled.cubin.size()));
    if (!out) throw Error("cannot write cubin to " + job.cubin_path);
  }
  job.seed = seed;
  job.timing = timing;
  job.exact_check = problem.precision == Precision::kFP32;
  return job;
}

EvalJob make_vendor_eval_job(KernelConfig const& vendor, Problem const& problem,
                             std::uint64_t seed, TimingSpec const& timing) {
  EvalJob job;
  job.problem = problem;
  job.kernel_id = vendor.id();
  job.seed = seed;
  job.timing = timing;
  job.exact_check = false;
  return job;
}

}  // namespace gemmtune
