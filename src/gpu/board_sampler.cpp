// BoardWindow and BoardSampler (see board_sampler.hpp).
#include "src/gpu/board_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gemmtune {

void BoardWindow::add(SensorReading const& r) {
  ++readings_;
  sm_clock_sum_ += r.sm_clock_mhz;
  mem_clock_sum_ += r.mem_clock_mhz;
  power_sum_ += r.power_w;
  temperature_max_ = std::max(temperature_max_, r.temperature_c);
  clock_events_ |= r.clock_events;
}

PowerFigures BoardWindow::figures() const {
  PowerFigures f;
  if (readings_ == 0) return f;
  double const n = readings_;
  f.sm_clock_mhz = static_cast<int>(std::lround(sm_clock_sum_ / n));
  f.mem_clock_mhz = static_cast<int>(std::lround(mem_clock_sum_ / n));
  f.power_w = power_sum_ / n;
  f.temperature_c = temperature_max_;
  f.clock_events = clock_events_;
  return f;
}

BoardSampler::BoardSampler(Reader read, std::chrono::microseconds period)
    : read_(std::move(read)), period_(period), thread_([this] { run(); }) {}

BoardSampler::~BoardSampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

PowerFigures BoardSampler::next_window() {
  std::lock_guard<std::mutex> lock(mutex_);
  PowerFigures const f = window_.figures();
  window_ = BoardWindow{};
  return f;
}

int BoardSampler::readings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return window_.readings();
}

void BoardSampler::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    // Read outside the lock: a read takes a driver call, and next_window must not wait on it.
    lock.unlock();
    std::optional<SensorReading> const r = read_ ? read_() : std::nullopt;
    lock.lock();
    if (stop_) break;
    if (r) window_.add(*r);
    wake_.wait_for(lock, period_, [this] { return stop_; });
  }
}

}  // namespace gemmtune
