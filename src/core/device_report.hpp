// DeviceReport: the device as a worker sees it and the library versions that make up a trial's
// provenance. Vocabulary shared by the worker (which fills it), the tuner and the CLI (which
// read it from the worker's hello), so it lives here with no CUDA dependency.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "src/core/gpu_identity.hpp"

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

/// The worker protocol's form of a report (every key required when read back).
void to_json(nlohmann::json& j, DeviceReport const& v);
void from_json(nlohmann::json const& j, DeviceReport& v);

}  // namespace gemmtune
