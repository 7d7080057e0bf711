// The timing protocol shared by candidates and cuBLAS baselines (DESIGN.md §5): warm-up by
// time, iterations sized to a target from calibration, median, min and max of repeats, each
// launch on the next rotating buffer set, optional early stop for clearly slow kernels. Under
// the graph protocol (the default) the repeats replay a CUDA graph of the captured launches, so
// the figure is GPU time without host launch cost; under the stream protocol they are launched
// one by one.
#pragma once

#include <functional>
#include <string>

#include <cuda_runtime_api.h>

#include "src/core/eval_job.hpp"
#include "src/core/host_sample_plan.hpp"
#include "src/core/median.hpp"
#include "src/core/power_figures.hpp"
#include "src/launch/launch_status.hpp"

namespace gemmtune {

/// Queues one run of the timed work on buffer set `set` (0 … set_count−1); must not wait.
using TimedLaunch = std::function<LaunchStatus(int set)>;

/// Launches one graph of the graph protocol holds at most; a repeat replays it as often as its
/// target time needs. Large enough that the gap between two replays is far below the noise
/// (a microsecond or two over hundreds of launches), small enough to instantiate in a few ms.
inline constexpr int kMaxGraphLaunches = 512;
/// The host-cost measurement: up to 5 bursts of 32 launch calls, and about 20 ms of GPU time,
/// one repeat's worth (a 48 ms GEMM gets 3 bursts of one call).
inline constexpr HostSampleLimits kHostSampleLimits{5, 3, 32, 1, 20.0};

struct TimingResult {
  LaunchStatus failure;        ///< !ok() when a launch or a wait failed; figures then invalid
  TimingProtocol protocol = TimingProtocol::kGraph;  ///< how the repeats were launched
  double median_ms = 0.0;      ///< per launch
  double min_ms = 0.0;         ///< per launch
  double max_ms = 0.0;         ///< per launch, the slowest repeat
  /// Host time of one launch call (µs), measured apart from the GPU figure: the median over
  /// short bursts of stream launches that fit in the launch queue, so no call waits for the GPU.
  double host_us_per_call = 0.0;
  double calibration_ms = 0.0; ///< per launch, from the last warm-up batch
  int iterations = 0;          ///< launches per repeat
  int repeats = 0;
  bool early_stopped = false;  ///< calibration was slower than spec.early_stop_ms
  PowerFigures power;          ///< over the repeats, when sensors were given and read
};

class DeviceSensors;

/// Runs the protocol of `spec` over `set_count` rotating buffer sets on `stream`. With
/// `sensors`, the board's energy counter is read before the first repeat and after the last
/// (energy per launch, mean power), and the clocks, temperature and clock-event reasons at the
/// end. The counter moves in steps of the driver's update period (tens of ms), so energy per
/// launch means something for repeats of that length and more.
TimingResult time_launches(TimedLaunch const& launch, int set_count, TimingSpec const& spec,
                           cudaStream_t stream, DeviceSensors const* sensors = nullptr);

}  // namespace gemmtune
