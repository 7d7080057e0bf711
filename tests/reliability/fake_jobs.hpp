// The CPU side of fault injection: a family whose parameter A picks a fake worker job (the
// worker's "fake" type: echo, segfault, abort, exit, spin, sticky fault, sleep), and a
// GpuEvaluator that sends each candidate to a WorkerSupervisor over real worker processes and
// maps replies to Dispositions as WorkerEvaluator does for GPU jobs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "src/kernels/family.hpp"
#include "tests/reliability/scripted_search.hpp"
#include "tuner/worker/supervisor.hpp"

namespace gemmtune::reliability {

/// A in 0..6 (the job), R in 0..2 (repeats, so good and bad jobs interleave).
class FakeFaultFamily : public ScriptedFamily {
 public:
  std::string_view name() const override { return "fakefault"; }
  std::vector<ParamSpec> params() const override {
    return {{"A", {0, 1, 2, 3, 4, 5, 6}, "fake job"}, {"R", {0, 1, 2}, "repeat"}};
  }
  static constexpr int kConfigs = 7 * 3;

  /// The fake job of A.
  static nlohmann::json job(int a) {
    switch (a) {
      case 0: return {{"action", "echo"}};
      case 1: return {{"action", "segfault"}};
      case 2: return {{"action", "abort"}};
      case 3: return {{"action", "exit"}, {"code", 3}};
      case 4: return {{"action", "spin"}};
      case 5: return {{"action", "fault"}};
      default: return {{"action", "sleep"}, {"ms", 20}};
    }
  }
  static Disposition expected(int a) {
    switch (a) {
      case 1: case 2: case 3: return Disposition::kCrash;
      case 4: return Disposition::kTimeout;
      case 5: return Disposition::kFault;
      default: return Disposition::kOk;
    }
  }
};

class FakeJobEvaluator : public GpuEvaluator {
 public:
  explicit FakeJobEvaluator(std::string binary)
      : supervisor_(binary, {binary, "__worker"}, 0) {}
  DeviceReport device() override { return ScriptedGpu(0, -1).device(); }
  EvalResult evaluate(EvalJob const& job, double deadline_s) override {
    int const a = static_cast<int>(parse_kernel_id(job.kernel_id).at("A"));
    WorkerReply const r = supervisor_.call("fake", FakeFaultFamily::job(a), deadline_s);
    EvalResult out;
    switch (r.status) {
      case WorkerReply::Status::kOk:
        if (r.payload.contains("disposition")) {
          out.disposition = parse_disposition(r.payload["disposition"].get<std::string>());
          out.reason = "worker reported " + r.payload["disposition"].get<std::string>();
        } else {
          out.disposition = Disposition::kOk;
          out.median_ms = a == 0 ? 1.0 : 2.0;
          out.min_ms = out.median_ms;
        }
        return out;
      case WorkerReply::Status::kTimeout: out.disposition = Disposition::kTimeout; break;
      case WorkerReply::Status::kCrash: out.disposition = Disposition::kCrash; break;
      case WorkerReply::Status::kError: out.disposition = Disposition::kLaunchError; break;
      case WorkerReply::Status::kStopped:
      case WorkerReply::Status::kInterrupted: out.disposition = Disposition::kSkipped; break;
    }
    out.reason = r.message;
    return out;
  }
  BaselineResult baseline(BaselineJob const& j, double d) override {
    return ScriptedGpu(0, -1).baseline(j, d);
  }
  int restarts() const override { return supervisor_.respawn_count(); }
  bool stopped() const override { return supervisor_.stopped(); }

 private:
  WorkerSupervisor supervisor_;
};

}  // namespace gemmtune::reliability
