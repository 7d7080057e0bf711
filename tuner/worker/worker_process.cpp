// Spawning, talking to, killing and reaping one worker process.
#include "tuner/worker/worker_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/core/error.hpp"

extern char** environ;

namespace gemmtune {

namespace {

using Clock = std::chrono::steady_clock;

// Writes to a dead worker must fail with EPIPE, not kill the parent.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

// Moves `fd` above the child's fixed slots (0-4), so the file actions' dup2 calls cannot
// clobber one pipe end with another.
int lift_fd(int fd) {
  if (fd > kWorkerReplyFd) return fd;
  int lifted = ::fcntl(fd, F_DUPFD_CLOEXEC, kWorkerReplyFd + 1);
  int const err = errno;
  ::close(fd);
  if (lifted < 0) throw Error(std::string("cannot duplicate a pipe fd: ") + std::strerror(err));
  return lifted;
}

std::string signal_name(int sig) {
  char const* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "unknown signal";
}

// RAII for the posix_spawn attribute objects, so every throw path releases them.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

void check_spawn_call(int rc, char const* what) {
  if (rc != 0) throw Error(std::string("cannot prepare worker start (") + what + "): " +
                           std::strerror(rc));
}

}  // namespace

std::string self_executable_path() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's path from /proc/self/exe: " + ec.message());
  return path.string();
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int const sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")";
  }
  return "ended with wait status " + std::to_string(status);
}

WorkerProcess::~WorkerProcess() {
  kill();
  close_pipes();
}

void WorkerProcess::spawn(std::string const& exe, std::vector<std::string> const& argv,
                          std::map<std::string, std::string> const& env) {
  if (pid_ != 0) throw Error("WorkerProcess::spawn called twice on the same object");
  if (argv.empty()) throw Error("worker argv is empty; it needs at least argv[0]");
  ignore_sigpipe_once();

  int request[2];
  int reply[2];
  if (::pipe2(request, O_CLOEXEC) != 0)
    throw Error(std::string("cannot create worker pipe: ") + std::strerror(errno));
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    int const err = errno;
    ::close(request[0]);
    ::close(request[1]);
    throw Error(std::string("cannot create worker pipe: ") + std::strerror(err));
  }
  auto close_all = [&] {
    for (int fd : {request[0], request[1], reply[0], reply[1]})
      if (fd >= 0) ::close(fd);
  };

  int rc = 0;
  pid_t child = 0;
  try {
    request[0] = lift_fd(request[0]);
    reply[1] = lift_fd(reply[1]);

    SpawnSetup s;
    check_spawn_call(posix_spawn_file_actions_adddup2(&s.actions, request[0], kWorkerRequestFd),
                     "dup2 request pipe");
    check_spawn_call(posix_spawn_file_actions_adddup2(&s.actions, reply[1], kWorkerReplyFd),
                     "dup2 reply pipe");
    check_spawn_call(posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0),
                     "stdin from /dev/null");
    // The parent's stdout carries results (tables, JSON); anything a kernel or library prints
    // in the worker goes to stderr with the logs instead.
    check_spawn_call(posix_spawn_file_actions_adddup2(&s.actions, 2, 1), "stdout to stderr");
    check_spawn_call(posix_spawn_file_actions_addclosefrom_np(&s.actions, kWorkerReplyFd + 1),
                     "close other fds");

    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    check_spawn_call(posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP |
                                                           POSIX_SPAWN_SETSIGMASK |
                                                           POSIX_SPAWN_SETSIGDEF),
                     "flags");
    check_spawn_call(posix_spawnattr_setpgroup(&s.attr, 0), "process group");
    check_spawn_call(posix_spawnattr_setsigmask(&s.attr, &none), "signal mask");
    // Ignored signals survive exec; the parent ignores SIGPIPE, the worker must not.
    check_spawn_call(posix_spawnattr_setsigdefault(&s.attr, &all), "signal defaults");

    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
      std::string_view entry(*e);
      std::string_view key = entry.substr(0, entry.find('='));
      if (!env.contains(std::string(key))) env_strings.emplace_back(entry);
    }
    for (auto const& [key, value] : env) env_strings.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    for (auto& a : args) argp.push_back(a.data());
    argp.push_back(nullptr);

    rc = ::posix_spawn(&child, exe.c_str(), &s.actions, &s.attr, argp.data(), envp.data());
  } catch (...) {
    close_all();
    throw;
  }
  if (rc != 0) {
    close_all();
    throw Error("cannot start worker '" + exe + "': " + std::strerror(rc));
  }
  ::close(request[0]);
  ::close(reply[1]);
  pid_ = child;
  status_.reset();
  request_fd_ = request[1];
  reply_fd_ = reply[0];
  // Our ends only (the child's ends are separate open files): deadlines hold even on a full pipe.
  for (int fd : {request_fd_, reply_fd_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

FrameStatus WorkerProcess::send(nlohmann::json const& message, Deadline deadline,
                                CancelCheck const& cancel) {
  if (request_fd_ < 0) return FrameStatus::kEof;
  return write_frame(request_fd_, message, deadline, cancel);
}

FrameStatus WorkerProcess::receive(nlohmann::json& message, Deadline deadline,
                                   CancelCheck const& cancel) {
  if (reply_fd_ < 0) return FrameStatus::kEof;
  return read_frame(reply_fd_, message, deadline, cancel);
}

void WorkerProcess::close_requests() {
  if (request_fd_ >= 0) ::close(request_fd_);
  request_fd_ = -1;
}

bool WorkerProcess::reap_within(double timeout_s) {
  if (reaped()) return true;
  auto const until = Clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      status_ = status;
      // The leader is gone; take down anything it left in its group. While members remain the
      // kernel keeps the group id reserved; with none left this is a harmless ESRCH.
      ::kill(-pid_, SIGKILL);
      close_pipes();
      return true;
    }
    if (r < 0 && errno != EINTR) {
      // ECHILD: reaped elsewhere (e.g. SIGCHLD set to SIG_IGN); the status is lost.
      status_ = -1;
      close_pipes();
      return true;
    }
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(10)) pause *= 2;
  }
}

bool WorkerProcess::alive() { return !reap_within(0.0); }

bool WorkerProcess::wait_exit(double timeout_s) { return reap_within(timeout_s); }

bool WorkerProcess::kill(double reap_timeout_s) {
  if (reaped()) return true;
  ::kill(-pid_, SIGKILL);
  return reap_within(reap_timeout_s);
}

std::string WorkerProcess::describe_exit() const {
  if (pid_ == 0) return "not started";
  if (!status_) return "running";
  if (*status_ == -1) return "was reaped elsewhere (exit status unknown)";
  return describe_wait_status(*status_);
}

void WorkerProcess::close_pipes() {
  for (int* fd : {&request_fd_, &reply_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

}  // namespace gemmtune
