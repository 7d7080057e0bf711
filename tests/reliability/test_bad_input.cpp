// Bad input through the real binary: malformed shapes, precisions, layouts, kernel ids,
// budgets and paths; hostile JSON tables; cache files that are garbage, foreign, newer, read-only,
// locked or on a full disk. Each must give exactly one clear line on stderr ("gemmtune: ..."),
// the documented exit code (1 error, 2 usage, 3 no result), and leave every cache byte-identical.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/reliability/cli_child.hpp"

namespace gemmtune::reliability {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string slurp(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(std::string const& path, std::string const& text) {
  std::ofstream(path, std::ios::binary) << text;
}

Json valid_table() {
  return {{"format", "gemmtune-table"},
          {"version", 1},
          {"generated_at", "2026-01-01T00:00:00Z"},
          {"gemmtune_version", "0.1.0"},
          {"gpus", {{{"id", 0}, {"name", "NVIDIA H200"}, {"cc", "9.0"}, {"sm_count", 132}}}},
          {"entries",
           {{{"gpu", 0}, {"precision", "fp32"}, {"layout", "NN"}, {"m", 1024}, {"n", 1024},
             {"k", 1024}, {"align", 16}, {"kernel", "naive:BM=32,BN=8"}, {"time_ms", 1.0},
             {"tflops", 2.147483648}, {"cublas_ms", 0.5}, {"cublaslt_ms", 0.4},
             {"ratio_cublas", 0.5}, {"ratio_cublaslt", 0.4}}}},
          {"defaults", Json::array()}};
}

/// The valid table with one entry field replaced.
std::string table_with(std::string const& key, Json value) {
  Json t = valid_table();
  t["entries"][0][key] = std::move(value);
  return t.dump();
}

void sql(std::string const& path, std::string const& statements) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int const rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &err);
  std::string const msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

/// The files of a directory, sorted. Left out: SQLite's -shm and an EMPTY -wal beside a cache
/// (a read-only connection may not delete them when it closes; they hold no data), and the
/// cubin cache directory a dry run creates before it checks its arguments.
std::vector<std::string> listing(std::string const& dir) {
  std::vector<std::string> f;
  for (auto const& e : fs::directory_iterator(dir)) {
    std::string const name = e.path().filename().string();
    auto ends = [&](std::string const& tail) {
      return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends("-shm") || (ends("-wal") && fs::file_size(e.path()) == 0) || name == "cubins") continue;
    f.push_back(name);
  }
  std::sort(f.begin(), f.end());
  return f;
}

struct Case {
  std::string name;
  std::vector<std::string> args;
  int exit_code;
  std::string expect;       ///< a piece of the one stderr line
  std::string cache;        ///< file that must stay byte-identical ("" = the good cache)
  ChildOptions options{};   ///< db is filled in from `cache` when empty
  /// SQL a second connection runs on `cache` and holds open (uncommitted) during the case.
  std::string lock_sql;
};

class BadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::temp_directory_path() / ("gemmtune_reliab_bad_" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    write_file(dir_ + "/table.json", valid_table().dump(2));
    ChildRun r = run_gemmtune({"import", dir_ + "/table.json"}, {dir_ + "/good.db"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string dir_;
};
std::string BadInput::dir_;

}  // namespace

TEST_F(BadInput, EveryMalformedInputGivesOneClearLineAndLeavesTheCacheAlone) {
  std::string const d = dir_;
  std::string const good = d + "/good.db";
  auto p = [&](std::string const& name) { return d + "/" + name; };

  // Tables.
  std::string const valid = valid_table().dump();
  write_file(p("truncated.json"), valid.substr(0, valid.size() / 2));
  write_file(p("empty.json"), "");
  write_file(p("garbage.json"), std::string("\x7f" "ELF\x02\x01\x01\0\0\0garbage", 17));
  write_file(p("deep.json"), "{\"gpus\":" + std::string(100000, '[') + std::string(100000, ']') + "}");
  {  // Numbers nlohmann cannot hold as integers, written as text.
    std::string t = valid;
    t.replace(t.find("\"m\":1024"), 8, "\"m\":1e400");
    write_file(p("huge_number.json"), t);
    std::string big = valid;
    big.replace(big.find("\"m\":1024"), 8, "\"m\":123456789012345678901234567890");
    write_file(p("huge_int.json"), big);
  }
  write_file(p("huge_dim.json"), table_with("m", std::int64_t{1} << 40));
  write_file(p("negative.json"), table_with("k", -1));
  write_file(p("unknown_key.json"), table_with("evil", "x"));
  write_file(p("wrong_type.json"), table_with("m", "1024"));
  write_file(p("bad_precision.json"), table_with("precision", "fp64"));
  write_file(p("bad_layout.json"), table_with("layout", "XN"));
  write_file(p("bad_kernel.json"), table_with("kernel", "naive:BM=32,BN=8)\n#include \"/etc/passwd\""));
  write_file(p("unknown_family.json"), table_with("kernel", "nosuch:BM=32"));
  write_file(p("bad_value.json"), table_with("kernel", "naive:BM=7,BN=8"));
  write_file(p("nan_time.json"), table_with("time_ms", -1.0));
  {
    Json t = valid_table();
    t["version"] = 2;
    write_file(p("version2.json"), t.dump());
    t = valid_table();
    t["format"] = "something-else";
    write_file(p("format.json"), t.dump());
    t = valid_table();
    t["entries"][0]["gpu"] = 7;
    write_file(p("dangling_gpu.json"), t.dump());
    t = valid_table();
    t["entries"].push_back(t["entries"][0]);
    write_file(p("duplicate_entry.json"), t.dump());
    std::string dup = valid;
    dup.replace(dup.find("\"k\":1024"), 8, "\"k\":1024,\"k\":2048");
    write_file(p("duplicate_key.json"), dup);
    write_file(p("array_top.json"), "[1,2,3]");
  }
  {  // 100 MB: sparse, refused by size before a byte is parsed.
    std::ofstream(p("huge.json")).close();
    fs::resize_file(p("huge.json"), 100u << 20);
  }
  fs::create_directories(p("a_directory"));
  write_file(p("shapes_bad.txt"), "64 64 64\n# fine\n64 x 64\n");

  // Cache files.
  write_file(p("empty.db"), "");
  write_file(p("garbage.db"), "this is not a database, and it must stay exactly like this\n");
  sql(p("foreign.db"), "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES('mine');");
  sql(p("foreign_appid.db"), "PRAGMA application_id = 1234; CREATE TABLE t(x);");
  fs::copy_file(good, p("newer.db"));
  sql(p("newer.db"), "PRAGMA user_version = 999;");
  fs::copy_file(good, p("readonly.db"));
  fs::permissions(p("readonly.db"), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::copy_file(good, p("locked.db"));
  fs::copy_file(good, p("exclusive.db"));
  fs::copy_file(good, p("full.db"));
  write_file(p("table2.json"), table_with("m", 2048));


  std::string const long_id = "naive:BM=32,BN=8" + std::string(2000, '0');
  std::vector<Case> cases = {
      // Shapes.
      {"zero dim", {"search", "--dry-run", "--shape", "0x4x4"}, 2, "bad shape '0x4x4'"},
      {"two dims", {"search", "--dry-run", "--shape", "4x4"}, 2, "bad shape '4x4'"},
      {"negative", {"search", "--dry-run", "--shape", "-1x2x3"}, 2, "bad shape"},
      {"huge", {"search", "--dry-run", "--shape", "99999999999x1x1"}, 2, "larger than"},
      {"over max", {"search", "--dry-run", "--shape", "16777217x1x1"}, 2, "larger than 16777216"},
      {"overflow", {"search", "--dry-run", "--shape", "99999999999999999999999x1x1"}, 2, "larger than"},
      {"letters", {"search", "--dry-run", "--shape", "axbxc"}, 2, "not a positive integer"},
      {"empty", {"search", "--dry-run", "--shape", ""}, 2, "bad shape ''"},
      {"four dims", {"search", "--dry-run", "--shape", "8x8x8x8"}, 2, "4 part(s)"},
      {"float", {"search", "--dry-run", "--shape", "1e3x8x8"}, 2, "not a positive integer"},
      {"trailing x", {"search", "--dry-run", "--shape", "8x8x"}, 2, "K is empty"},
      {"plus sign", {"search", "--dry-run", "--shape", "+8x8x8"}, 2, "not a positive integer"},
      {"unicode digits", {"search", "--dry-run", "--shape", "\xef\xbc\x98x8x8"}, 2, "not a positive integer"},
      {"newline in shape", {"search", "--dry-run", "--shape", "8x8\nx8"}, 2, "bad shape"},
      {"query shape", {"query", "--shape", "0x0x0"}, 2, "bad shape"},
      {"list trials shape", {"list", "trials", "--shape", "12"}, 2, "bad shape '12'"},
      {"shapes file line", {"search", "--dry-run", "--shapes-file", p("shapes_bad.txt")}, 2, "shapes_bad.txt:3"},
      // Precisions and layouts.
      {"fp64", {"search", "--dry-run", "--shape", "8x8x8", "--precision", "fp64"}, 2, "bad precision 'fp64'"},
      {"empty precision", {"search", "--dry-run", "--shape", "8x8x8", "--precision", ""}, 2, "bad precision ''"},
      {"int8", {"query", "--shape", "8x8x8", "--precision", "int8"}, 2, "bad precision 'int8'"},
      {"layout XN", {"search", "--dry-run", "--shape", "8x8x8", "--layout", "XN"}, 2, "bad layout 'XN'"},
      {"layout NNN", {"query", "--shape", "8x8x8", "--layout", "NNN"}, 2, "bad layout 'NNN'"},
      {"export layout", {"export", "--layout", "ZZ"}, 2, "bad layout 'ZZ'"},
      {"export precision", {"export", "--precision", "fp8"}, 2, "bad precision 'fp8'"},
      // Kernel ids.
      {"no colon", {"show", "naive"}, 2, "bad kernel id 'naive'"},
      {"unknown family", {"show", "nosuch:BM=1"}, 2, "unknown kernel family 'nosuch'"},
      {"undeclared value", {"show", "naive:BM=7,BN=8"}, 2, "BM"},
      {"paren", {"show", "naive:BM=32,BN=8)"}, 2, "bad kernel id"},
      {"semicolon", {"show", "naive:BM=32;rm -rf /"}, 2, "bad kernel id"},
      {"newline include", {"show", "naive:BM=32,BN=8\n#include \"/etc/passwd\""}, 2, "bad kernel id"},
      {"too large", {"show", "naive:BM=99999999999,BN=8"}, 2, "too large"},
      {"negative value", {"show", "naive:BM=-1,BN=8"}, 2, "bad kernel id"},
      {"twice", {"show", "naive:BM=32,BM=32"}, 2, "given twice"},
      {"upper family", {"show", "Naive:BM=32,BN=8"}, 2, "bad kernel id"},
      {"lower param", {"show", "naive:bm=32,BN=8"}, 2, "bad kernel id"},
      {"unknown param", {"show", "naive:BM=32,BN=8,XX=1"}, 2, "XX"},
      {"missing param", {"show", "naive:BM=32"}, 2, "BN"},
      {"long id", {"show", long_id}, 2, "longer than 1024 characters"},
      {"empty id", {"show", ""}, 2, "bad kernel id"},
      {"list kernel", {"list", "trials", "--kernel", "naive:BM=$(id)"}, 2, "bad kernel id"},
      {"emit injection", {"emit", "naive:BM=32,BN=8,\"#include"}, 2, "bad kernel id"},
      // Budgets and other numbers.
      {"budget unit", {"search", "--dry-run", "--shape", "8x8x8", "--budget", "10q"}, 2, "bad budget '10q'"},
      {"budget negative", {"search", "--dry-run", "--shape", "8x8x8", "--budget", "-5"}, 2, "bad budget"},
      {"budget huge", {"search", "--dry-run", "--shape", "8x8x8", "--budget", "99999999999999999999999"}, 2, "bad budget"},
      {"budget empty", {"search", "--dry-run", "--shape", "8x8x8", "--budget", " "}, 2, "bad budget"},
      {"budget inf", {"search", "--dry-run", "--shape", "8x8x8", "--budget", "infs"}, 2, "bad budget"},
      {"align", {"search", "--dry-run", "--shape", "8x8x8", "--align", "3"}, 2, "bad --align 3"},
      {"arch", {"search", "--dry-run", "--shape", "8x8x8", "--arch", "sm_75"}, 2, "bad arch 'sm_75'"},
      {"limit", {"list", "trials", "--limit", "-1"}, 2, "bad --limit -1"},
      {"disposition", {"list", "trials", "--disposition", "great"}, 2, "great"},
      // Paths.
      {"shapes file missing", {"search", "--dry-run", "--shapes-file", "/nonexistent/s.txt"}, 2, "cannot read shapes file"},
      {"shapes file dir", {"search", "--dry-run", "--shapes-file", p("a_directory")}, 2, "shapes file"},
      {"import missing", {"import", "/nonexistent/t.json"}, 2, "cannot import '/nonexistent/t.json'"},
      {"import dir", {"import", p("a_directory")}, 2, "not a readable file"},
      {"export to missing dir", {"export", "--out", "/nonexistent/dir/t.json"}, 1, "/nonexistent/dir"},
      {"db is a dir", {"--db", p("a_directory"), "list", "shapes"}, 1, "is a directory"},
      {"unknown flag", {"search", "--no-such-flag"}, 2, "--no-such-flag"},
      {"unknown subcommand", {"tune"}, 2, "tune"},
      {"db missing", {"--db", "/nonexistent/dir/c.db", "query", "--shape", "8x8x8"}, 3, "no tuning cache"},
      {"table missing", {"query", "--shape", "8x8x8", "--table", "/nonexistent/t.json"}, 1, "/nonexistent/t.json"},
      {"table dir", {"query", "--shape", "8x8x8", "--table", p("a_directory")}, 1, "a_directory"},
      // Tables, through query --table (read path) and import (write path).
      {"truncated", {"query", "--shape", "8x8x8", "--table", p("truncated.json")}, 1, "truncated.json"},
      {"empty file", {"query", "--shape", "8x8x8", "--table", p("empty.json")}, 1, "empty.json"},
      {"binary", {"import", p("garbage.json")}, 1, "garbage.json"},
      {"deep", {"query", "--shape", "8x8x8", "--table", p("deep.json")}, 1, "deep"},
      {"deep import", {"import", p("deep.json")}, 1, "deep"},
      {"huge number", {"query", "--shape", "8x8x8", "--table", p("huge_number.json")}, 1, "huge_number.json"},
      {"huge int", {"import", p("huge_int.json")}, 1, "huge_int.json"},
      {"huge dim", {"import", p("huge_dim.json")}, 1, "entries[0].m"},
      {"negative k", {"import", p("negative.json")}, 1, "entries[0].k"},
      {"unknown key", {"import", p("unknown_key.json")}, 1, "entries[0].evil"},
      {"wrong type", {"query", "--shape", "8x8x8", "--table", p("wrong_type.json")}, 1, "entries[0].m"},
      {"table precision", {"import", p("bad_precision.json")}, 1, "fp64"},
      {"table layout", {"import", p("bad_layout.json")}, 1, "XN"},
      {"table kernel injection", {"import", p("bad_kernel.json")}, 1, "entries[0].kernel"},
      {"table family", {"import", p("unknown_family.json")}, 1, "nosuch"},
      {"table value", {"import", p("bad_value.json")}, 1, "BM"},
      {"table negative time", {"import", p("nan_time.json")}, 1, "time_ms"},
      {"version 2", {"import", p("version2.json")}, 1, "version"},
      {"other format", {"query", "--shape", "8x8x8", "--table", p("format.json")}, 1, "format"},
      {"dangling gpu", {"import", p("dangling_gpu.json")}, 1, "gpu"},
      {"duplicate entry", {"import", p("duplicate_entry.json")}, 1, "duplicate"},
      {"duplicate key", {"import", p("duplicate_key.json")}, 1, "k"},
      {"array top", {"import", p("array_top.json")}, 1, "array_top.json"},
      {"100 MB", {"import", p("huge.json")}, 1, "huge.json"},
      {"100 MB query", {"query", "--shape", "8x8x8", "--table", p("huge.json")}, 1, "huge.json"},
      // Cache files.
      {"empty cache file", {"list", "shapes"}, 3, "no tuning cache", p("empty.db")},
      {"garbage cache", {"list", "shapes"}, 1, "garbage.db", p("garbage.db")},
      {"garbage cache import", {"import", p("table.json")}, 1, "garbage.db", p("garbage.db")},
      {"foreign sqlite", {"list", "shapes"}, 1, "not a gemmtune cache", p("foreign.db")},
      {"foreign sqlite import", {"import", p("table.json")}, 1, "not a gemmtune cache", p("foreign.db")},
      {"foreign app id", {"export"}, 1, "another application's", p("foreign_appid.db")},
      {"newer schema", {"list", "shapes"}, 1, "newer gemmtune", p("newer.db")},
      {"newer schema import", {"import", p("table2.json")}, 1, "newer gemmtune", p("newer.db")},
      {"cache as import source", {"import", p("foreign.db")}, 1, "foreign.db"},
      {"read-only import", {"import", p("table2.json")}, 1, "readonly.db", p("readonly.db"), {"", -1, true}},
      // Another writer in the middle of a transaction: import waits busy_timeout, then says so.
      {"locked import", {"import", p("table2.json")}, 1, "locked", p("locked.db"), {},
       "BEGIN IMMEDIATE; INSERT INTO searches(arguments, started_at) VALUES('held', 1);"},
      // A process holding the file in exclusive locking mode keeps even readers out.
      {"exclusive read", {"list", "shapes"}, 1, "locked", p("exclusive.db"), {},
       "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; "
       "INSERT INTO searches(arguments, started_at) VALUES('held', 1);"},
      {"full disk import", {"import", p("table2.json")}, 1, "full.db", p("full.db"),
       {"", 4096, false}},
  };

  int tried = 0, clear = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Case c = cases[i];
    std::string const cache = c.cache.empty() ? good : c.cache;
    if (c.options.db.empty()) c.options.db = cache;
    std::string const before = slurp(cache);
    std::vector<std::string> const files_before = listing(d);
    sqlite3* held = nullptr;
    if (!c.lock_sql.empty()) {
      ASSERT_EQ(sqlite3_open(cache.c_str(), &held), SQLITE_OK);
      ASSERT_EQ(sqlite3_exec(held, c.lock_sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
          << c.name << ": " << sqlite3_errmsg(held);
    }
    ChildRun const r = run_gemmtune(c.args, c.options);
    if (held) {
      sqlite3_exec(held, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(held);
    }
    ++tried;
    std::string const label = c.name + ": " + r.err;
    bool const one_line = !r.err.empty() && std::count(r.err.begin(), r.err.end(), '\n') == 1 &&
                          r.err.back() == '\n' && r.err.rfind("gemmtune: ", 0) == 0;
    bool const ok = r.exit_code == c.exit_code && one_line && r.err.find(c.expect) != std::string::npos;
    EXPECT_EQ(r.exit_code, c.exit_code) << label;
    EXPECT_TRUE(one_line) << label;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": expected '" << c.expect << "' in: " << r.err;
    EXPECT_TRUE(slurp(cache) == before) << c.name << ": " << cache << " changed";
    EXPECT_EQ(listing(d), files_before) << c.name << ": files appeared or vanished";
    clear += ok ? 1 : 0;
  }
  EXPECT_GE(tried, 50);
  std::printf("[figures] bad inputs tried %d, clear one-line errors with the documented exit code %d\n",
              tried, clear);
}

}  // namespace gemmtune::reliability
