// Timing protocol implementation. Warm-up doubles its batch size so a fast kernel reaches the
// warm-up time in few event round trips; the last warm-up batch is the calibration. Under the
// graph protocol the repeats replay a CUDA graph of captured launches, so the figure is GPU
// time without the host's per-launch cost (DESIGN.md §5); under the stream protocol they are
// back-to-back launches, as a program without graphs runs them. time_launches() runs one
// LaunchTimer start to end; time_interleaved() takes the repeats of several in turn.
#include "src/gpu/timing_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "src/gpu/board_sampler.hpp"
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
}  // namespace

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


LaunchTimer::LaunchTimer(TimedLaunch launch, int set_count, TimingSpec const& spec,
                         cudaStream_t stream)
    : launch_(std::move(launch)), set_count_(std::max(1, set_count)), spec_(spec),
      stream_(stream), graph_(std::make_unique<CapturedGraph>()) {
  out_.protocol = spec.protocol;
}

LaunchTimer::~LaunchTimer() = default;

LaunchStatus LaunchTimer::timed(std::function<LaunchStatus()> const& queue, double& ms) {
  if (cudaError_t const e = timer_.start(stream_); e != cudaSuccess) {
    return cuda_status(e, "cudaEventRecord");
  }
  if (LaunchStatus s = queue(); !s.ok()) {
    // Drain what was queued so a later sticky error is not blamed on a later call.
    (void)cudaStreamSynchronize(stream_);
    return s;
  }
  if (cudaError_t const e = timer_.stop(stream_); e != cudaSuccess) {
    return cuda_status(e, "cudaEventRecord");
  }
  float elapsed = 0.0f;
  if (cudaError_t const e = timer_.elapsed_ms(elapsed); e != cudaSuccess) {
    return {static_cast<int>(e), "kernel execution: " + cuda_error_text(e)};
  }
  ms = elapsed;
  return {};
}

LaunchStatus LaunchTimer::batch(int n, double& ms) {
  return timed(
      [&]() -> LaunchStatus {
        for (int i = 0; i < n; ++i) {
          LaunchStatus s = launch_(next_set_);
          next_set_ = (next_set_ + 1) % set_count_;
          if (!s.ok()) return s;
        }
        return {};
      },
      ms);
}

LaunchStatus LaunchTimer::prepare(double lead_in_ms) {
  int const max_iterations = std::max(1, spec_.max_iterations);
  // Warm-up by time; at least one batch, whose per-launch time is the calibration.
  double warm_total = 0.0;
  int n = 1;
  for (;;) {
    double ms = 0.0;
    if (LaunchStatus s = batch(n, ms); !s.ok()) return s;
    warm_total += ms;
    out_.calibration_ms = ms / n;
    if (warm_total >= spec_.warmup_ms) break;
    double const remaining = spec_.warmup_ms - warm_total;
    double const want = out_.calibration_ms > 0.0 ? std::ceil(remaining / out_.calibration_ms)
                                                  : static_cast<double>(2 * n);
    n = static_cast<int>(std::clamp(want, 1.0, std::min(2.0 * n, 1.0 * max_iterations)));
  }

  out_.early_stopped = spec_.early_stop_ms > 0.0 && out_.calibration_ms > spec_.early_stop_ms;
  double const iters = out_.calibration_ms > 0.0 ? std::ceil(spec_.target_ms / out_.calibration_ms)
                                                 : static_cast<double>(max_iterations);
  out_.iterations = static_cast<int>(std::clamp(iters, 1.0, 1.0 * max_iterations));
  out_.repeats = out_.early_stopped ? 1 : std::max(1, spec_.repeats);
  if (lead_in_ms > 0.0) {
    double const want = out_.calibration_ms > 0.0 ? std::ceil(lead_in_ms / out_.calibration_ms)
                                                  : 1.0;
    lead_in_launches_ = static_cast<int>(std::clamp(want, 1.0, 1.0 * kMaxGraphLaunches));
  }
  if (spec_.protocol != TimingProtocol::kGraph) return {};
  if (lead_in_launches_ > 0) {
    lead_in_graph_ = std::make_unique<CapturedGraph>();
    if (LaunchStatus s = lead_in_graph_->capture(launch_, lead_in_launches_, set_count_,
                                                 next_set_, stream_);
        !s.ok()) {
      return s;
    }
  }

  // The graph protocol: the repeat's launches are one graph of up to kMaxGraphLaunches captured
  // launches, replayed as often as the repeat needs. The stream calibration above includes the
  // host's launch cost, so a kernel shorter than that cost is re-calibrated on a replay.
  int const graph_launches = std::min(out_.iterations, kMaxGraphLaunches);
  if (LaunchStatus s = graph_->capture(launch_, graph_launches, set_count_, next_set_, stream_);
      !s.ok()) {
    return s;
  }
  double ms = 0.0;
  if (LaunchStatus s = timed([&]() -> LaunchStatus {
        cudaError_t const e = graph_->replay(stream_);
        return e == cudaSuccess ? LaunchStatus{} : cuda_status(e, "cudaGraphLaunch");
      }, ms);
      !s.ok()) {
    return s;
  }
  double const per_launch = ms / graph_launches;
  if (per_launch > 0.0 && !out_.early_stopped) {
    out_.calibration_ms = per_launch;
    double const want = std::ceil(spec_.target_ms / per_launch);
    out_.iterations = static_cast<int>(std::clamp(want, 1.0, 1.0 * max_iterations));
  }
  // The nearest whole number of replays: rounding up could time up to twice the target.
  replays_ = std::max(1, static_cast<int>(std::lround(static_cast<double>(out_.iterations) /
                                                      graph_launches)));
  out_.iterations = replays_ * graph_launches;
  return {};
}

LaunchStatus LaunchTimer::queue_repeat() {
  if (spec_.protocol == TimingProtocol::kGraph) {
    for (int i = 0; i < replays_; ++i) {
      if (cudaError_t const e = graph_->replay(stream_); e != cudaSuccess) {
        return cuda_status(e, "cudaGraphLaunch");
      }
    }
    return {};
  }
  for (int i = 0; i < out_.iterations; ++i) {
    LaunchStatus s = launch_(next_set_);
    next_set_ = (next_set_ + 1) % set_count_;
    if (!s.ok()) return s;
  }
  return {};
}

LaunchStatus LaunchTimer::queue_lead_in() {
  if (lead_in_launches_ == 0) return {};
  if (lead_in_graph_) {
    cudaError_t const e = lead_in_graph_->replay(stream_);
    return e == cudaSuccess ? LaunchStatus{} : cuda_status(e, "cudaGraphLaunch");
  }
  for (int i = 0; i < lead_in_launches_; ++i) {
    LaunchStatus s = launch_(next_set_);
    next_set_ = (next_set_ + 1) % set_count_;
    if (!s.ok()) return s;
  }
  return {};
}

LaunchStatus LaunchTimer::repeat(double& per_launch_ms) {
  double ms = 0.0;
  if (LaunchStatus s = timed([&] { return queue_repeat(); }, ms); !s.ok()) return s;
  per_launch_ms = ms / std::max(1, out_.iterations);
  return {};
}

LaunchStatus LaunchTimer::untimed_repeat() {
  if (LaunchStatus s = queue_repeat(); !s.ok()) {
    (void)cudaStreamSynchronize(stream_);
    return s;
  }
  if (cudaError_t const e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
    return cuda_status(e, "kernel execution");
  }
  return {};
}

LaunchStatus LaunchTimer::sample_host_cost() {
  // The host's cost per call: bursts short enough for the launch queue, each after the stream
  // drained, so the calls measure the host path alone, not a wait for queue space; held to
  // about one repeat's GPU time, since every call queued runs.
  HostSamplePlan const host_plan = host_sample_plan(kHostSampleLimits, out_.calibration_ms);
  std::vector<double> host_us;
  for (int b = 0; b < host_plan.samples && !out_.early_stopped; ++b) {
    if (cudaError_t const e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
      return cuda_status(e, "kernel execution");
    }
    auto const t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < host_plan.calls; ++i) {
      if (LaunchStatus s = launch_(next_set_); !s.ok()) {
        (void)cudaStreamSynchronize(stream_);
        return s;
      }
      next_set_ = (next_set_ + 1) % set_count_;
    }
    auto const t1 = std::chrono::steady_clock::now();
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() /
                      host_plan.calls);
  }
  if (cudaError_t const e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
    return cuda_status(e, "kernel execution");
  }
  if (!host_us.empty()) out_.host_us_per_call = median_of(std::move(host_us));
  return {};
}

namespace {

/// Reads the sensors now (nullopt without them or when the read fails).
std::optional<SensorReading> read_sensors(DeviceSensors const* sensors) {
  return sensors != nullptr ? sensors->read() : std::nullopt;
}

/// The sensor figures of a window from `before` to now (`launches` timed in it): the clocks,
/// temperature and reasons at its end, energy per launch where the counter advanced, else the
/// power reading at the end.
PowerFigures window_power(DeviceSensors const* sensors, std::optional<SensorReading> const& before,
                          double wall_s, double launches) {
  PowerFigures p;
  if (!before) return p;
  std::optional<SensorReading> const after = read_sensors(sensors);
  if (!after) return p;
  p.sm_clock_mhz = after->sm_clock_mhz;
  p.mem_clock_mhz = after->mem_clock_mhz;
  p.temperature_c = after->temperature_c;
  p.clock_events = after->clock_events;
  // The board updates its energy counter only every so often: a window it did not advance
  // over has no energy figure, only the power reading at its end.
  if (before->has_energy && after->has_energy && after->energy_mj > before->energy_mj) {
    double const mj = static_cast<double>(after->energy_mj - before->energy_mj);
    if (launches > 0.0) p.energy_mj = mj / launches;
    if (wall_s > 0.0) p.power_w = mj / 1000.0 / wall_s;
  } else {
    p.power_w = after->power_w;
  }
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TimingResult time_launches(TimedLaunch const& launch, int set_count, TimingSpec const& spec,
                           cudaStream_t stream, DeviceSensors const* sensors) {
  LaunchTimer timer(launch, set_count, spec, stream);
  TimingResult& out = timer.result();
  if (LaunchStatus s = timer.prepare(); !s.ok()) {
    out.failure = std::move(s);
    return out;
  }
  // The warm-up's last batch has completed (its events were read), so the counter starts with
  // the repeats.
  std::optional<SensorReading> const before = read_sensors(sensors);
  auto const start = std::chrono::steady_clock::now();
  std::vector<double> per_launch;
  for (int r = 0; r < out.repeats; ++r) {
    double ms = 0.0;
    if (LaunchStatus s = timer.repeat(ms); !s.ok()) {
      out.failure = std::move(s);
      return out;
    }
    per_launch.push_back(ms);
  }
  out.min_ms = *std::min_element(per_launch.begin(), per_launch.end());
  out.max_ms = *std::max_element(per_launch.begin(), per_launch.end());
  out.median_ms = median_of(std::move(per_launch));
  if (LaunchStatus s = timer.sample_host_cost(); !s.ok()) {
    out.failure = std::move(s);
    return out;
  }
  out.power = window_power(sensors, before, seconds_since(start),
                           static_cast<double>(out.repeats) * out.iterations);
  return out;
}

InterleavedTiming time_interleaved(std::vector<InterleavedEntry> const& entries, int set_count,
                                   TimingSpec const& spec, int rounds, double settle_ms,
                                   cudaStream_t stream, DeviceSensors const* sensors,
                                   std::function<bool()> const& stop) {
  std::size_t const n = entries.size();
  InterleavedTiming out;
  out.entries.resize(n);
  out.round_ms.resize(n);
  std::vector<std::unique_ptr<LaunchTimer>> timers;
  std::vector<bool> live(n, false);
  std::vector<std::vector<double>> repeats_ms(n);
  auto select = [&](std::size_t i) -> LaunchStatus {
    return entries[i].activate ? entries[i].activate() : LaunchStatus{};
  };
  auto drop = [&](std::size_t i, LaunchStatus s) {
    live[i] = false;
    out.entries[i].failure = std::move(s);
  };
  for (std::size_t i = 0; i < n; ++i) {
    timers.push_back(std::make_unique<LaunchTimer>(entries[i].launch, set_count, spec, stream));
    LaunchStatus s = select(i);
    if (s.ok()) s = timers[i]->prepare(kLeadInMs);
    live[i] = s.ok();
    if (!s.ok()) out.entries[i].failure = std::move(s);
  }
  bool const per_repeat_select = spec.protocol != TimingProtocol::kGraph;
  auto const stopped = [&] { return stop && stop(); };

  // The settle: the entries' repeats in turn, untimed, for about settle_ms.
  auto const settle_start = std::chrono::steady_clock::now();
  while (settle_ms > 0.0 && seconds_since(settle_start) * 1000.0 < settle_ms && !stopped() &&
         std::find(live.begin(), live.end(), true) != live.end()) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!live[i]) continue;
      LaunchStatus s = per_repeat_select ? select(i) : LaunchStatus{};
      if (s.ok()) s = timers[i]->untimed_repeat();
      if (!s.ok()) drop(i, std::move(s));
    }
  }

  std::optional<SensorReading> const before = read_sensors(sensors);
  auto const start = std::chrono::steady_clock::now();
  // The board while each round runs: a reading after the round finds the clock already rising
  // (board_sampler.hpp).
  std::optional<BoardSampler> sampler;
  if (sensors != nullptr && sensors->available()) {
    sampler.emplace([sensors] { return sensors->read(); }, kBoardSamplePeriod);
  }
  double launches = 0.0;
  int const repeats = std::max(1, spec.repeats);
  // A fixed seed: the same permutations in every run, so two runs time alike.
  std::mt19937 order_rng(0x5eed5eedu);
  std::vector<std::size_t> order(n);
  for (int round = 0; round < rounds && !stopped(); ++round) {
    std::vector<std::vector<double>> this_round(n);
    bool cut = false;
    for (int r = 0; r < repeats && !cut; ++r) {
      for (std::size_t i = 0; i < n; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), order_rng);
      for (std::size_t const i : order) {
        if (!live[i]) continue;
        if (stopped()) {
          cut = true;
          break;
        }
        double ms = 0.0;
        LaunchStatus s = per_repeat_select ? select(i) : LaunchStatus{};
        if (s.ok()) s = timers[i]->queue_lead_in();
        if (s.ok()) s = timers[i]->repeat(ms);
        if (!s.ok()) {
          drop(i, std::move(s));
          continue;
        }
        this_round[i].push_back(ms);
        repeats_ms[i].push_back(ms);
        launches += timers[i]->result().iterations;
      }
    }
    if (cut) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (live[i]) out.round_ms[i].push_back(median_of(this_round[i]));
    }
    PowerFigures b = sampler ? sampler->next_window() : PowerFigures{};
    if (!b.present()) {
      // A round shorter than the sampling period: the board as the round ends.
      if (std::optional<SensorReading> const now = read_sensors(sensors)) {
        BoardWindow one;
        one.add(*now);
        b = one.figures();
      }
    }
    if (b.present()) out.round_board.push_back(b);
  }
  PowerFigures const window = window_power(sensors, before, seconds_since(start), launches);

  for (std::size_t i = 0; i < n; ++i) {
    TimingResult& t = out.entries[i];
    TimingResult const& prepared = timers[i]->result();
    t.protocol = spec.protocol;
    t.calibration_ms = prepared.calibration_ms;
    t.iterations = prepared.iterations;
    t.repeats = static_cast<int>(repeats_ms[i].size());
    if (!live[i] || out.round_ms[i].empty()) continue;
    t.median_ms = median_of(out.round_ms[i]);
    t.min_ms = *std::min_element(repeats_ms[i].begin(), repeats_ms[i].end());
    t.max_ms = *std::max_element(repeats_ms[i].begin(), repeats_ms[i].end());
    // Energy per launch is the whole window's, not this entry's; only the power reading and
    // the board's state at the end are kept.
    t.power = window;
    t.power.energy_mj = 0.0;
    LaunchStatus s = select(i);
    if (s.ok()) s = timers[i]->sample_host_cost();
    if (!s.ok()) {
      t.failure = std::move(s);
      continue;
    }
    t.host_us_per_call = timers[i]->result().host_us_per_call;
  }
  return out;
}

}  // namespace gemmtune
