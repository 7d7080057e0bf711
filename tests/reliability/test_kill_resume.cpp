// Kill and resume: a scripted search into the real SQLite cache is SIGKILLed at 20 random
// moments; after each kill the cache must open cleanly and pass SQLite's integrity check, every
// trial the journal saw committed must be in it, no config may be stored twice, and the next
// run may redo at most the one trial that was in flight. The run after the last kill finishes
// the whole space.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "db/sqlite_trial_store.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/reliability/child_process.hpp"
#include "tests/reliability/journal.hpp"
#include "tests/reliability/scripted_search.hpp"

namespace gemmtune::reliability {
namespace {

std::string fresh_dir(std::string const& name) {
  auto const dir = std::filesystem::temp_directory_path() /
                   ("gemmtune_reliab_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/// SQLite's own verdict on the file, opened read-write as a resumed search would.
std::string integrity(std::string const& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string const why = db ? sqlite3_errmsg(db) : "open failed";
    sqlite3_close(db);
    return why;
  }
  sqlite3_stmt* st = nullptr;
  std::string verdict = "no answer";
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    verdict = reinterpret_cast<char const*>(sqlite3_column_text(st, 0));
  } else {
    verdict = sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return verdict;
}

/// The file's committed schema version (PRAGMA user_version; 0 before the first search's setup
/// commits, or -1 when SQLite cannot read it).
int committed_version(std::string const& path) {
  sqlite3* db = nullptr;
  int version = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      version = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return version;
}

/// Kernel id → rows stored, read through the store's read-only path.
std::map<std::string, int> stored_rows(std::string const& db) {
  SqliteTrialStore store(db, SqliteTrialStore::Access::kReadOnly);
  std::map<std::string, int> rows;
  for (Trial const& t : store.trials(TrialFilter{})) ++rows[t.config.id()];
  return rows;
}

void mark_run(std::string const& journal, int n) {
  std::ofstream(journal, std::ios::app) << "run " << n << "\n";
}

}  // namespace

TEST(KillResume, TwentySigkillsLoseNothingAndRedoAtMostOneTrialEach) {
  std::string const dir = fresh_dir("kill");
  std::string const db = dir + "/cache.db";
  std::string const journal = dir + "/journal.txt";
  std::uint64_t const seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  // Kills land anywhere: while the cache file is created, the baseline, a candidate or a
  // commit.
  std::uniform_int_distribution<int> delay_ms(2, 250);
  int kills = 0, finished_early = 0, run = 0, empty_files = 0;
  std::vector<int> delays;
  while (kills < 20 && run < 60) {
    mark_run(journal, run++);
    pid_t const pid = spawn_child({scripted_search(), db, "256x256x256", "3", journal});
    int const d = delay_ms(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(d));
    ::kill(pid, SIGKILL);
    int const status = wait_child(pid);
    if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
      ++finished_early;  // the search ended before the kill; not counted as a kill
      break;
    }
    ++kills;
    delays.push_back(d);
    if (!std::filesystem::exists(db)) continue;  // killed before the cache was created
    ASSERT_EQ(integrity(db), "ok") << "after kill " << kills << " (seed " << seed << ")";
    if (std::filesystem::file_size(db) == 0 || committed_version(db) == 0) {
      // Killed while creating the file, or before its setup committed (the header is written,
      // the schema is not): a reader must say "no cache yet" (exit 3); the next search sets it
      // up.
      test::CliRun const r = test::run_cli({"list", "searches"}, db);
      EXPECT_EQ(r.exit_code, 3) << r.err;
      ++empty_files;
      continue;
    }
    std::map<std::string, int> rows;
    ASSERT_NO_THROW(rows = stored_rows(db)) << "after kill " << kills;
    for (auto const& [id, n] : rows) ASSERT_EQ(n, 1) << id << " stored twice (seed " << seed << ")";
    for (JournalRun const& r : read_journal(journal)) {
      for (auto const& id : r.stored) {
        ASSERT_TRUE(rows.count(id)) << "committed trial " << id << " lost after kill " << kills;
      }
    }
  }
  ASSERT_EQ(kills, 20) << "the search finished before 20 kills (seed " << seed << ")";

  // The final run finishes the space.
  mark_run(journal, run++);
  pid_t const pid = spawn_child({scripted_search(), db, "256x256x256", "0", journal});
  int const status = wait_child(pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "final run status " << status;
  std::map<std::string, int> const rows = stored_rows(db);
  EXPECT_EQ(rows.size(), static_cast<std::size_t>(ScriptedFamily::kConfigs));
  for (auto const& [id, n] : rows) EXPECT_EQ(n, 1) << id;

  // Redone: evaluated in a run after an earlier run had already evaluated it.
  std::vector<JournalRun> const runs = read_journal(journal);
  std::set<std::string> seen;
  int redone_total = 0, lost = 0, max_redone = 0;
  for (JournalRun const& r : runs) {
    int redone = 0;
    for (auto const& id : r.evaluated) redone += seen.count(id) ? 1 : 0;
    for (auto const& id : r.evaluated) seen.insert(id);
    for (auto const& id : r.stored) lost += rows.count(id) ? 0 : 1;
    EXPECT_LE(redone, 1) << "a resume redid " << redone << " trials (seed " << seed << ")";
    redone_total += redone;
    max_redone = std::max(max_redone, redone);
  }
  EXPECT_EQ(lost, 0);
  std::string ds;
  for (int d : delays) ds += std::to_string(d) + " ";
  std::printf("[figures] kills %d, trials lost %d, trials redone %d (at most %d per resume), "
              "configs %zu, kills that left an empty cache file %d, seed %llu, kill delays ms: %s\n",
              kills, lost, redone_total, max_redone, rows.size(), empty_files,
              static_cast<unsigned long long>(seed), ds.c_str());
  std::filesystem::remove_all(dir);
}

}  // namespace gemmtune::reliability
