// Fault injection without a GPU: a SearchSession whose evaluator sends each candidate to a real
// worker process (`gemmtune __worker`, fake job type) that segfaults, aborts, exits, spins, or
// reports a sticky fault on request. The search must not abort, every trial must carry the
// right Disposition, nothing may falsely pass, the good configs must still be found, and each
// worker-killing job must cost one respawn.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "fake_jobs.hpp"
#include "memory_store.hpp"
#include "scripted_search.hpp"
#include "timed_evaluator.hpp"

namespace gemmtune::reliability {

TEST(FaultSearchFake, WorkerKillingJobsAreClassifiedAndTheSearchGoesOn) {
  FakeJobEvaluator worker(GEMMTUNE_BINARY);
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
