// TEST ONLY: FaultFamily — reads kernels/faults.cuh at run time and plans its launches.
#include "tests/reliability/fault_family.hpp"

#include <fstream>
#include <iterator>

#include "src/core/error.hpp"

namespace gemmtune::reliability {

std::map<int, Disposition> const& expected_dispositions() {
  static std::map<int, Disposition> const m = {
      {kCorrect, Disposition::kOk},
      {kOutOfBoundsWrite, Disposition::kFault},
      {kMisalignedLoad, Disposition::kFault},
      {kInfiniteLoop, Disposition::kTimeout},
      {kShortKLoop, Disposition::kWrongResult},
      {kUnwrittenTile, Disposition::kWrongResult},
      {kTf32InFp32, Disposition::kWrongResult},
      {kWarpRace, Disposition::kWrongResult},
      {kCompileFailure, Disposition::kCompileError},
      {kTooMuchSmem, Disposition::kLaunchError},
  };
  return m;
}

std::string fault_name(int f) {
  switch (f) {
    case kCorrect: return "correct (control)";
    case kOutOfBoundsWrite: return "out-of-bounds write";
    case kMisalignedLoad: return "misaligned float4 load";
    case kInfiniteLoop: return "infinite loop";
    case kShortKLoop: return "K loop one tile short";
    case kUnwrittenTile: return "unwritten tile";
    case kTf32InFp32: return "TF32 inside fp32";
    case kWarpRace: return "race between warps";
    case kCompileFailure: return "compile error";
    case kTooMuchSmem: return "1 MiB shared memory";
  }
  return "F=" + std::to_string(f);
}

FaultFamily::FaultFamily(std::string kernel_dir) {
  std::string const path = kernel_dir + "/faults.cuh";
  std::ifstream in(path);
  if (!in) throw Error("cannot read the fault-injection kernels '" + path + "'");
  source_.assign(std::istreambuf_iterator<char>(in), {});
}

std::vector<ParamSpec> FaultFamily::params() const {
  return {{"F", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "which fault (kernels/faults.cuh)"}};
}

CompileRequest FaultFamily::compile_request(KernelConfig const& cfg, Problem const& problem,
                                            std::string const& arch) const {
  Problem const p = problem.resolved();
  CompileRequest r;
  r.source_name = "faults.cuh";
  r.source = source_;
  r.name_expressions = {"gemmtune::fault<" + std::to_string(canonical(cfg).at("F")) + "," +
                        (a_transposed(p.layout) ? "true" : "false") + "," +
                        (b_transposed(p.layout) ? "true" : "false") + ">"};
  r.arch = arch;
  return r;
}

LaunchPlan FaultFamily::launch_plan(KernelConfig const& cfg, Problem const& problem) const {
  std::int64_t const f = canonical(cfg).at("F");
  std::int64_t const bm = f == kWarpRace ? 8 : 16, bn = 16;
  KernelLaunch l;
  l.name_expression = compile_request(cfg, problem, "sm_90").name_expressions.front();
  l.grid = {((problem.m + bm - 1) / bm) * ((problem.n + bn - 1) / bn), 1, 1};
  l.block = {256, 1, 1};
  l.dynamic_smem = f == kTooMuchSmem ? (1 << 20) : 0;
  LaunchPlan plan;
  plan.launches.push_back(l);
  return plan;
}

}  // namespace gemmtune::reliability
