// WorkerProcess against the fake worker binary: spawn layout, process group, kill and reap,
// exit descriptions.
#include "tuner/worker/worker_process.hpp"

#include <chrono>
#include <csignal>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gemmtune {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

Deadline in_s(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

TEST(WorkerProcess, DescribesWaitStatuses) {
  EXPECT_EQ(describe_wait_status(7 << 8), "exited with code 7");
  EXPECT_EQ(describe_wait_status(SIGSEGV), "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(describe_wait_status(SIGKILL), "killed by signal 9 (SIGKILL)");
}

TEST(WorkerProcess, MissingExecutableThrows) {
  WorkerProcess w;
  EXPECT_THROW(w.spawn("/nonexistent/gemmtune-worker", {"x"}), Error);
  EXPECT_TRUE(w.reaped());
}

TEST(WorkerProcess, SpawnsInOwnGroupSpeaksProtocolAndIsKilled) {
  WorkerProcess w;
  w.spawn(GEMMTUNE_FAKE_WORKER, {GEMMTUNE_FAKE_WORKER}, {{"GEMMTUNE_TEST_VAR", "forty-two"}});
  ASSERT_GT(w.pid(), 0);
  EXPECT_EQ(::getpgid(w.pid()), w.pid());
  EXPECT_NE(::getpgid(w.pid()), ::getpgid(0));

  json m;
  ASSERT_EQ(w.receive(m, in_s(5)), FrameStatus::kOk);
  WorkerHello const hello = parse_hello(m);
  EXPECT_EQ(hello.pid, w.pid());

  WorkerRequest const req{1, "fake", json{{"action", "env"}, {"name", "GEMMTUNE_TEST_VAR"}}};
  ASSERT_EQ(w.send(to_message(req), in_s(5)), FrameStatus::kOk);
  ASSERT_EQ(w.receive(m, in_s(5)), FrameStatus::kOk);
  EXPECT_EQ(parse_response(m).payload.at("value"), "forty-two");

  EXPECT_TRUE(w.alive());
  EXPECT_EQ(w.describe_exit(), "running");
  pid_t const pid = w.pid();
  EXPECT_TRUE(w.kill());
  EXPECT_TRUE(w.reaped());
  EXPECT_FALSE(w.alive());
  EXPECT_EQ(w.describe_exit(), "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(WorkerProcess, WorkerExitsWhenItsRequestPipeCloses) {
  // A spinning job never returns to the loop; the parent-death watch must still end it.
  WorkerProcess w;
  w.spawn(GEMMTUNE_FAKE_WORKER, {GEMMTUNE_FAKE_WORKER});
  json m;
  ASSERT_EQ(w.receive(m, in_s(5)), FrameStatus::kOk);
  ASSERT_EQ(w.send(to_message(WorkerRequest{1, "fake", json{{"action", "spin"}}}), in_s(5)),
            FrameStatus::kOk);
  EXPECT_EQ(w.receive(m, in_s(0.2)), FrameStatus::kTimeout);  // it is spinning
  w.close_requests();
  EXPECT_TRUE(w.wait_exit(3.0));
  EXPECT_EQ(w.describe_exit(), "exited with code 0");
}

TEST(WorkerProcess, WaitExitSeesAnOrderlyExit) {
  WorkerProcess w;
  w.spawn(GEMMTUNE_FAKE_WORKER, {GEMMTUNE_FAKE_WORKER, "--die-on-start"});
  EXPECT_TRUE(w.wait_exit(5.0));
  EXPECT_EQ(w.describe_exit(), "exited with code 5");
  json m;
  EXPECT_EQ(w.receive(m, in_s(1)), FrameStatus::kEof);
}

}  // namespace
}  // namespace gemmtune
