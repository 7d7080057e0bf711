// GpuEvaluator: how the search reaches a GPU. The real one talks to an isolated worker
// process (worker_evaluator.hpp); tests use a scripted one. Every call returns a value,
// whatever the worker does.
#pragma once

#include <optional>
#include <string>

#include "src/core/eval_job.hpp"
#include "src/core/device_report.hpp"

namespace gemmtune {

class GpuEvaluator {
 public:
  virtual ~GpuEvaluator() = default;
  /// The device and library versions (present = false when there is none).
  virtual DeviceReport device() = 0;
  /// Runs one candidate; timeouts, crashes and a stopped device become Dispositions.
  virtual EvalResult evaluate(EvalJob const& job, double deadline_s) = 0;
  /// Times cuBLAS and cuBLASLt-autotuned for a problem.
  virtual BaselineResult baseline(BaselineJob const& job, double deadline_s) = 0;
  /// The final re-time in one request (RetimeJob), or nullopt when this evaluator cannot or
  /// the request failed as a whole (a crash, a timeout): the search then re-times with one
  /// evaluate() or baseline() per entry and round, which isolates a candidate that faults.
  virtual std::optional<RetimeResult> retime(RetimeJob const& job, double deadline_s) {
    (void)job;
    (void)deadline_s;
    return std::nullopt;
  }
  /// Times a device-to-device copy (the roofline's bandwidth); !ok with the reason when the
  /// copy or the worker failed, or this evaluator has no device.
  virtual CopyResult copy_bandwidth(CopyJob const& job, double deadline_s) {
    (void)deadline_s;
    CopyResult r;
    r.bytes = job.bytes;
    r.reason = "this evaluator times no copies";
    return r;
  }
  /// Worker restarts so far (0 for evaluators without workers).
  virtual int restarts() const { return 0; }
  /// True once the device was given up on (crash loop); later calls return kSkipped.
  virtual bool stopped() const { return false; }
};

}  // namespace gemmtune
