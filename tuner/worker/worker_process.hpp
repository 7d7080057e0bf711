// WorkerProcess: one child process started by exec in its own process group, with a request
// pipe (its fd 3) and a reply pipe (its fd 4); framed send/receive with deadlines, SIGKILL of
// the whole group, reaping, and a description of how it ended.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {

/// The path of the running executable (/proc/self/exe), for re-executing it in worker mode.
/// Throws Error if it cannot be read.
std::string self_executable_path();

/// "exited with code 7", "killed by signal 11 (SIGSEGV)", from a waitpid status.
std::string describe_wait_status(int status);

/// A child process speaking the worker protocol. Not copyable; kills and reaps the child on
/// destruction. Used from one thread at a time.
class WorkerProcess {
 public:
  WorkerProcess() = default;
  ~WorkerProcess();
  WorkerProcess(WorkerProcess const&) = delete;
  WorkerProcess& operator=(WorkerProcess const&) = delete;

  /// Starts `exe` with `argv` (argv[0] included) by posix_spawn, so a CUDA-initialised parent is
  /// never forked: new process group, request pipe on fd 3, reply pipe on fd 4, stdin from
  /// /dev/null, stdout sent to our stderr, all signals at their defaults, environment = ours
  /// with `env` added or replaced. Throws Error when the file cannot be executed.
  void spawn(std::string const& exe, std::vector<std::string> const& argv,
             std::map<std::string, std::string> const& env = {});

  /// The child's pid (also its process group id); 0 before spawn.
  pid_t pid() const { return pid_; }

  /// Writes one frame to the child; kEof when it has closed its end (died).
  FrameStatus send(nlohmann::json const& message, Deadline deadline,
                   CancelCheck const& cancel = {});
  /// Reads one frame from the child; kEof when it closed its end (died). Throws ProtocolError
  /// on a broken frame.
  FrameStatus receive(nlohmann::json& message, Deadline deadline, CancelCheck const& cancel = {});

  /// Closes our end of the request pipe: the worker takes it as the parent going away and
  /// exits at once, even in the middle of a job (graceful shutdown, and parent-death tests).
  void close_requests();

  /// True while the child runs. Once it has exited, reaps it (recording how it ended) and
  /// kills whatever else is left in its process group.
  bool alive();
  /// Waits up to `timeout_s` for the child to exit by itself; true once it is reaped.
  bool wait_exit(double timeout_s);
  /// SIGKILL to the whole process group, then reap (waiting at most `reap_timeout_s`).
  /// Returns true once the child is reaped; false only if the kernel did not let it die in time
  /// (e.g. stuck in a driver call), in which case later alive()/kill() calls retry the reap.
  bool kill(double reap_timeout_s = 10.0);

  /// True once the child has been reaped (or was never started).
  bool reaped() const { return pid_ == 0 || status_.has_value(); }
  /// The waitpid status once reaped.
  std::optional<int> const& wait_status() const { return status_; }
  /// How the child ended ("killed by signal 9 (SIGKILL)"), or "running" / "not started".
  std::string describe_exit() const;

 private:
  // Reaps the child if it exits within `timeout_s` (0: only check); true once reaped.
  bool reap_within(double timeout_s);
  void close_pipes();

  pid_t pid_ = 0;
  int request_fd_ = -1;  // our write end of the child's fd 3
  int reply_fd_ = -1;    // our read end of the child's fd 4
  std::optional<int> status_;
};

}  // namespace gemmtune
