// DeviceReport: the device as a worker sees it and the library versions that make up a trial's
// provenance. Vocabulary shared by the worker (which fills it), the tuner and the CLI (which
// read it from the worker's hello), so it lives here with no CUDA dependency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "src/core/gpu_identity.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {

/// The device as the worker sees it, plus the library versions that make up provenance.
struct DeviceReport {
  bool present = false;
  std::string reason;           ///< why not present ("no CUDA driver", ...)
  GpuIdentity gpu;
  DeviceLimits limits;
  std::string driver;           ///< cudaDriverGetVersion
  std::string cuda_runtime;     ///< cudaRuntimeGetVersion
  std::string cublas;           ///< cublasGetProperty
  int clock_mhz = 0;
  int memory_clock_mhz = 0;
  long long memory_bytes = 0;
};

/// A measured ceiling of a device, for the report's roofline: a compute rate (TFLOP/s) of one
/// precision, or (no precision) the copy bandwidth (GB/s, reads and writes counted).
struct DeviceCeiling {
  std::optional<Precision> precision;  ///< nullopt: the copy bandwidth
  double value = 0.0;
  std::string method;                  ///< how it was measured, as the page states it
  std::int64_t measured_at = 0;        ///< Unix seconds; set by record_ceiling
};

/// The provenance of a vendor figure or a device measurement on this device: its driver,
/// runtime and cuBLAS versions and gemmtune's; no compiler, template or options are involved.
Provenance vendor_provenance(DeviceReport const& device);

/// The worker protocol's form of a report (every key required when read back).
void to_json(nlohmann::json& j, DeviceReport const& v);
void from_json(nlohmann::json const& j, DeviceReport& v);

}  // namespace gemmtune
