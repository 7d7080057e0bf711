// Per-arch limits table and identity formatting.
#include "src/core/gpu_identity.hpp"

namespace gemmtune {

std::string GpuIdentity::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

std::string GpuIdentity::describe() const {
  return name + " / " + arch() + " / " + std::to_string(sm_count) + " SMs";
}

int arch_number(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return 0;
  int v = 0;
  std::size_t i = 3;
  for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) v = v * 10 + (arch[i] - '0');
  if (i == 3) return 0;
  if (i < arch.size() && !(arch.substr(i) == "a")) return 0;
  return v;
}

std::optional<DeviceLimits> arch_limits(std::string_view arch) {
  // Figures from the CUDA programming guide's table of compute capabilities: opt-in shared
  // memory per block and per SM, registers per SM, threads per block.
  DeviceLimits d;
  d.arch = std::string(arch);
  if (arch == "sm_80") {
    d.max_smem_per_block_optin = 163 * 1024;
    d.max_smem_per_sm = 164 * 1024;
  } else if (arch == "sm_86" || arch == "sm_89") {
    d.max_threads_per_sm = 1536;
    d.max_smem_per_block_optin = 99 * 1024;
    d.max_smem_per_sm = 100 * 1024;
  } else if (arch == "sm_90" || arch == "sm_90a") {
    d.max_smem_per_block_optin = 227 * 1024;
    d.max_smem_per_sm = 228 * 1024;
  } else {
    return std::nullopt;
  }
  return d;
}

std::string_view known_archs() { return "sm_80, sm_86, sm_89, sm_90, sm_90a"; }

// 0.2.0 times candidates and baselines by CUDA-graph replay (0.1.0 timed a stream loop); the
// version is part of every trial's provenance, so figures of the old protocol are not reused.
std::string_view gemmtune_version() { return "0.2.0"; }

}  // namespace gemmtune
