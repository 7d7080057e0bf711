// Shared parts of the ladder descriptors: name expressions, launch plans, shared-memory size
// and the constraint builders.
#include "src/kernels/ladder_family.hpp"

#include <algorithm>


namespace gemmtune {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

LadderFamily::LadderFamily(std::string name)
    : name_(std::move(name)), template_file_("ladder/" + name_ + ".cuh") {}

std::string LadderFamily::name_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);  // only declared integers reach the source
  std::string s = "gemmtune::" + name_ + "<";
  s += template_arguments(canon);
  s += a_transposed(problem.layout) ? "true," : "false,";
  s += b_transposed(problem.layout) ? "true>" : "false>";
  return s;
}

std::int64_t LadderFamily::blocks(KernelConfig const& cfg, Problem const& problem) const {
  return ceil_div(problem.m, tile_m(cfg)) * ceil_div(problem.n, tile_n(cfg));
}

CompileRequest LadderFamily::compile_request(KernelConfig const& cfg, Problem const& problem,
                                             std::string const& arch) const {
  return embedded_request(template_file_, {name_expression(cfg, problem)}, arch);
}

LaunchPlan LadderFamily::launch_plan(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  KernelLaunch launch;
  launch.name_expression = name_expression(canon, problem);
  launch.grid = Dim3{blocks(canon, problem), 1, 1};
  launch.block = Dim3{threads(canon), 1, 1};
  int const smem = smem_bytes(canon, problem);
  launch.dynamic_smem = smem > kSmemWithoutOptIn ? smem : 0;
  LaunchPlan plan;
  plan.launches.push_back(std::move(launch));
  return plan;
}

double LadderFamily::staged_per_thread(KernelConfig const& cfg) const {
  return static_cast<double>(smem_floats(cfg)) / std::max(1, threads(cfg));
}

Constraint LadderFamily::register_estimate(std::function<double(KernelConfig const&)> estimate,
                                           std::string what) const {
  return {"registers", [this, estimate = std::move(estimate), what = std::move(what)](
                           KernelConfig const& cfg, Problem const&, DeviceLimits const& limits) {
            int const t = std::max(1, threads(cfg));
            int const budget = register_budget(limits, t);
            int const r = static_cast<int>(estimate(cfg));
            if (r <= budget) return std::string();
            return "about " + std::to_string(r) + " registers per thread (" + what + ") > " +
                   std::to_string(budget) + " available to each of " + std::to_string(t) +
                   " threads; it would spill";
          }};
}

int LadderFamily::smem_bytes(KernelConfig const& cfg, Problem const&) const {
  return static_cast<int>(smem_floats(cfg) * 4);
}

Constraint LadderFamily::grid_fits() const {
  return {"grid_size", [this](KernelConfig const& cfg, Problem const& p, DeviceLimits const&) {
            std::int64_t const b = blocks(cfg, p);
            if (b <= kMaxGridX) return std::string();
            return "ceil(M/" + std::to_string(tile_m(cfg)) + ")·ceil(N/" +
                   std::to_string(tile_n(cfg)) + ") = " + std::to_string(b) +
                   " blocks > the grid limit " + std::to_string(kMaxGridX);
          }};
}

Constraint vec4_alignment() {
  return {"alignment", [](KernelConfig const&, Problem const& p, DeviceLimits const&) {
            if (p.align >= 16) return std::string();
            return "float4 loads and stores need A, B, C and their leading dimensions 16-byte "
                   "aligned; this problem's alignment class is " +
                   std::to_string(p.align) + " bytes";
          }};
}

}  // namespace gemmtune
