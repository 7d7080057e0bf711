// WorkerEvaluator: the GpuEvaluator that runs every job in an isolated worker process and
// turns timeouts, crashes and a crash-looping device into Dispositions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/search/gpu_evaluator.hpp"

namespace gemmtune {

class WorkerSupervisor;

class WorkerEvaluator : public GpuEvaluator {
 public:
  /// `worker_argv` re-executes this binary in worker mode, e.g. {"/path/gemmtune", "__worker"}.
  WorkerEvaluator(std::vector<std::string> worker_argv, int device_index);
  ~WorkerEvaluator() override;

  DeviceReport device() override;
  EvalResult evaluate(EvalJob const& job, double deadline_s) override;
  BaselineResult baseline(BaselineJob const& job, double deadline_s) override;
  std::optional<RetimeResult> retime(RetimeJob const& job, double deadline_s) override;
  CopyResult copy_bandwidth(CopyJob const& job, double deadline_s) override;
  int restarts() const override;
  bool stopped() const override;

 private:
  std::vector<std::string> argv_;
  int device_index_ = 0;
  std::unique_ptr<WorkerSupervisor> supervisor_;
  std::optional<DeviceReport> device_;
};

}  // namespace gemmtune
