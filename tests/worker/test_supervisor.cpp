// WorkerSupervisor with real fake-worker processes: deadlines, kills, crashes, sticky faults,
// respawns, the crash-loop breaker, interrupts, and that nothing is left running or unreaped.
#include "tuner/worker/supervisor.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/core/error.hpp"
#include "tuner/worker/interrupt.hpp"

namespace gemmtune {
namespace {

using nlohmann::json;
using Status = WorkerReply::Status;
using Clock = std::chrono::steady_clock;

SupervisorOptions fast_options() {
  SupervisorOptions o;
  o.startup_timeout_s = 5.0;
  o.retry_backoff_s = 0.01;
  return o;
}

std::unique_ptr<WorkerSupervisor> make_supervisor(std::vector<std::string> extra_args = {},
                                                  SupervisorOptions o = fast_options(),
                                                  int device = 0) {
  std::vector<std::string> argv{GEMMTUNE_FAKE_WORKER};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  return std::make_unique<WorkerSupervisor>(GEMMTUNE_FAKE_WORKER, argv, device, std::move(o));
}

json fake(std::string const& action, json extra = json::object()) {
  extra["action"] = action;
  return extra;
}

// State letter from /proc/<pid>/stat ('Z' zombie, 'R', 'S', ...), or nullopt when gone.
std::optional<char> proc_state(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return std::nullopt;
  return line[close + 2];
}

// Gone, or a zombie that is not ours to reap (an orphaned grandchild waiting for init).
bool process_gone_within(pid_t pid, double seconds) {
  auto const until = Clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (::kill(pid, 0) == -1 && errno == ESRCH) return true;
    auto st = proc_state(pid);
    if (!st || *st == 'Z' || *st == 'X') return true;
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Our children that have exited but were not reaped.
int zombie_children() {
  int zombies = 0;
  std::string const me = std::to_string(::getpid());
  for (auto const& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream f(entry.path() / "stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    std::string ppid;
    rest >> state >> ppid;
    if (ppid == me && state == 'Z') ++zombies;
  }
  return zombies;
}

bool no_children_left() {
  int status = 0;
  return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

TEST(WorkerSupervisor, EchoRoundTripReusesTheWorker) {
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("echo", {{"x", {1, 2, 3}}}), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("x"), json({1, 2, 3}));
  EXPECT_FALSE(r.worker_replaced);
  pid_t const pid = sup->worker_pid();
  EXPECT_GT(pid, 0);

  r = sup->call("ping", json::object(), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("pid"), pid);
  EXPECT_EQ(sup->worker_pid(), pid);
  EXPECT_EQ(sup->respawn_count(), 0);
}

TEST(WorkerSupervisor, StartIsEager) {
  auto sup = make_supervisor();
  EXPECT_EQ(sup->worker_pid(), 0);
  EXPECT_TRUE(sup->start());
  EXPECT_GT(sup->worker_pid(), 0);
  EXPECT_EQ(proc_state(sup->worker_pid()).has_value(), true);
}

TEST(WorkerSupervisor, SleepWithinDeadlineIsOk) {
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("sleep", {{"ms", 100}}), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("slept_ms"), 100);
  EXPECT_GE(r.elapsed_s, 0.1);
  EXPECT_LT(r.elapsed_s, 2.0);
}

TEST(WorkerSupervisor, SleepPastDeadlineTimesOutKillsAndRespawns) {
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const old_pid = sup->worker_pid();
  WorkerReply r = sup->call("fake", fake("sleep", {{"ms", 10000}}), 0.3);
  EXPECT_EQ(r.status, Status::kTimeout);
  EXPECT_TRUE(r.worker_replaced);
  EXPECT_GE(r.elapsed_s, 0.3);
  EXPECT_LT(r.elapsed_s, 0.5);
  EXPECT_NE(r.message.find("no reply within"), std::string::npos) << r.message;
  EXPECT_EQ(sup->worker_pid(), 0);
  EXPECT_EQ(::kill(old_pid, 0), -1);  // killed and reaped: the pid no longer exists
  EXPECT_EQ(errno, ESRCH);
  EXPECT_EQ(sup->consecutive_job_failures(), 1);

  r = sup->call("fake", fake("echo"), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_NE(sup->worker_pid(), old_pid);
  EXPECT_EQ(sup->respawn_count(), 1);
  EXPECT_GT(sup->last_respawn_s(), 0.0);
  EXPECT_LT(sup->last_respawn_s(), 2.0);
  EXPECT_EQ(sup->consecutive_job_failures(), 0);
}

TEST(WorkerSupervisor, SpinIsKilledPromptlyAfterTheDeadline) {
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const pid = sup->worker_pid();
  auto const t0 = Clock::now();
  WorkerReply r = sup->call("fake", fake("spin"), 0.4);
  double const wall = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(r.status, Status::kTimeout);
  EXPECT_GE(r.elapsed_s, 0.4);
  EXPECT_LT(r.elapsed_s, 0.4 + 0.2);
  EXPECT_LT(wall, 0.4 + 0.2);
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
}

TEST(WorkerSupervisor, SegfaultIsACrashNamingTheSignal) {
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("segfault"), 5.0);
  EXPECT_EQ(r.status, Status::kCrash);
  EXPECT_NE(r.message.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << r.message;
  EXPECT_TRUE(r.worker_replaced);
  EXPECT_LT(r.elapsed_s, 2.0);
  r = sup->call("fake", fake("echo", {{"after", "crash"}}), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("after"), "crash");
  EXPECT_EQ(sup->respawn_count(), 1);
}

TEST(WorkerSupervisor, ExitWithoutReplyIsACrashWithItsCode) {
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("exit", {{"code", 7}}), 5.0);
  EXPECT_EQ(r.status, Status::kCrash);
  EXPECT_NE(r.message.find("exited with code 7"), std::string::npos) << r.message;
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
}

TEST(WorkerSupervisor, AbortIsACrash) {
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("abort"), 5.0);
  EXPECT_EQ(r.status, Status::kCrash);
  EXPECT_NE(r.message.find("SIGABRT"), std::string::npos) << r.message;
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
}

TEST(WorkerSupervisor, StickyFaultReplyIsDeliveredAndTheWorkerReplaced) {
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const old_pid = sup->worker_pid();
  WorkerReply r = sup->call("fake", fake("fault"), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("disposition"), "fault");
  EXPECT_TRUE(r.worker_replaced);
  EXPECT_LT(r.elapsed_s, 1.0);  // it exited by itself, well inside the grace period
  EXPECT_EQ(sup->worker_pid(), 0);
  EXPECT_EQ(::kill(old_pid, 0), -1);
  EXPECT_EQ(sup->consecutive_job_failures(), 1);
  r = sup->call("ping", json::object(), 5.0);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_NE(r.payload.at("pid"), old_pid);
  EXPECT_EQ(sup->respawn_count(), 1);
  EXPECT_EQ(sup->consecutive_job_failures(), 0);
}

TEST(WorkerSupervisor, UnknownTypeIsAnErrorAndTheWorkerLives) {
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const pid = sup->worker_pid();
  WorkerReply r = sup->call("warp-drive", {}, 5.0);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.message.find("unknown request type 'warp-drive'"), std::string::npos) << r.message;
  EXPECT_FALSE(r.worker_replaced);
  r = sup->call("fake", fake("no-such-action"), 5.0);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(sup->worker_pid(), pid);
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
  EXPECT_EQ(sup->respawn_count(), 0);
}

TEST(WorkerSupervisor, WorkerThatDiedWhileIdleIsReplacedBeforeTheNextJob) {
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const pid = sup->worker_pid();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  // Reapable only once every thread has gone (the leader shows 'Z' before its watcher thread
  // has exited); otherwise this would race the supervisor's liveness check.
  auto threads_left = [pid] {
    std::error_code ec;
    auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
    return ec ? 0 : static_cast<int>(std::distance(it, std::filesystem::directory_iterator()));
  };
  for (int i = 0; i < 1000 && (proc_state(pid) != 'Z' || threads_left() > 1); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  WorkerReply r = sup->call("fake", fake("echo"), 5.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_NE(sup->worker_pid(), pid);
  EXPECT_EQ(sup->respawn_count(), 1);
}

TEST(WorkerSupervisor, BreakerStopsADeviceWhoseWorkersDieAtStart) {
  auto sup = make_supervisor({"--die-on-start"});
  WorkerReply r = sup->call("fake", fake("echo"), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_TRUE(sup->stopped());
  EXPECT_NE(r.message.find("device 0 stopped: 3 fresh workers in a row"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("exited with code 5"), std::string::npos) << r.message;
  EXPECT_EQ(r.message, sup->stop_reason());

  auto const t0 = Clock::now();
  r = sup->call("fake", fake("echo"), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_EQ(r.message, sup->stop_reason());
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 0.05);
  EXPECT_FALSE(sup->start());
  EXPECT_EQ(zombie_children(), 0);
}

TEST(WorkerSupervisor, BreakerTripsOnAFailingCanary) {
  SupervisorOptions o = fast_options();
  o.max_consecutive_failures = 2;
  o.canary_type = "fake";
  o.canary_payload = fake("exit", {{"code", 3}});
  auto sup = make_supervisor({}, o);
  WorkerReply r = sup->call("fake", fake("echo"), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("2 fresh workers"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("exited with code 3 before its canary reply"), std::string::npos)
      << r.message;
  EXPECT_EQ(zombie_children(), 0);
}

TEST(WorkerSupervisor, UnhealthyCanaryReplyCounts) {
  SupervisorOptions o = fast_options();
  o.canary_type = "fake";
  o.canary_payload = fake("echo", {{"present", false}});
  o.canary_check = [](json const& p) {
    return p.value("present", false) ? std::string() : std::string("no GPU present");
  };
  auto sup = make_supervisor({}, o);
  WorkerReply r = sup->call("fake", fake("echo"), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("was unhealthy: no GPU present"), std::string::npos) << r.message;
}

TEST(WorkerSupervisor, HealthyCanaryAfterAFailedStartResetsTheCount) {
  // A canary that fails once (a file marks the first attempt) must not stop the device.
  std::string const marker =
      (std::filesystem::temp_directory_path() / ("gemmtune-canary-" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove(marker);
  SupervisorOptions o = fast_options();
  o.canary_check = [marker](json const&) {
    if (std::filesystem::exists(marker)) return std::string();
    std::ofstream(marker) << "1";
    return std::string("first start fails");
  };
  auto sup = make_supervisor({}, o);
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
  EXPECT_FALSE(sup->stopped());
  std::filesystem::remove(marker);
}

TEST(WorkerSupervisor, BreakerTripsOnAMissingExecutable) {
  WorkerSupervisor sup("/nonexistent/gemmtune", {"/nonexistent/gemmtune", "__worker"}, 0,
                       fast_options());
  WorkerReply r = sup.call("ping", json::object(), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("cannot start worker '/nonexistent/gemmtune'"), std::string::npos)
      << r.message;
}

TEST(WorkerSupervisor, OversizedHelloFrameIsRejected) {
  auto sup = make_supervisor({"--bad-hello"});
  WorkerReply r = sup->call("ping", json::object(), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("exceeds the limit"), std::string::npos) << r.message;
  EXPECT_EQ(zombie_children(), 0);
}

TEST(WorkerSupervisor, OtherProtocolVersionIsRefused) {
  auto sup = make_supervisor({"--old-protocol"});
  WorkerReply r = sup->call("ping", json::object(), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("speaks protocol"), std::string::npos) << r.message;
}

TEST(WorkerSupervisor, SilentWorkerHitsTheStartupTimeout) {
  SupervisorOptions o = fast_options();
  o.startup_timeout_s = 0.2;
  o.max_consecutive_failures = 2;
  auto sup = make_supervisor({"--no-hello"}, o);
  auto const t0 = Clock::now();
  WorkerReply r = sup->call("ping", json::object(), 5.0);
  EXPECT_EQ(r.status, Status::kStopped);
  EXPECT_NE(r.message.find("sent no hello within 0.2 s"), std::string::npos) << r.message;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 2.0);
  EXPECT_EQ(zombie_children(), 0);
}

TEST(WorkerSupervisor, WorkerSeesOnlyItsDevice) {
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  {
    auto sup = make_supervisor({}, fast_options(), 3);
    WorkerReply r = sup->call("fake", fake("env", {{"name", "CUDA_VISIBLE_DEVICES"}}), 5.0);
    ASSERT_EQ(r.status, Status::kOk) << r.message;
    EXPECT_EQ(r.payload.at("value"), "3");
  }
  ::setenv("CUDA_VISIBLE_DEVICES", "5, GPU-abc", 1);
  {
    SupervisorOptions o = fast_options();
    o.env["GEMMTUNE_EXTRA"] = "yes";
    auto sup = make_supervisor({}, o, 1);
    WorkerReply r = sup->call("fake", fake("env", {{"name", "CUDA_VISIBLE_DEVICES"}}), 5.0);
    ASSERT_EQ(r.status, Status::kOk) << r.message;
    EXPECT_EQ(r.payload.at("value"), "GPU-abc");
    r = sup->call("fake", fake("env", {{"name", "GEMMTUNE_EXTRA"}}), 5.0);
    EXPECT_EQ(r.payload.at("value"), "yes");
  }
  EXPECT_THROW(make_supervisor({}, fast_options(), 2), UsageError);
  EXPECT_THROW(make_supervisor({}, fast_options(), -1), UsageError);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(WorkerSupervisor, WorkerStdoutGoesToStderrNotOurStdout) {
  // Our stdout carries results; a kernel's printf in the worker must not land there.
  std::fflush(stdout);
  std::fflush(stderr);
  FILE* out_file = std::tmpfile();
  FILE* err_file = std::tmpfile();
  ASSERT_TRUE(out_file && err_file);
  int const saved_out = ::dup(1);
  int const saved_err = ::dup(2);
  ::dup2(::fileno(out_file), 1);
  ::dup2(::fileno(err_file), 2);
  WorkerReply r;
  {
    auto sup = make_supervisor();
    r = sup->call("fake", fake("print", {{"text", "printed-by-a-kernel"}}), 5.0);
  }
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  auto slurp = [](FILE* f) {
    std::rewind(f);
    std::string text;
    char buf[256];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
    std::fclose(f);
    return text;
  };
  EXPECT_EQ(slurp(out_file).find("printed-by-a-kernel"), std::string::npos);
  EXPECT_NE(slurp(err_file).find("printed-by-a-kernel"), std::string::npos);
}

TEST(WorkerSupervisor, WorkerInheritsOnlyItsPipesAndStdio) {
  // A stray copy of another worker's pipe (or of a database fd) in a worker would keep that
  // pipe open after its owner died and hide the crash.
  int spare[2];
  ASSERT_EQ(::pipe(spare), 0);  // not close-on-exec: closefrom must still keep it out
  auto sup = make_supervisor();
  WorkerReply r = sup->call("fake", fake("fds"), 5.0);
  ::close(spare[0]);
  ::close(spare[1]);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  std::vector<int> fds = r.payload.at("fds").get<std::vector<int>>();
  // 0-4, plus the descriptor the worker used to list /proc/self/fd.
  int beyond = 0;
  for (int fd : fds) beyond += fd > 4;
  EXPECT_LE(beyond, 1) << r.payload.dump();
  for (int fd : {0, 1, 2, 3, 4})
    EXPECT_NE(std::find(fds.begin(), fds.end(), fd), fds.end()) << fd;
}

TEST(WorkerSupervisor, DestructorKillsTheWholeWorkerGroup) {
  pid_t worker = 0;
  pid_t grandchild = 0;
  {
    auto sup = make_supervisor();
    WorkerReply r = sup->call("fake", fake("fork"), 5.0);
    ASSERT_EQ(r.status, Status::kOk) << r.message;
    worker = sup->worker_pid();
    grandchild = r.payload.at("pid").get<pid_t>();
    EXPECT_EQ(::getpgid(grandchild), worker);
    EXPECT_FALSE(process_gone_within(grandchild, 0.0));
  }
  EXPECT_TRUE(process_gone_within(worker, 0.0));
  EXPECT_TRUE(process_gone_within(grandchild, 2.0));
  EXPECT_TRUE(no_children_left());
}

TEST(WorkerSupervisor, NoZombiesAfterEveryKindOfFailure) {
  {
    auto sup = make_supervisor();
    EXPECT_EQ(sup->call("fake", fake("segfault"), 5.0).status, Status::kCrash);
    EXPECT_EQ(sup->call("fake", fake("spin"), 0.2).status, Status::kTimeout);
    EXPECT_EQ(sup->call("fake", fake("exit", {{"code", 1}}), 5.0).status, Status::kCrash);
    EXPECT_EQ(sup->call("fake", fake("fault"), 5.0).status, Status::kOk);
    EXPECT_EQ(sup->call("fake", fake("abort"), 5.0).status, Status::kCrash);
    EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
    EXPECT_EQ(sup->respawn_count(), 5);
    EXPECT_EQ(zombie_children(), 0);
  }
  EXPECT_TRUE(no_children_left());
}

TEST(WorkerSupervisor, InterruptAbandonsTheWaitAndKillsTheWorker) {
  install_interrupt_handler();
  clear_interrupt();
  auto sup = make_supervisor();
  ASSERT_TRUE(sup->start());
  pid_t const pid = sup->worker_pid();
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(::getpid(), SIGINT);
  });
  WorkerReply r = sup->call("fake", fake("sleep", {{"ms", 10000}}), 30.0);
  ctrl_c.join();
  EXPECT_EQ(r.status, Status::kInterrupted);
  EXPECT_LT(r.elapsed_s, 1.0);
  EXPECT_NE(r.message.find("interrupted by signal 2"), std::string::npos) << r.message;
  EXPECT_EQ(::kill(pid, 0), -1);
  // While the flag stays set, no new worker is started.
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kInterrupted);
  clear_interrupt();
  EXPECT_EQ(sup->call("fake", fake("echo"), 5.0).status, Status::kOk);
}

}  // namespace
}  // namespace gemmtune
