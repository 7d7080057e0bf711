// GPU identity, per-arch resource limits, and the provenance stored with every trial.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gemmtune {

/// Which GPU a result belongs to, e.g. "NVIDIA H200 / sm_90 / 132 SMs".
struct GpuIdentity {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;

  /// "sm_90".
  std::string arch() const;
  /// "NVIDIA H200 / sm_90 / 132 SMs".
  std::string describe() const;
  bool operator==(GpuIdentity const&) const = default;
};

/// Resource limits a candidate must fit. Read from the device when there is one, otherwise
/// from the per-arch table (arch_limits()).
struct DeviceLimits {
  std::string arch;                    ///< "sm_90", "sm_90a", "sm_86", ...
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;       ///< resident threads of all blocks on one SM
  int max_smem_per_block_optin = 0;    ///< bytes, after cudaFuncSetAttribute
  int max_smem_per_sm = 0;             ///< bytes
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  int sm_count = 0;                    ///< 0 when unknown (no device)
  long long l2_bytes = 0;              ///< 0 when unknown
  bool operator==(DeviceLimits const&) const = default;
};

/// The limits of an architecture without a device at hand ("sm_80", "sm_86", "sm_89",
/// "sm_90", "sm_90a"); nullopt for an arch the table does not know.
std::optional<DeviceLimits> arch_limits(std::string_view arch);
/// The archs arch_limits() knows, comma-separated, for error messages.
std::string_view known_archs();
/// Compute capability as an integer (sm_90a → 90); 0 when the text is not an arch.
int arch_number(std::string_view arch);

/// Everything besides the config and problem that can change a trial's answer (DESIGN.md §3).
/// A cached result is reused only when its provenance matches.
struct Provenance {
  std::string driver;            ///< driver version, e.g. "13000" ("none" without a driver)
  std::string cuda_runtime;      ///< e.g. "13000"
  std::string nvrtc;             ///< e.g. "13.0"
  std::string cublas;            ///< e.g. "130100"
  std::string gemmtune_version;  ///< e.g. "0.1.0"
  std::string template_hash;     ///< hash of the family's template sources
  std::string compile_options;   ///< NVRTC options, space-separated
  bool operator==(Provenance const&) const = default;
};

/// gemmtune's own version string.
std::string_view gemmtune_version();

}  // namespace gemmtune
