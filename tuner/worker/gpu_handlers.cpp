// GPU request handlers of a worker process, over one GpuSession.
#include "tuner/worker/gpu_handlers.hpp"

#include <memory>

#include "src/core/error.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/gpu_session.hpp"

namespace gemmtune {

using nlohmann::json;

namespace {

// Shared by the handlers of one worker; the session outlives every request it serves.
struct SessionHolder {
  std::unique_ptr<GpuSession> session;
  GpuSession& get() {
    if (!session) session = std::make_unique<GpuSession>();
    return *session;
  }
};

/// A job the session answers with one call, after which the process is of no further use once
/// the session is poisoned (cuBLAS and copies can hit sticky errors as candidates do).
template <class Job, class Result>
WorkerHandler session_job(std::shared_ptr<SessionHolder> holder,
                          Result (GpuSession::*run)(Job const&)) {
  return [holder, run](json const& payload, bool& exit_after) -> json {
    Job const job = payload.get<Job>();
    GpuSession& session = holder->get();
    Result const result = (session.*run)(job);
    exit_after = session.poisoned();
    return result;
  };
}

}  // namespace

WorkerHandlers gpu_handlers() {
  auto holder = std::make_shared<SessionHolder>();
  WorkerHandlers h;
  h["device"] = [holder](json const& payload, bool&) -> json {
    DeviceReport report = holder->session ? holder->session->device() : probe_device();
    bool const require = payload.value("require_present", false);
    if (require && !report.present)
      throw Error("no usable GPU: " + (report.reason.empty() ? std::string("unknown reason")
                                                              : report.reason));
    return report;
  };
  h["eval"] = [holder](json const& payload, bool& exit_after) -> json {
    EvalJob const job = payload.get<EvalJob>();
    GpuSession& session = holder->get();
    EvalResult result = session.evaluate(job);
    for (PhaseTime const& step : session.last_phases()) result.steps.emplace_back(step.name, step.ms);
    exit_after = result.disposition == Disposition::kFault || session.poisoned();
    return result;
  };
  h["baseline"] = session_job(holder, &GpuSession::baseline);
  h["copy"] = session_job(holder, &GpuSession::copy_bandwidth);
  h["retime"] = session_job(holder, &GpuSession::retime);
  return h;
}

WorkerHandlers worker_handlers() { return gpu_handlers(); }

}  // namespace gemmtune
