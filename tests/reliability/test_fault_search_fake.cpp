// Fault injection without a GPU: a SearchSession whose evaluator sends each candidate to a real
// worker process (`gemmtune __worker`, fake job type) that segfaults, aborts, exits, spins, or
// reports a sticky fault on request. The search must not abort, every trial must carry the
// right Disposition, nothing may falsely pass, the good configs must still be found, and each
// worker-killing job must cost one respawn.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <map>

#include "tests/reliability/fake_jobs.hpp"
#include "tests/reliability/scripted_search.hpp"
#include "tests/reliability/timed_evaluator.hpp"
#include "tests/search/memory_store.hpp"
#include "tests/support/test_paths.hpp"
#include "tuner/worker/interrupt.hpp"

namespace gemmtune::reliability {

TEST(FaultSearchFake, WorkerKillingJobsAreClassifiedAndTheSearchGoesOn) {
  FakeJobEvaluator worker(GEMMTUNE_REAL_WORKER);
  TimedEvaluator gpu(worker);
  MemoryStore store;
  FakeFaultFamily family;
  SearchOptions o;
  o.problems = {parse_shape("64x64x64")};
  o.families = {&family};
  o.retime_top = 0;
  o.job_timeout_s = 0.5;  // the spinning job is killed after this
  o.arguments = "fake fault injection";
  SearchSession session(gpu, store, immediate_compile(), "/nonexistent");
  SearchReport r;
  ASSERT_NO_THROW(r = session.run(o));
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.device_stopped);
  ASSERT_EQ(static_cast<int>(store.trials.size()), FakeFaultFamily::kConfigs);
  int injected = 0, classified = 0, false_passes = 0, good = 0, good_ok = 0, killers = 0;
  for (Trial const& t : store.trials) {
    int const a = static_cast<int>(t.config.at("A"));
    Disposition const want = FakeFaultFamily::expected(a);
    EXPECT_EQ(t.disposition, want) << t.config.id() << ": " << t.reason;
    if (want == Disposition::kOk) {
      ++good;
      good_ok += t.disposition == Disposition::kOk ? 1 : 0;
    } else {
      ++injected;
      classified += t.disposition == want ? 1 : 0;
      false_passes += t.disposition == Disposition::kOk ? 1 : 0;
      killers += 1;
    }
  }
  EXPECT_EQ(false_passes, 0);
  EXPECT_EQ(good_ok, good);
  EXPECT_EQ(r.worker_restarts, killers);  // one fresh worker per worker-killing job
  ASSERT_TRUE(r.problems[0].best.has_value());
  EXPECT_EQ(r.problems[0].best->config.at("A"), 0);  // the fast good job
  std::string after;
  for (double s : gpu.after_worker_loss()) after += std::to_string(s).substr(0, 5) + " ";
  std::printf("[figures] CPU fault injection (fake jobs, real worker processes): %d injected "
              "(segfault, abort, exit, spin, sticky fault), %d classified, %d false passes, %d "
              "aborted searches, good configs ok %d/%d, worker restarts %d; candidate after a "
              "worker-killing job took (s): %s(warm: %.4f s)\n",
              injected, classified, false_passes, r.interrupted || r.device_stopped ? 1 : 0,
              good_ok, good, r.worker_restarts, after.c_str(), gpu.median_warm_ok());
}

}  // namespace gemmtune::reliability

namespace gemmtune::reliability {

/// Scripted results, but the third evaluation is cut short by Ctrl-C: the flag is raised and
/// the result is what WorkerEvaluator returns for an interrupted wait (skipped, "interrupted").
class InterruptingGpu : public ScriptedGpu {
 public:
  InterruptingGpu() : ScriptedGpu(0, -1) {}
  EvalResult evaluate(EvalJob const& job, double d) override {
    if (++calls_ == 3) {
      ::raise(SIGINT);
      EvalResult r;
      r.disposition = Disposition::kSkipped;
      r.reason = "interrupted";
      interrupted_id = job.kernel_id;
      return r;
    }
    return ScriptedGpu::evaluate(job, d);
  }
  std::string interrupted_id;

 private:
  int calls_ = 0;
};

TEST(FaultSearchFake, ACandidateCutShortByCtrlCIsNotStoredAndRunsOnResume) {
  install_interrupt_handler();
  clear_interrupt();
  ScriptedFamily family;
  MemoryStore store;
  InterruptingGpu gpu;
  SearchOptions o;
  o.problems = {parse_shape("64x64x64")};
  o.families = {&family};
  o.retime_top = 0;
  o.budget.evaluations = 10;
  SearchReport const r = SearchSession(gpu, store, immediate_compile(), "/nonexistent").run(o);
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  ASSERT_FALSE(gpu.interrupted_id.empty());
  for (Trial const& t : store.trials) {
    EXPECT_NE(t.config.id(), gpu.interrupted_id) << "stored as " << to_string(t.disposition)
                                                 << " (" << t.reason << "): a resume would never run it";
  }
  ScriptedGpu again(0, -1);
  SearchSession(again, store, immediate_compile(), "/nonexistent").run(o);
  bool ran = false;
  for (Trial const& t : store.trials) {
    if (t.config.id() == gpu.interrupted_id) ran = t.disposition != Disposition::kSkipped;
  }
  EXPECT_TRUE(ran) << gpu.interrupted_id << " never ran";
}

}  // namespace gemmtune::reliability

namespace gemmtune::reliability {

// The production binary serves no test jobs: `gemmtune __worker` answers a fake job with an
// error reply naming the types it knows, and stays up.
TEST(FaultSearchFake, TheProductionWorkerServesNoFakeJobs) {
  std::string const bin = gemmtune::test::gemmtune_binary();
  SupervisorOptions o;
  o.startup_timeout_s = 60.0;
  WorkerSupervisor sup(bin, {bin, "__worker"}, 0, o);
  WorkerReply const r = sup.call("fake", nlohmann::json{{"action", "echo"}}, 30.0);
  EXPECT_EQ(r.status, WorkerReply::Status::kError) << r.message;
  EXPECT_NE(r.message.find("fake"), std::string::npos) << r.message;
  EXPECT_EQ(sup.call("ping", {}, 10.0).status, WorkerReply::Status::kOk);
  EXPECT_EQ(sup.respawn_count(), 0);
}

}  // namespace gemmtune::reliability
