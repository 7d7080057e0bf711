// The timing protocol shared by candidates and cuBLAS baselines (DESIGN.md §5): warm-up by
// time, iterations sized to a target from calibration, median, min and max of repeats, each
// launch on the next rotating buffer set, optional early stop for clearly slow kernels. Under
// the graph protocol (the default) the repeats replay a CUDA graph of the captured launches, so
// the figure is GPU time without host launch cost; under the stream protocol they are launched
// one by one. Also the interleaved form of a final re-time: several entries in one process,
// their repeats taken in turn, so every entry meets the board's clock swings alike.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "src/core/eval_job.hpp"
#include "src/core/host_sample_plan.hpp"
#include "src/core/median.hpp"
#include "src/core/power_figures.hpp"
#include "src/gpu/gpu_timer.hpp"
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
class CapturedGraph;

/// The protocol's steps for one timed launch, so several can be interleaved repeat by repeat:
/// prepare (warm-up, calibration, and the graph's capture under the graph protocol), any
/// number of repeats, then the host-cost samples.
class LaunchTimer {
 public:
  LaunchTimer(TimedLaunch launch, int set_count, TimingSpec const& spec, cudaStream_t stream);
  ~LaunchTimer();
  LaunchTimer(LaunchTimer const&) = delete;
  LaunchTimer& operator=(LaunchTimer const&) = delete;

  /// Warm-up by time and calibration; sizes the repeats (result()'s iterations, repeats,
  /// calibration_ms, early_stopped) and, under the graph protocol, captures the graph. With
  /// `lead_in_ms`, also sizes (and captures) a lead-in of about that much of its launches.
  LaunchStatus prepare(double lead_in_ms = 0.0);
  /// Queues the lead-in untimed, without waiting: a repeat timed right after it runs at the
  /// clock this entry's own power draw sets, not at the one the previous entry left.
  LaunchStatus queue_lead_in();
  /// Times one repeat (after prepare): GPU ms per launch.
  LaunchStatus repeat(double& per_launch_ms);
  /// Samples the host's cost per call into result().host_us_per_call (none after an early
  /// stop) and waits for the stream.
  LaunchStatus sample_host_cost();
  /// Runs one repeat untimed and waits for it, keeping the board under load (a settle).
  LaunchStatus untimed_repeat();

  TimingResult& result() { return out_; }

 private:
  LaunchStatus timed(std::function<LaunchStatus()> const& queue, double& ms);
  LaunchStatus batch(int n, double& ms);
  LaunchStatus queue_repeat();

  TimedLaunch launch_;
  int set_count_;
  TimingSpec spec_;
  cudaStream_t stream_;
  int next_set_ = 0;
  int replays_ = 0;  ///< graph replays per repeat
  int lead_in_launches_ = 0;
  std::unique_ptr<CapturedGraph> graph_;
  std::unique_ptr<CapturedGraph> lead_in_graph_;
  GpuTimer timer_;
  TimingResult out_;
};

/// Runs the protocol of `spec` over `set_count` rotating buffer sets on `stream`. With
/// `sensors`, the board's energy counter is read before the first repeat and after the last
/// (energy per launch, mean power), and the clocks, temperature and clock-event reasons at the
/// end. The counter moves in steps of the driver's update period (tens of ms), so energy per
/// launch means something for repeats of that length and more.
TimingResult time_launches(TimedLaunch const& launch, int set_count, TimingSpec const& spec,
                           cudaStream_t stream, DeviceSensors const* sensors = nullptr);

/// One entry of an interleaved timing.
struct InterleavedEntry {
  TimedLaunch launch;
  /// Makes `launch` runnable (loads the entry's kernel or selects its vendor call): called
  /// before its warm-up, before its host samples and, under the stream protocol, before each
  /// of its repeats (a graph replays what it captured). Empty: nothing to select.
  std::function<LaunchStatus()> activate;
};

/// What an interleaved timing measured.
struct InterleavedTiming {
  /// Per entry, in the order given: median_ms is the median of its round figures, min_ms and
  /// max_ms its fastest and slowest repeat; `failure` set when it dropped out (it is then left
  /// out of the later rounds). Power: the sensors over all the rounds, shared by the entries.
  std::vector<TimingResult> entries;
  /// Per entry, its figure in each round it completed: the median of that round's repeats.
  std::vector<std::vector<double>> round_ms;
  /// The board during each round, when sensors were given: mean SM clock and power of the
  /// readings taken while it ran (every 5 ms), its highest temperature (board_sampler.hpp).
  std::vector<PowerFigures> round_board;
};

/// Untimed launches of an entry queued before each of its timed repeats in an interleaved
/// timing. Under the H200's power cap the SM clock follows the power drawn over the last few
/// milliseconds: a 25 ms repeat timed right after a low-power kernel ran up to 11% fast (a
/// cuBLASLt algorithm that always followed a slow SIMT candidate in the rounds), so each
/// timed repeat follows this much of its own entry's work.
inline constexpr double kLeadInMs = 10.0;

/// Times `entries` together: each prepared in turn, then `settle_ms` of their repeats in turn
/// untimed (the board reaches the state the rounds run in, instead of the first entry timing
/// an idle board's boost), then `rounds` rounds. A round takes `spec.repeats` turns of every
/// entry; a turn is a lead-in (kLeadInMs) and one timed repeat; within each pass over the
/// entries the order is a fixed pseudo-random permutation (the same in every run), so no entry
/// always follows the same neighbour, and the board's clock swings (about a second's period
/// under the power cap) fall on every entry alike. `stop` is polled between repeats; true ends
/// the rounds (the entries then have only the rounds completed).
InterleavedTiming time_interleaved(std::vector<InterleavedEntry> const& entries, int set_count,
                                   TimingSpec const& spec, int rounds, double settle_ms,
                                   cudaStream_t stream, DeviceSensors const* sensors = nullptr,
                                   std::function<bool()> const& stop = {});

}  // namespace gemmtune
