// The host-cost sample plan: samples first, then calls, down to their floors.
#include "src/core/host_sample_plan.hpp"

#include <algorithm>

namespace gemmtune {

HostSamplePlan host_sample_plan(HostSampleLimits const& limits, double gpu_ms_per_call) {
  HostSamplePlan plan{std::max(1, limits.samples), std::max(1, limits.calls)};
  if (!(gpu_ms_per_call > 0.0)) return plan;
  int const min_samples = std::clamp(limits.min_samples, 1, plan.samples);
  int const min_calls = std::clamp(limits.min_calls, 1, plan.calls);
  auto cost = [&] { return plan.samples * plan.calls * gpu_ms_per_call; };
  while (plan.samples > min_samples && cost() > limits.gpu_budget_ms) --plan.samples;
  if (cost() > limits.gpu_budget_ms) {
    int const fit = static_cast<int>(limits.gpu_budget_ms / (plan.samples * gpu_ms_per_call));
    plan.calls = std::clamp(fit, min_calls, plan.calls);
  }
  return plan;
}

}  // namespace gemmtune
