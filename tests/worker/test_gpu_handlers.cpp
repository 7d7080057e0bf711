// The production handlers behind a supervisor: "device" works with or without a GPU, GPU jobs
// fail as replies (not crashes) when there is no device or the payload is wrong, fake jobs are
// served by the same binary, and a GPU-touching canary stops a device that is not there.
#include <gtest/gtest.h>

#include "tuner/worker/supervisor.hpp"

namespace gemmtune {
namespace {

using nlohmann::json;
using Status = WorkerReply::Status;

SupervisorOptions options() {
  SupervisorOptions o;
  o.startup_timeout_s = 60.0;
  o.retry_backoff_s = 0.01;
  return o;
}

WorkerSupervisor make(SupervisorOptions o = options()) {
  return WorkerSupervisor(GEMMTUNE_REAL_WORKER, {GEMMTUNE_REAL_WORKER}, 0, std::move(o));
}

TEST(GpuHandlers, DeviceReportsPresenceOrWhyNot) {
  WorkerSupervisor sup = make();
  WorkerReply r = sup.call("device", {}, 60.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  ASSERT_TRUE(r.payload.contains("present")) << r.payload.dump();
  bool const present = r.payload.at("present").get<bool>();
  if (present) {
    EXPECT_FALSE(r.payload.at("gpu").at("name").get<std::string>().empty());
    EXPECT_GT(r.payload.at("gpu").at("sm_count").get<int>(), 0);
  } else {
    EXPECT_FALSE(r.payload.at("reason").get<std::string>().empty()) << r.payload.dump();
  }

  r = sup.call("device", json{{"require_present", true}}, 60.0);
  if (present) {
    EXPECT_EQ(r.status, Status::kOk) << r.message;
  } else {
    EXPECT_EQ(r.status, Status::kError);
    EXPECT_NE(r.message.find("no usable GPU"), std::string::npos) << r.message;
  }
  EXPECT_EQ(sup.respawn_count(), 0);
}

TEST(GpuHandlers, BadEvalPayloadIsAnErrorReplyAndTheWorkerLives) {
  WorkerSupervisor sup = make();
  WorkerReply r = sup.call("eval", json{{"problem", "not a problem"}}, 60.0);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_FALSE(r.message.empty());
  EXPECT_FALSE(r.worker_replaced);
  r = sup.call("fake", json{{"action", "echo"}, {"still", "here"}}, 10.0);
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_EQ(r.payload.at("still"), "here");
  EXPECT_EQ(sup.respawn_count(), 0);
}

TEST(GpuHandlers, FakeJobsRunInTheRealWorker) {
  WorkerSupervisor sup = make();
  WorkerReply r = sup.call("fake", json{{"action", "segfault"}}, 10.0);
  EXPECT_EQ(r.status, Status::kCrash);
  EXPECT_NE(r.message.find("SIGSEGV"), std::string::npos) << r.message;
  EXPECT_EQ(sup.call("ping", {}, 10.0).status, Status::kOk);
}

TEST(GpuHandlers, GpuCanaryStopsADeviceThatIsNotThere) {
  bool present = false;
  {
    WorkerSupervisor probe = make();
    WorkerReply r = probe.call("device", {}, 60.0);
    ASSERT_EQ(r.status, Status::kOk) << r.message;
    present = r.payload.at("present").get<bool>();
  }
  SupervisorOptions o = options();
  o.canary_type = "device";
  o.canary_payload = json{{"require_present", true}};
  o.max_consecutive_failures = 2;
  WorkerSupervisor sup = make(o);
  WorkerReply r = sup.call("ping", {}, 10.0);
  if (present) {
    EXPECT_EQ(r.status, Status::kOk) << r.message;
  } else {
    EXPECT_EQ(r.status, Status::kStopped);
    EXPECT_NE(r.message.find("no usable GPU"), std::string::npos) << r.message;
  }
}

}  // namespace
}  // namespace gemmtune
