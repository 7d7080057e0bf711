// Concurrency: two searches on different shapes write one cache file at the same time and both
// finish with every trial stored; meanwhile `gemmtune list trials` and `gemmtune query` read the
// file over and over and must never fail or see a partial state (a trial with figures that do
// not match its config, or a snapshot missing a trial an earlier snapshot had).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "db/sqlite_trial_store.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/reliability/child_process.hpp"
#include "tests/reliability/scripted_search.hpp"

namespace gemmtune::reliability {
namespace {

/// "" when the trial's fields are the ones ScriptedGpu gives its config, else what is off.
std::string check_trial(nlohmann::json const& t) {
  KernelConfig const cfg = parse_kernel_id(t.at("kernel").get<std::string>());
  std::int64_t const x = cfg.at("X"), y = cfg.at("Y");
  std::string const d = t.at("disposition").get<std::string>();
  if (x % 7 == 3) return d == "wrong_result" ? "" : cfg.id() + " should be wrong_result, is " + d;
  if (d != "ok") return cfg.id() + " should be ok, is " + d;
  double const want = 1.0 + static_cast<double>(x > 20 ? x - 20 : 20 - x) / 10.0 +
                      static_cast<double>(y) / 100.0;
  if (std::fabs(t.at("time_ms").get<double>() - want) > 1e-9) return cfg.id() + " has a wrong time";
  if (t.at("cublas_ms").get<double>() != 2.0) return cfg.id() + " lacks its baseline";
  return "";
}

}  // namespace

TEST(Concurrency, TwoSearchesShareOneCacheAndAReaderNeverSeesAPartialState) {
  std::string const dir = test::temp_dir("reliab-concurrency");
  std::string const db = dir + "/cache.db";
  // Created first, so the readers have a file from their first look.
  { SqliteTrialStore init(db); }
  pid_t const a = spawn_child({scripted_search(), db, "256x256x256", "3"});
  pid_t const b = spawn_child({scripted_search(), db, "512x128x64", "3"});
  std::atomic<bool> done{false};
  int reads = 0, read_failures = 0, partial = 0, queries = 0, query_failures = 0;
  std::string first_problem;
  std::thread reader([&] {
    std::map<std::int64_t, nlohmann::json> seen;  // trial id → its row, as first read
    while (!done.load()) {
      test::CliRun r = test::run_cli({"--json", "list", "trials", "--limit", "0"}, db);
      ++reads;
      if (r.exit_code == 3 && seen.empty()) continue;  // nothing stored yet
      if (r.exit_code != 0) {
        ++read_failures;
        if (first_problem.empty()) first_problem = "list exit " + std::to_string(r.exit_code) + ": " + r.err;
        continue;
      }
      nlohmann::json const rows = nlohmann::json::parse(r.out, nullptr, false);
      if (rows.is_discarded() || !rows.is_array()) {
        ++read_failures;
        if (first_problem.empty()) first_problem = "unparsable list output";
        continue;
      }
      std::map<std::int64_t, nlohmann::json> now;
      for (auto const& t : rows) {
        now[t.at("id").get<std::int64_t>()] = t;
        if (std::string const why = check_trial(t); !why.empty()) {
          ++partial;
          if (first_problem.empty()) first_problem = why;
        }
      }
      for (auto const& [id, t] : seen) {
        auto it = now.find(id);
        if (it == now.end() || it->second != t) {
          ++partial;
          if (first_problem.empty()) first_problem = "trial " + std::to_string(id) + " vanished or changed";
        }
      }
      seen = std::move(now);
      test::CliRun q = test::run_cli({"--json", "query", "--shape", "256x256x256"}, db);
      ++queries;
      if (q.exit_code != 0 && q.exit_code != 3) {
        ++query_failures;
        if (first_problem.empty()) first_problem = "query exit " + std::to_string(q.exit_code) + ": " + q.err;
      }
    }
  });
  int const sa = wait_child(a);
  int const sb = wait_child(b);
  done = true;
  reader.join();
  EXPECT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0) << "search A status " << sa;
  EXPECT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0) << "search B status " << sb;
  EXPECT_EQ(read_failures, 0) << first_problem;
  EXPECT_EQ(query_failures, 0) << first_problem;
  EXPECT_EQ(partial, 0) << first_problem;
  EXPECT_GE(reads, 3);

  SqliteTrialStore store(db, SqliteTrialStore::Access::kReadOnly);
  std::map<std::string, std::map<std::string, int>> per_shape;
  for (Trial const& t : store.trials(TrialFilter{})) ++per_shape[t.problem.shape()][t.config.id()];
  ASSERT_EQ(per_shape.size(), 2u);
  for (auto const& [shape, rows] : per_shape) {
    EXPECT_EQ(rows.size(), static_cast<std::size_t>(ScriptedFamily::kConfigs)) << shape;
    for (auto const& [id, n] : rows) EXPECT_EQ(n, 1) << shape << " " << id;
  }
  std::printf("[figures] two concurrent searches: %zu + %zu trials stored of %d each; reader: %d "
              "list reads, %d queries, %d failures, %d partial states\n",
              per_shape.begin()->second.size(), per_shape.rbegin()->second.size(),
              ScriptedFamily::kConfigs, reads, queries, read_failures + query_failures, partial);
  std::filesystem::remove_all(dir);
}

}  // namespace gemmtune::reliability
