// Timing protocol implementation. Warm-up doubles its batch size so a fast kernel reaches the
// warm-up time in few event round trips; the last warm-up batch is the calibration.
#include "src/gpu/timing_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "src/gpu/device_sensors.hpp"
#include "src/gpu/gpu_timer.hpp"
#include "src/launch/cuda_errors.hpp"

namespace gemmtune {

TimingResult time_launches(TimedLaunch const& launch, int set_count, TimingSpec const& spec,
                           cudaStream_t stream, DeviceSensors const* sensors) {
  TimingResult out;
  GpuTimer timer;
  int next_set = 0;
  int const max_iterations = std::max(1, spec.max_iterations);
  set_count = std::max(1, set_count);

  // Runs `n` launches between the events; fills `ms` with the batch's elapsed time.
  auto batch = [&](int n, double& ms) -> LaunchStatus {
    if (cudaError_t const e = timer.start(stream); e != cudaSuccess) {
      return {static_cast<int>(e), "cudaEventRecord: " + cuda_error_text(e)};
    }
    for (int i = 0; i < n; ++i) {
      LaunchStatus s = launch(next_set);
      next_set = (next_set + 1) % set_count;
      if (!s.ok()) {
        // Drain what was queued so a later sticky error is not blamed on a later call.
        (void)cudaStreamSynchronize(stream);
        return s;
      }
    }
    if (cudaError_t const e = timer.stop(stream); e != cudaSuccess) {
      return {static_cast<int>(e), "cudaEventRecord: " + cuda_error_text(e)};
    }
    float elapsed = 0.0f;
    if (cudaError_t const e = timer.elapsed_ms(elapsed); e != cudaSuccess) {
      return {static_cast<int>(e), "kernel execution: " + cuda_error_text(e)};
    }
    ms = elapsed;
    return {};
  };

  // Warm-up by time; at least one batch, whose per-launch time is the calibration.
  double warm_total = 0.0;
  int n = 1;
  for (;;) {
    double ms = 0.0;
    if (LaunchStatus s = batch(n, ms); !s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    warm_total += ms;
    out.calibration_ms = ms / n;
    if (warm_total >= spec.warmup_ms) break;
    double const remaining = spec.warmup_ms - warm_total;
    double const want = out.calibration_ms > 0.0 ? std::ceil(remaining / out.calibration_ms)
                                                 : static_cast<double>(2 * n);
    n = static_cast<int>(std::clamp(want, 1.0, std::min(2.0 * n, 1.0 * max_iterations)));
  }

  out.early_stopped = spec.early_stop_ms > 0.0 && out.calibration_ms > spec.early_stop_ms;
  double const iters = out.calibration_ms > 0.0 ? std::ceil(spec.target_ms / out.calibration_ms)
                                                : static_cast<double>(max_iterations);
  out.iterations = static_cast<int>(std::clamp(iters, 1.0, 1.0 * max_iterations));
  out.repeats = out.early_stopped ? 1 : std::max(1, spec.repeats);

  // The warm-up's last batch has completed (its events were read), so the counter starts with
  // the repeats.
  SensorReading before;
  bool const read_before = sensors && [&] {
    std::optional<SensorReading> const r = sensors->read();
    if (r) before = *r;
    return r.has_value();
  }();
  auto const start = std::chrono::steady_clock::now();
  std::vector<double> per_launch;
  for (int r = 0; r < out.repeats; ++r) {
    double ms = 0.0;
    if (LaunchStatus s = batch(out.iterations, ms); !s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    per_launch.push_back(ms / out.iterations);
  }
  out.min_ms = *std::min_element(per_launch.begin(), per_launch.end());
  out.median_ms = median_of(std::move(per_launch));
  if (read_before) {
    double const wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (std::optional<SensorReading> const after = sensors->read()) {
      out.power.sm_clock_mhz = after->sm_clock_mhz;
      out.power.mem_clock_mhz = after->mem_clock_mhz;
      out.power.temperature_c = after->temperature_c;
      out.power.clock_events = after->clock_events;
      // The board updates its energy counter only every so often: a window it did not
      // advance over has no energy figure, only the power reading at its end.
      if (before.has_energy && after->has_energy && after->energy_mj > before.energy_mj) {
        double const mj = static_cast<double>(after->energy_mj - before.energy_mj);
        out.power.energy_mj = mj / (static_cast<double>(out.repeats) * out.iterations);
        if (wall_s > 0.0) out.power.power_w = mj / 1000.0 / wall_s;
      } else {
        out.power.power_w = after->power_w;
      }
    }
  }
  return out;
}

}  // namespace gemmtune
