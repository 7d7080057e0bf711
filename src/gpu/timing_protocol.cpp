// Timing protocol implementation. Warm-up doubles its batch size so a fast kernel reaches the
// warm-up time in few event round trips; the last warm-up batch is the calibration. Under the
// graph protocol the repeats replay a CUDA graph of captured launches, so the figure is GPU
// time without the host's per-launch cost (DESIGN.md §5); under the stream protocol they are
// back-to-back launches, as a program without graphs runs them.
#include "src/gpu/timing_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "src/gpu/device_sensors.hpp"
#include "src/gpu/gpu_timer.hpp"
#include "src/launch/cuda_errors.hpp"

namespace gemmtune {
namespace {

LaunchStatus cuda_status(cudaError_t e, char const* what) {
  (void)cudaGetLastError();
  return {static_cast<int>(e), std::string(what) + ": " + cuda_error_text(e)};
}

/// An instantiated graph of captured launches; destroyed with its owner.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  ~CapturedGraph() {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  }
  CapturedGraph(CapturedGraph const&) = delete;
  CapturedGraph& operator=(CapturedGraph const&) = delete;

  /// Captures `count` calls of `launch` (buffer sets from `next_set` on, rotating) into a
  /// graph and instantiates it. A launch that fails during capture ends the capture and is
  /// returned as it failed; so is a CUDA refusal to capture or instantiate.
  LaunchStatus capture(TimedLaunch const& launch, int count, int set_count, int& next_set,
                       cudaStream_t stream) {
    // Thread-local capture: only this thread's calls are checked for capture safety, so a
    // library's helper threads are not disturbed.
    if (cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        e != cudaSuccess) {
      return cuda_status(e, "cudaStreamBeginCapture");
    }
    LaunchStatus failed;
    for (int i = 0; i < count && failed.ok(); ++i) {
      failed = launch(next_set);
      next_set = (next_set + 1) % set_count;
    }
    cudaGraph_t graph = nullptr;
    cudaError_t const end = cudaStreamEndCapture(stream, &graph);
    graph_ = graph;
    if (!failed.ok()) {
      (void)cudaGetLastError();
      failed.error = "during graph capture: " + failed.error;
      return failed;
    }
    if (end != cudaSuccess) return cuda_status(end, "cudaStreamEndCapture");
    if (cudaError_t e = cudaGraphInstantiate(&exec_, graph_, 0); e != cudaSuccess) {
      exec_ = nullptr;
      return cuda_status(e, "cudaGraphInstantiate");
    }
    if (cudaError_t e = cudaGraphUpload(exec_, stream); e != cudaSuccess) {
      return cuda_status(e, "cudaGraphUpload");
    }
    return {};
  }

  cudaError_t replay(cudaStream_t stream) const { return cudaGraphLaunch(exec_, stream); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

TimingResult time_launches(TimedLaunch const& launch, int set_count, TimingSpec const& spec,
                           cudaStream_t stream, DeviceSensors const* sensors) {
  TimingResult out;
  out.protocol = spec.protocol;
  GpuTimer timer;
  int next_set = 0;
  int const max_iterations = std::max(1, spec.max_iterations);
  set_count = std::max(1, set_count);

  // Times `queue` (which queues work on the stream) between the events.
  auto timed = [&](auto const& queue, double& ms) -> LaunchStatus {
    if (cudaError_t const e = timer.start(stream); e != cudaSuccess) {
      return cuda_status(e, "cudaEventRecord");
    }
    if (LaunchStatus s = queue(); !s.ok()) {
      // Drain what was queued so a later sticky error is not blamed on a later call.
      (void)cudaStreamSynchronize(stream);
      return s;
    }
    if (cudaError_t const e = timer.stop(stream); e != cudaSuccess) {
      return cuda_status(e, "cudaEventRecord");
    }
    float elapsed = 0.0f;
    if (cudaError_t const e = timer.elapsed_ms(elapsed); e != cudaSuccess) {
      return {static_cast<int>(e), "kernel execution: " + cuda_error_text(e)};
    }
    ms = elapsed;
    return {};
  };
  // `n` launches straight onto the stream.
  auto batch = [&](int n, double& ms) -> LaunchStatus {
    return timed(
        [&]() -> LaunchStatus {
          for (int i = 0; i < n; ++i) {
            LaunchStatus s = launch(next_set);
            next_set = (next_set + 1) % set_count;
            if (!s.ok()) return s;
          }
          return {};
        },
        ms);
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

  // The graph protocol: the repeat's launches are one graph of up to kMaxGraphLaunches captured
  // launches, replayed as often as the repeat needs. The stream calibration above includes the
  // host's launch cost, so a kernel shorter than that cost is re-calibrated on a replay.
  CapturedGraph graph;
  int graph_launches = 0;
  int replays = 0;
  if (spec.protocol == TimingProtocol::kGraph) {
    graph_launches = std::min(out.iterations, kMaxGraphLaunches);
    if (LaunchStatus s = graph.capture(launch, graph_launches, set_count, next_set, stream);
        !s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    double ms = 0.0;
    if (LaunchStatus s = timed([&]() -> LaunchStatus {
          cudaError_t const e = graph.replay(stream);
          return e == cudaSuccess ? LaunchStatus{} : cuda_status(e, "cudaGraphLaunch");
        }, ms);
        !s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    double const per_launch = ms / graph_launches;
    if (per_launch > 0.0 && !out.early_stopped) {
      out.calibration_ms = per_launch;
      double const want = std::ceil(spec.target_ms / per_launch);
      out.iterations = static_cast<int>(std::clamp(want, 1.0, 1.0 * max_iterations));
    }
    // The nearest whole number of replays: rounding up could time up to twice the target.
    replays = std::max(1, static_cast<int>(std::lround(static_cast<double>(out.iterations) /
                                                       graph_launches)));
    out.iterations = replays * graph_launches;
  }

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
    LaunchStatus s;
    if (spec.protocol == TimingProtocol::kGraph) {
      s = timed(
          [&]() -> LaunchStatus {
            for (int i = 0; i < replays; ++i) {
              if (cudaError_t const e = graph.replay(stream); e != cudaSuccess) {
                return cuda_status(e, "cudaGraphLaunch");
              }
            }
            return {};
          },
          ms);
    } else {
      s = batch(out.iterations, ms);
    }
    if (!s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    per_launch.push_back(ms / out.iterations);
  }
  out.min_ms = *std::min_element(per_launch.begin(), per_launch.end());
  out.max_ms = *std::max_element(per_launch.begin(), per_launch.end());
  out.median_ms = median_of(std::move(per_launch));

  // The host's cost per call: bursts short enough for the launch queue, each after the stream
  // drained, so the calls measure the host path alone, not a wait for queue space; held to
  // about one repeat's GPU time, since every call queued runs.
  HostSamplePlan const host_plan = host_sample_plan(kHostSampleLimits, out.calibration_ms);
  std::vector<double> host_us;
  for (int b = 0; b < host_plan.samples && !out.early_stopped; ++b) {
    if (cudaError_t const e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      out.failure = cuda_status(e, "kernel execution");
      return out;
    }
    auto const t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < host_plan.calls; ++i) {
      if (LaunchStatus s = launch(next_set); !s.ok()) {
        (void)cudaStreamSynchronize(stream);
        out.failure = std::move(s);
        return out;
      }
      next_set = (next_set + 1) % set_count;
    }
    auto const t1 = std::chrono::steady_clock::now();
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() /
                      host_plan.calls);
  }
  if (cudaError_t const e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    out.failure = cuda_status(e, "kernel execution");
    return out;
  }
  if (!host_us.empty()) out.host_us_per_call = median_of(std::move(host_us));
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
