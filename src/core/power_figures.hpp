// What the device's sensors said about one timed run: energy per launch, mean power, and the
// clocks, temperature and clock-event reasons at its end. Plain data with a JSON form; the GPU
// side fills it when the driver's management library is there (gpu/device_sensors.hpp).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace gemmtune {

/// Sensor figures of one timed run (the repeats, not the warm-up). Absent figures are 0.
struct PowerFigures {
  double energy_mj = 0.0;   ///< energy per launch, mJ (the board's counter over the repeats)
  double power_w = 0.0;     ///< mean board power over the repeats
  int sm_clock_mhz = 0;     ///< SM clock when the repeats ended
  int mem_clock_mhz = 0;    ///< memory clock when the repeats ended
  int temperature_c = 0;    ///< GPU temperature when the repeats ended
  /// Clock-event (throttle) reasons when the repeats ended, as the driver's bit mask: e.g. 0x4 is
  /// the software power cap, 0x20 and 0x40 thermal slowdowns.
  std::uint64_t clock_events = 0;
  /// True when the sensors were read at all.
  bool present() const { return sm_clock_mhz > 0; }
  bool operator==(PowerFigures const&) const = default;
};

// JSON: every field, so a reader can tell 0 W from a missing key (reading requires them all).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PowerFigures, energy_mj, power_w, sm_clock_mhz, mem_clock_mhz,
                                   temperature_c, clock_events)

}  // namespace gemmtune
