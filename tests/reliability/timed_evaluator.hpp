// A GpuEvaluator wrapper that records every evaluate call (kernel id, disposition, wall time),
// so the fault suites can report how long the candidate after a worker-killing fault took.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "tuner/search/gpu_evaluator.hpp"

namespace gemmtune::reliability {

class TimedEvaluator : public GpuEvaluator {
 public:
  struct Call {
    std::string kernel_id;
    Disposition disposition;
    double seconds;
  };
  explicit TimedEvaluator(GpuEvaluator& inner) : inner_(inner) {}
  DeviceReport device() override { return inner_.device(); }
  EvalResult evaluate(EvalJob const& job, double deadline_s) override {
    auto const t0 = std::chrono::steady_clock::now();
    EvalResult r = inner_.evaluate(job, deadline_s);
    calls.push_back({job.kernel_id, r.disposition,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    return r;
  }
  BaselineResult baseline(BaselineJob const& job, double deadline_s) override {
    return inner_.baseline(job, deadline_s);
  }
  int restarts() const override { return inner_.restarts(); }
  bool stopped() const override { return inner_.stopped(); }

  /// Wall time of each call that came right after a call that ended its worker.
  std::vector<double> after_worker_loss() const {
    std::vector<double> out;
    for (std::size_t i = 1; i < calls.size(); ++i) {
      Disposition const d = calls[i - 1].disposition;
      if (d == Disposition::kFault || d == Disposition::kTimeout || d == Disposition::kCrash) {
        out.push_back(calls[i].seconds);
      }
    }
    return out;
  }
  /// Median wall time of the calls that came back ok after an ok call (a warm worker).
  double median_warm_ok() const {
    std::vector<double> v;
    for (std::size_t i = 1; i < calls.size(); ++i) {
      if (calls[i].disposition == Disposition::kOk && calls[i - 1].disposition == Disposition::kOk) {
        v.push_back(calls[i].seconds);
      }
    }
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

  std::vector<Call> calls;

 private:
  GpuEvaluator& inner_;
};

}  // namespace gemmtune::reliability
