// The board's state while work runs, not after it: a thread that reads the sensors every few
// milliseconds into the current window, and the figures of each window (mean clocks and power,
// the hottest temperature, every clock-event reason seen). A reading taken when a timed round
// has ended finds the board already leaving the power cap (on the H200, 1860 MHz read after a
// round that ran near 1350), so it cannot say what clock the round ran at.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "src/core/power_figures.hpp"
#include "src/gpu/device_sensors.hpp"

namespace gemmtune {

/// Readings of one window of work folded into its figures.
class BoardWindow {
 public:
  void add(SensorReading const& r);
  /// How many readings the window holds.
  int readings() const { return readings_; }
  /// Mean SM and memory clock and mean power over the readings, the highest temperature, and
  /// the union of the clock-event reasons; not present() when the window holds no reading.
  /// Energy per launch is not a window's figure (0).
  PowerFigures figures() const;

 private:
  int readings_ = 0;
  double sm_clock_sum_ = 0.0;
  double mem_clock_sum_ = 0.0;
  double power_sum_ = 0.0;
  int temperature_max_ = 0;
  std::uint64_t clock_events_ = 0;
};

/// Reads the sensors through `read` every `period` on a thread of its own, from construction
/// until destruction, into the current window. A failed read (nullopt) is skipped.
class BoardSampler {
 public:
  using Reader = std::function<std::optional<SensorReading>()>;
  BoardSampler(Reader read, std::chrono::microseconds period);
  ~BoardSampler();
  BoardSampler(BoardSampler const&) = delete;
  BoardSampler& operator=(BoardSampler const&) = delete;

  /// Closes the current window and opens the next; returns the closed window's figures (not
  /// present() when no reading fell inside it).
  PowerFigures next_window();
  /// Readings taken so far in the current window.
  int readings() const;

 private:
  void run();

  Reader read_;
  std::chrono::microseconds period_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  BoardWindow window_;
  std::thread thread_;
};

/// How often the timing rounds read the board: 5 ms, against rounds of ~25 ms repeats.
inline constexpr std::chrono::microseconds kBoardSamplePeriod{5000};

}  // namespace gemmtune
