// The board's sensors through the driver's management library (NVML), loaded at run time so
// the binary starts where the library is missing: energy counter, power, SM and memory clocks,
// temperature and clock-event reasons of the CUDA device the session runs on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gemmtune {

/// One reading of the board's sensors; a figure the driver did not give is 0.
struct SensorReading {
  std::uint64_t energy_mj = 0;  ///< the board's energy counter since the driver loaded
  bool has_energy = false;      ///< the counter is supported and was read
  double power_w = 0.0;
  int sm_clock_mhz = 0;
  int mem_clock_mhz = 0;
  int temperature_c = 0;
  std::uint64_t clock_events = 0;
};

/// Reads the sensors of one CUDA device. Unavailable (and silent) when the library cannot be
/// loaded or does not know the device; `why_not()` then says what failed.
class DeviceSensors {
 public:
  /// The device with this PCI bus id ("0000:19:00.0", as cudaDeviceGetPCIBusId writes it),
  /// through the library file `library` (the driver's libnvidia-ml.so.1 by default).
  explicit DeviceSensors(std::string const& pci_bus_id,
                         char const* library = "libnvidia-ml.so.1");
  ~DeviceSensors();
  DeviceSensors(DeviceSensors const&) = delete;
  DeviceSensors& operator=(DeviceSensors const&) = delete;

  bool available() const { return device_ != nullptr; }
  std::string const& why_not() const { return why_not_; }
  /// The sensors now, or nothing when unavailable or the clock could not be read.
  std::optional<SensorReading> read() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  std::string why_not_;
  // Entry points, resolved once (the library's C ABI: return code 0 is success).
  int (*shutdown_)() = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*power_)(void*, unsigned*) = nullptr;
  int (*energy_)(void*, unsigned long long*) = nullptr;
  int (*temperature_)(void*, int, unsigned*) = nullptr;
  int (*events_)(void*, unsigned long long*) = nullptr;
};

}  // namespace gemmtune
