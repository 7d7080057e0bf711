// NVML through dlopen. The few entry points and constants used here are those of the library's
// documented C API (nvml.h is not part of the CUDA toolkit installed for building): handles are
// opaque pointers, every call returns 0 on success, clock type 1 is SM and 2 memory, temperature
// sensor 0 is the GPU die, power is in mW and the energy counter in mJ.
#include "src/gpu/device_sensors.hpp"

#include <dlfcn.h>

namespace gemmtune {
namespace {

constexpr int kSuccess = 0;
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;
constexpr int kTemperatureGpu = 0;

template <class F>
F symbol(void* library, char const* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

}  // namespace

DeviceSensors::DeviceSensors(std::string const& pci_bus_id, char const* library) {
  library_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    char const* e = dlerror();
    why_not_ = std::string("cannot load ") + library + (e ? ": " + std::string(e) : "");
    return;
  }
  auto const init = symbol<int (*)()>(library_, "nvmlInit_v2");
  auto const by_bus = symbol<int (*)(char const*, void**)>(library_,
                                                           "nvmlDeviceGetHandleByPciBusId_v2");
  shutdown_ = symbol<int (*)()>(library_, "nvmlShutdown");
  clock_ = symbol<int (*)(void*, int, unsigned*)>(library_, "nvmlDeviceGetClockInfo");
  power_ = symbol<int (*)(void*, unsigned*)>(library_, "nvmlDeviceGetPowerUsage");
  energy_ = symbol<int (*)(void*, unsigned long long*)>(library_,
                                                        "nvmlDeviceGetTotalEnergyConsumption");
  temperature_ = symbol<int (*)(void*, int, unsigned*)>(library_, "nvmlDeviceGetTemperature");
  events_ = symbol<int (*)(void*, unsigned long long*)>(library_,
                                                        "nvmlDeviceGetCurrentClocksEventReasons");
  if (!events_) {
    // Drivers before the rename call the same mask throttle reasons.
    events_ = symbol<int (*)(void*, unsigned long long*)>(
        library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  if (!init || !by_bus || !shutdown_ || !clock_) {
    why_not_ = std::string(library) + " lacks the entry points used here";
    return;
  }
  if (int const rc = init(); rc != kSuccess) {
    why_not_ = "nvmlInit_v2 returned " + std::to_string(rc);
    shutdown_ = nullptr;  // nothing to shut down
    return;
  }
  void* device = nullptr;
  if (int const rc = by_bus(pci_bus_id.c_str(), &device); rc != kSuccess || !device) {
    why_not_ = "no NVML device at PCI bus id " + pci_bus_id + " (" + std::to_string(rc) + ")";
    return;
  }
  device_ = device;
}

DeviceSensors::~DeviceSensors() {
  if (shutdown_) shutdown_();
  if (library_) dlclose(library_);
}

std::optional<SensorReading> DeviceSensors::read() const {
  if (!device_) return std::nullopt;
  SensorReading r;
  unsigned v = 0;
  if (clock_(device_, kClockSm, &v) != kSuccess) return std::nullopt;
  r.sm_clock_mhz = static_cast<int>(v);
  if (clock_(device_, kClockMem, &v) == kSuccess) r.mem_clock_mhz = static_cast<int>(v);
  if (power_ && power_(device_, &v) == kSuccess) r.power_w = v / 1000.0;
  if (temperature_ && temperature_(device_, kTemperatureGpu, &v) == kSuccess) {
    r.temperature_c = static_cast<int>(v);
  }
  unsigned long long e = 0;
  if (energy_ && energy_(device_, &e) == kSuccess) {
    r.energy_mj = e;
    r.has_energy = true;
  }
  if (events_ && events_(device_, &e) == kSuccess) r.clock_events = e;
  return r;
}

}  // namespace gemmtune
