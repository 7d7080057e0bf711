// Fault injection on a GPU: a real SearchSession with the real worker (`gemmtune __worker`)
// over the test-only fault kernels (kernels/faults.cuh) mixed with the ladder's naive and
// coalesced configs. Every fault must be classified as expected_dispositions() says, none may
// pass, the search must not abort, and the good configs must still be found. Prints the time
// the candidate after each worker-killing fault took (respawn included). Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>

#include "db/sqlite_trial_store.hpp"
#include "src/nvrtc/compile_pool.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tests/reliability/fault_family.hpp"
#include "tests/reliability/timed_evaluator.hpp"
#include "tests/support/test_paths.hpp"
#include "tuner/search/eval_job_builder.hpp"
#include "tuner/search/search_session.hpp"
#include "tuner/search/worker_evaluator.hpp"

namespace gemmtune::reliability {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(std::string const& name) {
  fs::path const dir = fs::temp_directory_path() / ("gemmtune_faults_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST(FaultSearchGpu, EveryFaultIsClassifiedNothingFalselyPassesGoodConfigsAreFound) {
  WorkerEvaluator worker({gemmtune::test::gemmtune_binary(), "__worker"}, 0);
  DeviceReport const dev = worker.device();
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.reason;
  std::string const dir = fresh_dir("search");
  TimedEvaluator gpu(worker);
  Compiler compiler(CompilerSettings{{}, dir + "/cubins"});
  CompilePool pool(compiler, 2);
  SqliteTrialStore store(dir + "/cache.db");
  FaultFamily faults(gemmtune::test::source_path("tests/reliability/kernels").string());
  Family const* naive = find_family("naive");
  Family const* coalesced = find_family("coalesced");
  ASSERT_TRUE(naive && coalesced);

  SearchOptions o;
  o.problems = {parse_shape("256x256x256")};
  o.families = {&faults, naive, coalesced};
  o.retime_top = 0;
  o.job_timeout_s = 5.0;  // the infinite loop costs this much
  o.arguments = "fault injection";
  SearchSession session(gpu, store, [&pool](CompileRequest r) { return pool.submit(std::move(r)); },
                        dir + "/loose");
  auto const t0 = std::chrono::steady_clock::now();
  SearchReport r;
  ASSERT_NO_THROW(r = session.run(o));
  double const wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.device_stopped);
  ASSERT_EQ(r.problems.size(), 1u);

  int injected = 0, classified = 0, false_passes = 0, good = 0, good_ok = 0;
  std::printf("%-26s %-14s %-14s %s\n", "fault", "expected", "got", "reason");
  for (Trial const& t : store.trials(TrialFilter{})) {
    if (t.config.family == "fault") {
      int const f = static_cast<int>(t.config.at("F"));
      Disposition const want = expected_dispositions().at(f);
      std::printf("%-26s %-14s %-14s %.150s\n", fault_name(f).c_str(), std::string(to_string(want)).c_str(),
                  std::string(to_string(t.disposition)).c_str(), t.reason.c_str());
      EXPECT_EQ(t.disposition, want) << fault_name(f) << ": " << t.reason;
      if (f == kCorrect) continue;
      ++injected;
      classified += t.disposition == want ? 1 : 0;
      false_passes += t.disposition == Disposition::kOk ? 1 : 0;
      if (f == kTf32InFp32) {
        std::printf("  TF32 at K=256: max |C-R|/bound = %.3g (> 1 fails)\n", t.max_err_ratio);
      }
    } else {
      ++good;
      good_ok += t.disposition == Disposition::kOk ? 1 : 0;
      EXPECT_EQ(t.disposition, Disposition::kOk) << t.config.id() << ": " << t.reason;
    }
  }
  EXPECT_EQ(injected, 9);
  EXPECT_EQ(false_passes, 0);
  EXPECT_EQ(good_ok, good);
  ASSERT_TRUE(r.problems[0].best.has_value());
  Trial const& best = *r.problems[0].best;
  EXPECT_EQ(best.disposition, Disposition::kOk);
  // The correct control (F=0) is naive with 16×16 tiles and may tie with it; no faulty one may win.
  EXPECT_TRUE(best.config.family != "fault" || best.config.at("F") == kCorrect) << best.config.id();

  std::string after;
  for (double s : gpu.after_worker_loss()) after += std::to_string(s).substr(0, 5) + " ";
  std::printf("[figures] GPU fault injection: %d injected, %d classified, %d false passes, %d aborted "
              "searches; good configs ok %d/%d; worker restarts %d; candidate after a worker-killing "
              "fault took (s): %s(warm ok candidate: %.3f s); search wall %.1f s\n",
              injected, classified, false_passes, r.interrupted || r.device_stopped ? 1 : 0, good_ok,
              good, r.worker_restarts, after.c_str(), gpu.median_warm_ok(), wall);
  fs::remove_all(dir);
}

TEST(FaultSearchGpu, Tf32InsideFp32AgainstK) {
  // The tolerance bound grows like sqrt(K) while TF32's error relative to sum|a||b| shrinks like
  // 1/sqrt(K), so from some K on the tolerance pass cannot tell TF32 from FP32. Report where.
  WorkerEvaluator gpu({gemmtune::test::gemmtune_binary(), "__worker"}, 0);
  DeviceReport const dev = gpu.device();
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.reason;
  std::string const dir = fresh_dir("tf32");
  Compiler compiler(CompilerSettings{{}, dir + "/cubins"});
  FaultFamily faults(gemmtune::test::source_path("tests/reliability/kernels").string());
  TimingSpec quick;
  quick.warmup_ms = 1;
  quick.target_ms = 1;
  quick.repeats = 1;
  for (std::int64_t k : {64, 256, 1024, 4096, 16384, 65536}) {
    Problem const p = parse_shape("128x128x" + std::to_string(k)).resolved();
    for (int f : {kCorrect, kTf32InFp32}) {
      KernelConfig cfg{"fault", {{"F", f}}};
      CompileResult const c = compiler.compile(faults.compile_request(cfg, p, dev.limits.arch));
      ASSERT_TRUE(c.ok) << c.log;
      EvalJob job = make_eval_job(faults, cfg, p, c, dir, 1, quick);
      job.exact_check = false;  // only the tolerance pass is in question here
      EvalResult const r = gpu.evaluate(job, 30.0);
      std::printf("[figures] K=%-6lld %-18s %-13s max |C-R|/bound %.3g\n", static_cast<long long>(k),
                  fault_name(f).c_str(), std::string(to_string(r.disposition)).c_str(), r.max_err_ratio);
      if (f == kCorrect) EXPECT_EQ(r.disposition, Disposition::kOk) << r.reason;
      if (f == kTf32InFp32 && k <= 256) EXPECT_EQ(r.disposition, Disposition::kWrongResult);
    }
  }
  fs::remove_all(dir);
}

}  // namespace gemmtune::reliability
