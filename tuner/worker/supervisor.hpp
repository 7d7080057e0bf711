// WorkerSupervisor: owns the worker process of one GPU. Every call has a deadline; a worker
// that times out, crashes or reports a sticky fault is killed with its process group, reaped
// and replaced on the next call; a device whose fresh workers keep failing is stopped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

namespace gemmtune {

class WorkerProcess;

/// How a supervisor treats its workers.
struct SupervisorOptions {
  /// From spawn to the canary's reply. Covers CUDA context and cuBLAS handle creation.
  double startup_timeout_s = 60.0;
  /// Crash-loop breaker: this many fresh workers in a row that die during startup or fail the
  /// canary stop the device. Jobs that kill a worker which passed its canary are blamed on the
  /// candidate, not the device, and do not count.
  int max_consecutive_failures = 3;
  /// Sent to every fresh worker before its first job. For GPU workers use a request that
  /// touches the device ({"type":"device","payload":{"require_present":true}}).
  std::string canary_type = "ping";
  nlohmann::json canary_payload = nlohmann::json::object();
  /// Optional extra check of the canary's reply payload: "" when healthy, otherwise why not.
  std::function<std::string(nlohmann::json const& payload)> canary_check;
  /// After a reply with exit_after, how long the worker may take to exit before SIGKILL.
  double exit_grace_s = 2.0;
  /// Pause before retrying a failed start, multiplied by the attempt number.
  double retry_backoff_s = 0.1;
  /// Added to (or replacing entries of) the worker's environment, after CUDA_VISIBLE_DEVICES.
  std::map<std::string, std::string> env;
  /// Abandon waits (killing the worker) once SIGINT/SIGTERM set the interrupt flag.
  bool stop_on_interrupt = true;
};

/// What one call came to.
struct WorkerReply {
  enum class Status {
    kOk,           ///< the worker replied ok:true; `payload` holds the result
    kError,        ///< the worker replied ok:false (bad request, handler error); it lives on
    kTimeout,      ///< no reply by the deadline; the worker was killed
    kCrash,        ///< the worker died (or broke the protocol) without replying
    kStopped,      ///< the device was stopped by the crash-loop breaker; nothing was run
    kInterrupted,  ///< Ctrl-C/SIGTERM arrived while waiting; the worker was killed
  };
  Status status = Status::kStopped;
  nlohmann::json payload;  ///< the reply payload (kOk)
  std::string message;     ///< what went wrong, e.g. "... killed by signal 11 (SIGSEGV)"
  double elapsed_s = 0.0;  ///< from sending the request to the reply or the reaped kill;
                           ///< excludes starting a worker
  bool worker_replaced = false;  ///< this call ended the worker; the next call starts another
};

/// "ok", "error", "timeout", "crash", "stopped", "interrupted".
std::string_view to_string(WorkerReply::Status s);

/// One device's worker, started lazily by exec of `argv` in worker mode. Use from one thread at
/// a time; supervisors of different devices may run on different threads.
class WorkerSupervisor {
 public:
  /// `argv` includes argv[0], e.g. {exe, "__worker"}. The worker sees only device
  /// `device_index` (of those in our own CUDA_VISIBLE_DEVICES, if that is set). Throws
  /// UsageError for a device index that is not visible.
  WorkerSupervisor(std::string exe_path, std::vector<std::string> argv, int device_index,
                   SupervisorOptions options = {});
  /// Kills the worker's process group and reaps it.
  ~WorkerSupervisor();
  WorkerSupervisor(WorkerSupervisor const&) = delete;
  WorkerSupervisor& operator=(WorkerSupervisor const&) = delete;

  /// Sends one request and waits at most `deadline_s` for its reply. Starts (or restarts) the
  /// worker first if needed. Never throws for anything the worker does.
  WorkerReply call(std::string const& type, nlohmann::json const& payload, double deadline_s);

  /// Starts a worker now rather than on the first call. False when the device is stopped (see
  /// stop_reason()) or the start was interrupted.
  bool start();
  /// Kills the current worker, if any; the next call starts a fresh one.
  void kill_worker();

  bool stopped() const { return stopped_; }
  std::string const& stop_reason() const { return stop_reason_; }
  /// Workers started to replace one that ended (the first start is not a respawn).
  int respawn_count() const { return respawn_count_; }
  /// Cost of the last respawn: killing and reaping the old worker plus starting the new one
  /// until it answered its canary (idle time between the two is not counted).
  double last_respawn_s() const { return last_respawn_s_; }
  /// Jobs in a row that ended their worker (timeout, crash, fault); reset by a normal reply.
  int consecutive_job_failures() const { return consecutive_job_failures_; }
  int device_index() const { return device_index_; }
  /// The running worker's pid, or 0.
  pid_t worker_pid() const;

 private:
  enum class StartResult { kStarted, kFailed, kInterrupted };

  bool ensure_worker(WorkerReply& out);
  StartResult start_one(std::string& why);
  void retire_worker(bool kill_first);
  bool cancelled() const;
  WorkerReply stopped_reply() const;

  std::string exe_;
  std::vector<std::string> argv_;
  int device_index_;
  SupervisorOptions options_;
  std::map<std::string, std::string> env_;

  std::unique_ptr<WorkerProcess> worker_;
  // Killed workers the kernel had not let go of yet (stuck in a driver call); reaped later.
  std::vector<std::unique_ptr<WorkerProcess>> lingering_;
  std::uint64_t next_id_ = 0;
  bool ever_started_ = false;
  double pending_kill_s_ = 0.0;
  int consecutive_start_failures_ = 0;
  int consecutive_job_failures_ = 0;
  int respawn_count_ = 0;
  double last_respawn_s_ = 0.0;
  bool stopped_ = false;
  std::string stop_reason_;
};

}  // namespace gemmtune
