// Maps worker replies and failures onto EvalResult / BaselineResult / DeviceReport.
#include "tuner/search/worker_evaluator.hpp"

#include <sstream>

#include "tuner/worker/supervisor.hpp"

namespace gemmtune {
namespace {

std::string fmt_seconds(double s) {
  std::ostringstream os;
  os.precision(3);
  os << s << " s";
  return os.str();
}

}  // namespace

WorkerEvaluator::WorkerEvaluator(std::vector<std::string> worker_argv, int device_index) {
  SupervisorOptions opts;
  // A fresh worker must see its GPU before it is given a candidate: a worker that cannot is a
  // device problem (the crash-loop breaker counts it), not a candidate's fault.
  opts.canary_type = "device";
  opts.canary_payload = {{"require_present", true}};
  argv_ = worker_argv;
  device_index_ = device_index;
  supervisor_ = std::make_unique<WorkerSupervisor>(argv_.front(), worker_argv, device_index, opts);
}

WorkerEvaluator::~WorkerEvaluator() = default;

DeviceReport WorkerEvaluator::device() {
  if (device_) return *device_;
  // The first look goes through a worker without the GPU canary, so a machine with no GPU
  // answers present = false with the driver's reason instead of tripping the crash-loop breaker.
  WorkerSupervisor probe(argv_.front(), argv_, device_index_);
  WorkerReply r = probe.call("device", nlohmann::json::object(), 60.0);
  DeviceReport d;
  if (r.status == WorkerReply::Status::kOk) {
    d = r.payload.get<DeviceReport>();
    device_ = d;  // only a successful probe is kept; a failure is retried next time
  } else {
    d.present = false;
    d.reason = "the GPU worker failed to start or answer: " + r.message;
  }
  return d;
}

EvalResult WorkerEvaluator::evaluate(EvalJob const& job, double deadline_s) {
  WorkerReply r = supervisor_->call("eval", job, deadline_s);
  EvalResult out;
  switch (r.status) {
    case WorkerReply::Status::kOk:
      return r.payload.get<EvalResult>();
    case WorkerReply::Status::kTimeout:
      out.disposition = Disposition::kTimeout;
      out.reason = "no result within " + fmt_seconds(deadline_s) + "; worker killed";
      return out;
    case WorkerReply::Status::kCrash:
      out.disposition = Disposition::kCrash;
      out.reason = "worker died: " + r.message;
      return out;
    case WorkerReply::Status::kStopped:
      out.disposition = Disposition::kSkipped;
      out.reason = "device stopped: " + r.message;
      return out;
    case WorkerReply::Status::kError:
      out.disposition = Disposition::kLaunchError;
      out.reason = "worker error: " + r.message;
      return out;
    case WorkerReply::Status::kInterrupted:
      out.disposition = Disposition::kSkipped;
      out.reason = "interrupted";
      return out;
  }
  return out;
}

BaselineResult WorkerEvaluator::baseline(BaselineJob const& job, double deadline_s) {
  WorkerReply r = supervisor_->call("baseline", job, deadline_s);
  if (r.status == WorkerReply::Status::kOk) return r.payload.get<BaselineResult>();
  BaselineResult b;
  b.ok = false;
  b.reason = r.message.empty() ? "worker failed" : r.message;
  return b;
}

std::optional<RetimeResult> WorkerEvaluator::retime(RetimeJob const& job, double deadline_s) {
  WorkerReply r = supervisor_->call("retime", job, deadline_s);
  if (r.status != WorkerReply::Status::kOk) return std::nullopt;
  return r.payload.get<RetimeResult>();
}

CopyResult WorkerEvaluator::copy_bandwidth(CopyJob const& job, double deadline_s) {
  WorkerReply r = supervisor_->call("copy", job, deadline_s);
  if (r.status == WorkerReply::Status::kOk) return r.payload.get<CopyResult>();
  CopyResult c;
  c.bytes = job.bytes;
  c.reason = r.message.empty() ? "worker failed" : r.message;
  return c;
}

int WorkerEvaluator::restarts() const { return supervisor_->respawn_count(); }

bool WorkerEvaluator::stopped() const { return supervisor_->stopped(); }

}  // namespace gemmtune
