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
  h["baseline"] = [holder](json const& payload, bool& exit_after) -> json {
    BaselineJob const job = payload.get<BaselineJob>();
    GpuSession& session = holder->get();
    BaselineResult const result = session.baseline(job);
    // cuBLAS can hit a sticky error too; this process is then of no further use.
    exit_after = session.poisoned();
    return result;
  };
  h["copy"] = [holder](json const& payload, bool& exit_after) -> json {
    CopyJob const job = payload.get<CopyJob>();
    GpuSession& session = holder->get();
    CopyResult const result = session.copy_bandwidth(job);
    exit_after = session.poisoned();
    return result;
  };
  h["retime"] = [holder](json const& payload, bool& exit_after) -> json {
    RetimeJob const job = payload.get<RetimeJob>();
    GpuSession& session = holder->get();
    RetimeResult const result = session.retime(job);
    exit_after = session.poisoned();
    return result;
  };
  return h;
}

WorkerHandlers worker_handlers() { return gpu_handlers(); }

}  // namespace gemmtune
