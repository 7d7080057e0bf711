// The CLI without a GPU: help lists every subcommand, bad input gives one clear line and exit 2,
// a dry run compiles a space, and GPU commands say plainly that there is no GPU.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune::test {
namespace {

bool has_gpu() {
  CliRun r = run_cli({"devices"});
  return r.exit_code == 0;
}

int lines(std::string const& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

/// A valid one-entry table (1024³ fp32 NN on an H200, naive:BM=32,BN=8 at 1 ms) at `path`.
void write_sample_table(std::string const& path) {
  nlohmann::json const t = {
      {"format", "gemmtune-table"},
      {"version", 1},
      {"generated_at", "2026-01-01T00:00:00Z"},
      {"gemmtune_version", "0.1.0"},
      {"gpus", {{{"id", 0}, {"name", "NVIDIA H200"}, {"cc", "9.0"}, {"sm_count", 132}}}},
      {"entries",
       {{{"gpu", 0}, {"precision", "fp32"}, {"layout", "NN"}, {"m", 1024}, {"n", 1024}, {"k", 1024},
         {"align", 16}, {"kernel", "naive:BM=32,BN=8"}, {"time_ms", 1.0}, {"tflops", 2.147483648},
         {"cublas_ms", 0.5}, {"cublaslt_ms", 0.4}, {"ratio_cublas", 0.5}, {"ratio_cublaslt", 0.4}}}},
      {"defaults", nlohmann::json::array()}};
  std::ofstream(path) << t.dump(2);
}

}  // namespace

TEST(Cli, HelpListsEverySubcommand) {
  CliRun r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (char const* sub : {"search", "query", "export", "list", "show", "bench", "space", "ladder",
                          "devices"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + sub), std::string::npos) << sub;
  }
  EXPECT_EQ(r.out.find("__worker"), std::string::npos);  // hidden
}

// Global options work after the subcommand too, and a cut list says what it left out.
TEST(Cli, GlobalOptionsAfterTheSubcommandAndListSaysWhatItCut) {
  std::string const dir = temp_dir("fallthrough");
  write_sample_table(dir + "/t.json");
  ASSERT_EQ(run_cli({"import", dir + "/t.json", "--db", dir + "/cache.db"}).exit_code, 0);
  CliRun j = run_cli({"list", "trials", "--json", "--db", dir + "/cache.db"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out).size(), 1u);
  nlohmann::json t = nlohmann::json::parse(std::ifstream(dir + "/t.json"));
  for (int m = 2; m <= 4; ++m) {
    t["entries"][0]["m"] = 1024 * m;
    std::ofstream(dir + "/t" + std::to_string(m) + ".json") << t.dump();
    ASSERT_EQ(run_cli({"import", dir + "/t" + std::to_string(m) + ".json"}, dir + "/cache.db").exit_code, 0);
  }
  CliRun cut = run_cli({"list", "trials", "--limit", "2"}, dir + "/cache.db");
  EXPECT_EQ(cut.exit_code, 0);
  EXPECT_NE(cut.err.find("showing 2 of 4 trials, newest first (--limit N or --all for more)"),
            std::string::npos)
      << cut.err;
  CliRun all = run_cli({"list", "trials", "--all"}, dir + "/cache.db");
  EXPECT_EQ(all.err.find("showing"), std::string::npos) << all.err;
  EXPECT_EQ(run_cli({"--json", "list", "trials", "--all"}, dir + "/cache.db").out.empty(), false);
}

// A lookup in the default precision (fp32) that finds nothing names the precisions and layouts
// the cache and the table hold for that shape.
TEST(Cli, AnEmptyListOrQueryNamesTheShapesOtherPrecisions) {
  std::string const dir = temp_dir("other-precision");
  write_sample_table(dir + "/t.json");
  nlohmann::json t = nlohmann::json::parse(std::ifstream(dir + "/t.json"));
  t["entries"][0]["precision"] = "bf16";
  t["entries"][0]["layout"] = "TN";
  t["entries"][0]["kernel"] = "cublas:default";
  t["entries"][0]["vendor"] = true;
  t["entries"][0]["cublas_version"] = "13.1.0";
  std::ofstream(dir + "/bf16.json") << t.dump();
  ASSERT_EQ(run_cli({"import", dir + "/bf16.json"}, dir + "/cache.db").exit_code, 0);
  CliRun l = run_cli({"list", "trials", "--shape", "1024x1024x1024"}, dir + "/cache.db");
  EXPECT_EQ(l.exit_code, 3);
  EXPECT_NE(l.err.find("no fp32 NN trials of 1024x1024x1024; the cache "), std::string::npos)
      << l.err;
  EXPECT_NE(l.err.find("has 1024x1024x1024 in bf16 TN (choose with --precision and --layout)"),
            std::string::npos)
      << l.err;
  CliRun found = run_cli({"list", "trials", "--shape", "1024x1024x1024", "--precision", "bf16",
                          "--layout", "TN"},
                         dir + "/cache.db");
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.err.find("choose with"), std::string::npos) << found.err;
  CliRun q = run_cli({"query", "--shape", "1024x1024x1024", "--table", dir + "/bf16.json"});
  EXPECT_NE(q.err.find("has 1024x1024x1024 in bf16 TN"), std::string::npos) << q.err;
  CliRun qj = run_cli({"--json", "query", "--shape", "1024x1024x1024", "--table", dir + "/bf16.json"});
  nlohmann::json const answer = nlohmann::json::parse(qj.out);
  EXPECT_NE(answer.at(0).at("other_variants").get<std::string>().find("bf16 TN"), std::string::npos);
}

/// Rows of a CSV document (RFC 4180 quoting), for checking what --csv prints.
std::vector<std::vector<std::string>> parse_csv(std::string const& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, fresh = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char const c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && fresh) {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      fresh = true;
      continue;
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      fresh = true;
      continue;
    } else {
      field += c;
    }
    fresh = false;
  }
  return rows;
}

// --csv: stdout is one CSV document with the documented columns, quoted where a field holds a
// comma; the lines around the table go to stderr; --csv and --json together are a usage error.
TEST(Cli, CsvResultsParseWithTheDocumentedColumns) {
  std::string const dir = temp_dir("csv");
  write_sample_table(dir + "/t.json");
  ASSERT_EQ(run_cli({"import", dir + "/t.json"}, dir + "/cache.db").exit_code, 0);
  CliRun l = run_cli({"list", "trials", "--csv"}, dir + "/cache.db");
  ASSERT_EQ(l.exit_code, 0) << l.err;
  auto rows = parse_csv(l.out);
  ASSERT_EQ(rows.size(), 2u) << l.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"id", "problem", "kernel", "result", "time", "spread",
                                               "TFLOP/s", "vs cuBLAS", "vs cuBLASLt", "regs",
                                               "reason"}));
  EXPECT_EQ(rows[1][2], "naive:BM=32,BN=8");  // a comma inside: quoted, read back whole
  CliRun q = run_cli({"query", "--csv", "--shape", "1024x1024x1024", "--table", dir + "/t.json"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  rows = parse_csv(q.out);
  ASSERT_EQ(rows.size(), 2u) << q.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"problem", "kernel", "rule", "time", "spread",
                                               "TFLOP/s", "vs cuBLAS", "vs cuBLASLt",
                                               "own vs cuBLAS", "own vs best"}));
  EXPECT_EQ(rows[1][2], "exact");
  ASSERT_EQ(rows[1].size(), rows[0].size());
  EXPECT_EQ(rows[1].back().back(), 'x') << q.out;  // an own pick: its ratio to the best vendor
  CliRun ls = run_cli({"list", "shapes", "--csv"}, dir + "/cache.db");
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  rows = parse_csv(ls.out);
  ASSERT_EQ(rows.size(), 2u) << ls.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"gpu", "problem", "trials", "ok", "failed", "pick",
                                               "time", "TFLOP/s", "vs cuBLAS", "vs cuBLASLt",
                                               "own vs cuBLAS", "own vs best"}));
  ASSERT_EQ(rows[1].size(), rows[0].size());
  EXPECT_EQ(rows[1].back().back(), 'x') << ls.out;
  EXPECT_NE(q.err.find("from table"), std::string::npos) << q.err;
  CliRun s = run_cli({"space", "--csv", "--shape", "512x512x512", "--family", "naive", "--list"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  rows = parse_csv(s.out);
  ASSERT_GT(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"family", "kernel"}));
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i].size(), 2u) << s.out;
  EXPECT_EQ(run_cli({"list", "trials", "--csv", "--json"}, dir + "/cache.db").exit_code, 2);
}

// space --ranked: the configs in the order a search starts from, with the roofline estimate.
TEST(Cli, SpaceRanksConfigsByTheRooflineEstimate) {
  CliRun s = run_cli({"space", "--csv", "--shape", "1024x1024x1024", "--precision", "bf16",
                      "--family", "wgmma,naive", "--arch", "sm_90a", "--list", "--ranked"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  std::vector<std::vector<std::string>> const rows = parse_csv(s.out);
  ASSERT_GT(rows.size(), 10u) << s.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"family", "kernel", "estimate_kclk"}));
  double last = 0.0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 3u) << s.out;
    EXPECT_EQ(rows[i][0], "wgmma") << "naive has no bf16 kernels";
    double const kclk = std::stod(rows[i][2]);
    EXPECT_GE(kclk, last) << rows[i][1];
    last = kclk;
  }
  // fp32's seed ladder has no estimate: listed after, with '-'.
  CliRun f = run_cli({"space", "--csv", "--shape", "512x512x512", "--family", "naive,simt",
                      "--list", "--ranked"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.out.find("naive,\"naive:BM=8,BN=8\",-"), std::string::npos) << f.out;
  EXPECT_EQ(run_cli({"space", "--ranked"}).exit_code, 2);
  // show gives one config's estimate and what bounds it.
  CliRun w = run_cli({"--json", "show", "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0",
                      "--shape", "4096x4096x4096", "--precision", "bf16", "--arch", "sm_90a"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  nlohmann::json const roof = nlohmann::json::parse(w.out).at("roofline");
  EXPECT_EQ(roof.at("sm_count"), 132);
  EXPECT_EQ(roof.at("units"), 512);  // 32 × 16 tiles of 128 × 256
  EXPECT_EQ(roof.at("waves"), 4);
  EXPECT_EQ(roof.at("bound"), "compute");
  EXPECT_GT(roof.at("total_clocks").get<double>(), 4 * roof.at("compute_clocks").get<double>());
}

// Help and errors point the right way: the example id of show --help is a valid id, and
// unreadable replay data says why.
TEST(Cli, HelpExamplesAreValidAndMissingFilesSayWhy) {
  CliRun h = run_cli({"show", "--help"});
  std::size_t const at = h.out.find("e.g. ");
  ASSERT_NE(at, std::string::npos) << h.out;
  std::string const id = h.out.substr(at + 5, h.out.find_first_of(" \n", at + 5) - (at + 5));
  CliRun s = run_cli({"show", id}, temp_dir("help-example") + "/cache.db");
  EXPECT_NE(s.exit_code, 2) << id << ": " << s.err;
  CliRun r = run_cli({"replay", "--from", temp_dir("replay-missing") + "/none.jsonl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

// --version carries what a bug report needs, not only the release number.
TEST(Cli, VersionNamesTheBuildAndTheLibraries) {
  CliRun r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  for (char const* part : {"gemmtune 0.", "(git ", " build)", "CUDA 13", "NVRTC 13", "cuBLAS 13",
                           "kernel archs: sm_80", "sm_90a"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << " in:\n" << r.out;
  }
}

TEST(Cli, UsageErrorsAreOneClearLineWithExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> const cases = {
      {{"search", "--shape", "0x4x4", "--dry-run"}, "bad shape '0x4x4'"},
      {{"search", "--shape", "4x4", "--dry-run"}, "bad shape '4x4'"},
      {{"search", "--shape", "-1x2x3", "--dry-run"}, "bad shape"},
      {{"search", "--shape", "99999999999x1x1", "--dry-run"}, "larger than"},
      {{"search", "--shape", "axbxc", "--dry-run"}, "not a positive integer"},
      {{"search", "--shape", "64-1x8x8", "--dry-run"}, "is empty or inverted"},
      {{"search", "--shape", "1-64x8x1-8", "--dry-run"}, "only M may be a range"},
      {{"regret", "--shape", "64x64x64"}, "regret takes an M range"},
      {{"regret", "--shape", "1-64x64x64", "--samples", "0"}, "--samples"},
      {{"search", "--shape", "8x8x8", "--precision", "fp64", "--dry-run"}, "bad precision 'fp64'"},
      {{"search", "--shape", "72x64x64", "--precision", "e4m3", "--layout", "TN", "--dry-run"},
       "needs M a multiple of 16"},
      {{"search", "--shape", "64x64x40", "--precision", "e4m3", "--layout", "NT", "--dry-run"},
       "K a multiple of 16"},
      {{"search", "--shape", "8x8x8", "--layout", "XN", "--dry-run"}, "bad layout 'XN'"},
      {{"search", "--shape", "8x8x8", "--budget", "10q", "--dry-run"}, "bad budget '10q'"},
      {{"search", "--shape", "8x8x8", "--strategy", "magic", "--dry-run"}, "bad strategy 'magic'"},
      {{"search", "--shape", "8x8x8", "--family", "nosuch", "--dry-run"}, "nosuch"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--arch", "sm_75"}, "bad arch 'sm_75'"},
      {{"search", "--shape", "8x8x7", "--align", "16", "--dry-run"}, "cannot be 16-byte aligned"},
      {{"search", "--shape", "8x8x8", "--align", "3", "--dry-run"}, "bad --align 3"},
      {{"search", "--dry-run"}, "no shape given"},
      {{"search", "--shapes-file", "/nonexistent/shapes.txt", "--dry-run"}, "cannot read shapes file"},
      {{"show", "naive"}, "bad kernel id 'naive'"},
      {{"show", "nosuch:BM=1"}, "unknown kernel family 'nosuch'"},
      {{"show", "naive:BM=7,BN=8"}, "BM"},
      {{"space", "--arch", "sm_10"}, "bad arch"},
      {{"list", "everything"}, "bad list target 'everything'"},
      {{"bench", "--shape", "8x8x8", "--rounds", "0"}, "--rounds"},
      // Numbers out of range, NaN, infinities and wrap-arounds are refused, not clamped.
      {{"-j", "2147483647", "search", "--shape", "8x8x8", "--dry-run"}, "'2147483647' is not an integer in [0, 1024]"},
      {{"-j", "-5", "search", "--shape", "8x8x8", "--dry-run"}, "--jobs"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--seed", "-1"}, "'-1' is not a seed"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--seed", "18446744073709551616"}, "is not a seed"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--max-configs", "-1"}, "--max-configs"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--timeout", "nan"}, "'nan' is not a finite number"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--timeout", "1e300"}, "--timeout"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--target-ms", "nan"}, "--target-ms"},
      {{"search", "--shape", "8x8x8", "--dry-run", "--repeats", "0"}, "--repeats"},
      {{"bench", "--shape", "8x8x8", "--timeout", "inf"}, "--timeout"},
      {{"bench", "--shape", "8x8x8", "--protocol", "loop"}, "--protocol"},
      // A bad --kernel is refused before any GPU work, vendor ids included.
      {{"bench", "--shape", "8x8x8", "--kernel", "nosuch:BM=1"}, "unknown kernel family 'nosuch'"},
      {{"bench", "--shape", "8x8x8", "--kernel", "cublaslt:ALGO=1"}, "a cublaslt id has the"},
      {{"bench", "--shape", "8x8x8", "--kernel", "cublas:X=1"}, "takes no parameters"},
      {{"nosuchcommand"}, ""},
      {{"search", "--no-such-flag"}, ""},
      // An empty --db must not quietly mean $GEMMTUNE_DB.
      {{"--db", "", "list", "shapes"}, "an empty --db names no file"},
  };
  std::string const db = temp_dir("usage") + "/cache.db";
  for (auto const& c : cases) {
    CliRun r = run_cli(c.args, db);
    std::string joined;
    for (auto const& a : c.args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << joined << "\n" << r.err;
    if (!c.expect.empty()) {
      EXPECT_EQ(lines(r.err), 1) << joined << "\n" << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(db));  // no usage error creates a cache
}

TEST(Cli, NoGpuIsOneClearLine) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  std::string const db = temp_dir("nogpu") + "/cache.db";
  CliRun r = run_cli({"search", "--shape", "64x64x64"}, db);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no GPU available: "), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  CliRun d = run_cli({"devices"});
  EXPECT_EQ(d.exit_code, 1);  // as the README documents for no GPU
  EXPECT_NE(d.err.find("no GPU available"), std::string::npos);
  // Measuring ceilings needs the GPU too, and writes nothing without one.
  CliRun c = run_cli({"devices", "--ceilings"}, db);
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.err.find("no GPU available"), std::string::npos) << c.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(Cli, DryRunCompilesTheSpaceForAnotherArch) {
  std::string const dir = temp_dir("dry");
  CliRun r = run_cli({"--cache-dir", dir + "/cubins", "--json", "search", "--dry-run", "--arch",
                      "sm_86", "--shape", "132x260x36", "--family", "naive,warptile",
                      "--max-configs", "3"},
                     dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["arch"], "sm_86");
  ASSERT_EQ(j["families"].size(), 2u);
  for (auto const& f : j["families"]) {
    EXPECT_EQ(f["compiled"].get<int>(), f["candidates"].get<int>()) << f.dump();
    EXPECT_GT(f["compiled"].get<int>(), 0);
    EXPECT_GT(f["min_registers"].get<int>(), 0);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/cache.db"));  // a dry run stores nothing
}

// A dry run that no family of the search can compile is a usage error saying why, not an empty
// report: FP8 before sm_89, and a family asked for on an arch it does not run on.
TEST(Cli, ADryRunNoFamilyCanCompileSaysWhy) {
  std::string const dir = temp_dir("dry-none");
  CliRun fp8 = run_cli({"search", "--dry-run", "--arch", "sm_80", "--precision", "e4m3-blk",
                        "--layout", "NT", "--shape", "256x256x256"},
                       dir + "/cache.db");
  EXPECT_EQ(fp8.exit_code, 2);
  EXPECT_NE(fp8.err.find("no kernel family of this search compiles e4m3-blk for sm_80: FP8 "
                         "tensor cores need sm_89 or later; wgmma needs sm_90 or newer; the "
                         "other families have no e4m3-blk kernels"),
            std::string::npos)
      << fp8.err;
  CliRun arch = run_cli({"search", "--dry-run", "--arch", "sm_86", "--precision", "bf16",
                         "--shape", "256x256x256", "--family", "wgmma"},
                        dir + "/cache.db");
  EXPECT_EQ(arch.exit_code, 2);
  EXPECT_NE(arch.err.find("compiles bf16 for sm_86: wgmma needs sm_90 or newer\n"),
            std::string::npos)
      << arch.err;
}

TEST(Cli, DryRunListsEveryConfigOfAnotherArchWithWhatHappenedToIt) {
  // `search --dry-run --list --arch sm_86`: the configs an sm_86 GPU can run (compiled, with
  // registers), and the constraint that rejects every other one.
  std::string const dir = temp_dir("dry-list");
  CliRun r = run_cli({"--cache-dir", dir + "/cubins", "--json", "search", "--dry-run", "--list",
                      "--arch", "sm_86", "--precision", "fp16", "--shape", "4096x4096x4096",
                      "--family", "mma", "--max-configs", "2"},
                     dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto const j = nlohmann::json::parse(r.out);
  CliRun space = run_cli({"--json", "space", "--family", "mma", "--precision", "fp16", "--arch",
                          "sm_86"});
  ASSERT_EQ(space.exit_code, 0) << space.err;
  auto const f = nlohmann::json::parse(space.out)["families"][0];
  ASSERT_EQ(j["configs"].size(), f["space"].get<std::size_t>());
  std::map<std::string, int> outcomes;
  for (auto const& c : j["configs"]) {
    std::string const outcome = c["outcome"];
    ++outcomes[outcome];
    if (outcome == "ok") {
      EXPECT_GT(c["registers"].get<int>(), 0) << c.dump();
    } else {
      EXPECT_FALSE(c["reason"].get<std::string>().empty()) << c.dump();
    }
  }
  EXPECT_EQ(outcomes["ok"], 2);
  EXPECT_EQ(outcomes["ok"] + outcomes["not_compiled"], f["valid"].get<int>());
  EXPECT_EQ(outcomes["rejected"], f["space"].get<int>() - f["valid"].get<int>());
  EXPECT_EQ(run_cli({"search", "--list", "--shape", "8x8x8"}).exit_code, 2);
}

TEST(Cli, SpaceReportsRejectionsByConstraint) {
  CliRun r = run_cli({"--json", "space", "--family", "warptile", "--shape", "4096x4096x4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  auto const& f = j["families"][0];
  EXPECT_GT(f["valid"].get<int>(), 0);
  int rejected = 0;
  for (auto const& [k, v] : f["rejected_by"].items()) rejected += v.get<int>();
  EXPECT_EQ(f["valid"].get<int>() + rejected, f["space"].get<int>());
}

TEST(Cli, SpaceNamesTheReasonForEveryRejectedConfigOfAnotherArch) {
  // What an sm_86 GPU can run of the mma space in fp16, and why each other config cannot.
  CliRun r = run_cli({"--json", "space", "--family", "mma", "--precision", "fp16", "--arch",
                      "sm_86", "--list", "--rejected"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto const f = nlohmann::json::parse(r.out)["families"][0];
  EXPECT_EQ(f["configs"].size() + f["rejected"].size(), f["space"].get<std::size_t>());
  EXPECT_GT(f["configs"].size(), 0u);
  bool shared_memory = false;
  for (auto const& rej : f["rejected"]) {
    std::string const why = rej["reason"];
    ASSERT_FALSE(why.empty()) << rej["kernel"];
    shared_memory = shared_memory || why.rfind("shared_memory", 0) == 0 || why.rfind("smem", 0) == 0;
  }
  EXPECT_TRUE(shared_memory) << "sm_86's 99 KiB per block must reject some deep rings";
}

TEST(Cli, QueryAndExportWithoutACacheSayNoResult) {
  std::string const db = temp_dir("empty") + "/none.db";
  CliRun q = run_cli({"query", "--shape", "64x64x64"}, db);
  EXPECT_EQ(q.exit_code, 3);
  EXPECT_NE(q.err.find("no tuning cache"), std::string::npos) << q.err;
  CliRun e = run_cli({"export", "--out", "/tmp/never.json"}, db);
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(Cli, QueryReadsATable) {
  std::string const dir = temp_dir("table");
  write_sample_table(dir + "/t.json");
  CliRun r = run_cli({"--json", "query", "--table", dir + "/t.json", "--shape", "1024x1024x1024"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j[0]["rule"], "exact");
  EXPECT_EQ(j[0]["kernel"], "naive:BM=32,BN=8");
  CliRun n = run_cli({"--json", "query", "--table", dir + "/t.json", "--shape", "1000x1000x1000"});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_EQ(nlohmann::json::parse(n.out)[0]["rule"], "nearest");
  { std::ofstream(dir + "/bad.json") << "{\"format\":\"gemmtune-table\",\"version\":2}"; }
  CliRun b = run_cli({"query", "--table", dir + "/bad.json", "--shape", "8x8x8"});
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_EQ(lines(b.err), 1) << b.err;
}

TEST(Cli, ForeignCacheIsRefusedAndLeftAlone) {
  std::string const dir = temp_dir("foreign");
  std::string const db = dir + "/cache.db";
  { std::ofstream(db) << "this is not a database, and it must stay exactly like this\n"; }
  auto const before = std::filesystem::file_size(db);
  CliRun r = run_cli({"list", "shapes"}, db);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  EXPECT_EQ(std::filesystem::file_size(db), before);
}

}  // namespace gemmtune::test

namespace gemmtune::test {

namespace {

/// Exit status of `command` run by /bin/sh, with stderr captured into `err`.
int shell_status(std::string const& command, std::string& err) {
  std::string const err_file = temp_dir("shell-err") + "/err";
  int const rc = std::system((command + " 2> '" + err_file + "'").c_str());
  std::ifstream in(err_file);
  err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

// A result that cannot be written is an error with one line, never exit 0 with the result
// lost: a full disk behind stdout, a closed stdout, a full device or a link as --out.
TEST(Cli, LostOutputIsAnError) {
  std::string const dir = temp_dir("lost-output");
  write_sample_table(dir + "/t.json");
  ASSERT_EQ(run_cli({"import", dir + "/t.json"}, dir + "/cache.db").exit_code, 0);
  std::string const g = "GEMMTUNE_DB='" + dir + "/cache.db' '" + gemmtune_binary() + "'";
  std::string err;
  std::string const query = " query --table '" + dir + "/t.json' --shape 1024x1024x1024";
  EXPECT_EQ(shell_status(g + query + " > /dev/full", err), 1);
  EXPECT_NE(err.find("cannot write the output to standard output"), std::string::npos) << err;
  EXPECT_EQ(shell_status(g + " export > /dev/full", err), 1);
  EXPECT_NE(err.find("cannot write the output to standard output"), std::string::npos) << err;
  EXPECT_EQ(lines(err), 1) << err;
  EXPECT_EQ(shell_status(g + " export >&-", err), 1);
  EXPECT_NE(err.find("standard output"), std::string::npos) << err;
  EXPECT_EQ(shell_status(g + " export --out /dev/full", err), 1);
  EXPECT_NE(err.find("/dev/full"), std::string::npos) << err;
  // A link planted where the table goes is refused; the file it points to keeps its bytes.
  std::ofstream(dir + "/victim") << "keep";
  std::filesystem::create_symlink(dir + "/victim", dir + "/table.json");
  EXPECT_EQ(shell_status(g + " export --out '" + dir + "/table.json'", err), 1);
  EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
  std::ifstream victim(dir + "/victim");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(victim), std::istreambuf_iterator<char>()),
            "keep");
  // The same command with somewhere to write succeeds.
  EXPECT_EQ(shell_status(g + " export > /dev/null", err), 0) << err;
}

// emit replaces only its own output: a user's file named like the old fixed temporary stays,
// and a failed emit leaves nothing behind.
TEST(Cli, EmitLeavesOtherFilesAlone) {
  std::string const dir = temp_dir("emit-files");
  std::ofstream(dir + "/k.cu.tmp") << "mine";
  CliRun r = run_cli({"emit", "naive:BM=32,BN=32", "--shape", "64x64x64", "--out", dir + "/k.cu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream mine(dir + "/k.cu.tmp");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(mine), std::istreambuf_iterator<char>()),
            "mine");
  r = run_cli({"emit", "naive:BM=32,BN=32", "--shape", "64x64x64", "--out",
               dir + "/missing/k.cu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  std::vector<std::string> names;
  for (auto const& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"k.cu", "k.cu.tmp"}));
}

// A config the search skips but that runs when named (a ring deeper than the search times) is
// emitted and compiled by show, with the skipping rule named; one that cannot run stays refused.
TEST(Cli, NamedConfigsTheSearchSkipsStillEmitAndShow) {
  std::vector<std::string> const problem = {"--shape", "1024x1024x16384", "--precision", "bf16",
                                            "--layout", "NN", "--arch", "sm_90a"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), problem.begin(), problem.end());
    return args;
  };
  std::string const deep = "wgmma:BM=64,BN=128,ST=8,CW=1,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,ML=1";
  std::string const dir = temp_dir("emit-named");
  CliRun e = run_cli(with({"emit", deep, "--out", dir + "/k.cu"}));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  std::ifstream emitted(dir + "/k.cu");
  std::string const source{std::istreambuf_iterator<char>(emitted),
                           std::istreambuf_iterator<char>()};
  EXPECT_NE(source.find("wgmma_gemm_cluster<64,128,8,"), std::string::npos)
      << source.substr(0, 2000);

  CliRun s = run_cli(with({"--json", "show", deep}), dir + "/cache.db");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  nlohmann::json const j = nlohmann::json::parse(s.out);
  EXPECT_EQ(j.at("rejected"), "");
  EXPECT_EQ(j.at("not_searched").get<std::string>().rfind("stages: ", 0), 0u) << j.dump(2);
  ASSERT_TRUE(j.contains("compile")) << j.dump(2);
  EXPECT_TRUE(j.at("compile").at("ok").get<bool>()) << j.dump(2);
  EXPECT_EQ(j.at("compile").at("spill_stores"), 0);

  // B stored K×N gives each block of a pair 64-wide boxes to issue: BN=64 has one, which no
  // named id can change.
  std::string const broken = "wgmma:BM=128,BN=64,ST=6,CW=1,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,ML=1";
  CliRun b = run_cli(with({"emit", broken, "--out", dir + "/b.cu"}));
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_NE(b.err.find("cluster_pieces"), std::string::npos) << b.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/b.cu"));
  CliRun bs = run_cli(with({"--json", "show", broken}), dir + "/cache.db");
  ASSERT_EQ(bs.exit_code, 0) << bs.err;
  nlohmann::json const bj = nlohmann::json::parse(bs.out);
  EXPECT_EQ(bj.at("rejected").get<std::string>().rfind("cluster_pieces: ", 0), 0u) << bj.dump(2);
  EXPECT_EQ(bj.at("not_searched"), "");
  EXPECT_FALSE(bj.contains("compile"));
}

}  // namespace gemmtune::test

namespace gemmtune::test {

// Inputs that are not what they claim: a FIFO as the cache is refused at once (SQLite would
// block on it), a shapes file with a byte-order mark reads as without one, and a NUL byte in a
// line is named with its line.
TEST(Cli, NonFileCachesAndOddShapesFiles) {
  std::string const dir = temp_dir("odd-inputs");
  std::string const fifo = dir + "/cache.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string err;
  // timeout: a regression would hang here, not fail.
  EXPECT_EQ(shell_status("timeout 20 " + gemmtune_binary() + " --db '" + fifo + "' list shapes",
                         err),
            1)
      << err;
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;

  std::string const bom = dir + "/bom.txt";
  std::ofstream(bom) << "\xEF\xBB\xBF" << "64 64 64\n128 128 128\n64 64 64\n";
  CliRun r = run_cli({"--json", "search", "--shapes-file", bom, "--dry-run", "--family", "naive",
                      "--max-configs", "1"},
                     dir + "/cache.db");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["compiled"], 2) << r.out;  // 2 shapes

  // A line may carry its own precision and layout; the same M N K in another precision or
  // layout is another problem, and the command line's precision is the default.
  std::string const mixed = dir + "/mixed.txt";
  std::ofstream(mixed) << "64 64 64 fp16 NT\n64 64 64\n64x64x64 bf16  # a comment\n"
                          "64 64 64 fp16 NT\n";
  r = run_cli({"--json", "search", "--shapes-file", mixed, "--precision", "fp16", "--dry-run",
               "--family", "mma", "--max-configs", "1"},
              dir + "/cache.db");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["compiled"], 3) << r.out;
  // A --shape sweeps its dimensions: M = 16, 32, 64.
  r = run_cli({"--json", "search", "--shape", "16:64:pow2x64x64", "--precision", "fp16",
               "--dry-run", "--family", "mma", "--max-configs", "1"},
              dir + "/cache.db");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["compiled"], 3) << r.out;
  for (auto const& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"64 64 64 fp17\n", "bad.txt:1: bad precision 'fp17'"},
           {"64 64 64\n64 64 64 bf16 NX\n", "bad.txt:2: bad layout 'NX'"},
           {"64x64x64 fp16 NT extra\n", "bad.txt:1: 'extra' after the precision and layout"}}) {
    std::ofstream(dir + "/bad.txt") << text;
    r = run_cli({"search", "--shapes-file", dir + "/bad.txt", "--dry-run"}, dir + "/cache.db");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }

  std::string const nul = dir + "/nul.txt";
  {
    std::ofstream out(nul, std::ios::binary);
    out << "64 64 64\n128 1";
    out.put('\0');
    out << "28 128\n";
  }
  r = run_cli({"search", "--shapes-file", nul, "--dry-run"}, dir + "/cache.db");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nul.txt:2: a NUL byte"), std::string::npos) << r.err;
}

// `shapes` writes a model's shapes file that `search --shapes-file` reads back, each line with
// its precision and layout; bad input is a usage error naming what is wrong.
// An M range starts as its first points: A, the powers of two between, B.
TEST(Cli, RangeShapeSearchesItsFirstPoints) {
  std::string const dir = temp_dir("range");
  CliRun r = run_cli({"--json", "search", "--shape", "3-64x256x256", "--dry-run", "--family",
                      "simt", "--max-configs", "1"},
                     dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json const j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["families"][0]["compiled"], 6) << r.out;  // 3, 4, 8, 16, 32, 64
}

TEST(Cli, ShapesOfAModelFeedASearch) {
  std::string const dir = temp_dir("shapes");
  std::ofstream(dir + "/config.json")
      << R"({"model_type": "qwen2", "hidden_size": 1536, "intermediate_size": 8960,
             "num_attention_heads": 12, "num_key_value_heads": 2, "num_hidden_layers": 28,
             "vocab_size": 151936})";
  CliRun r = run_cli({"shapes", "--hf-config", dir + "/config.json", "--tokens", "16,64",
                      "--no-lm-head", "--precision", "fp16", "-o", dir + "/shapes.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("8 shapes"), std::string::npos) << r.err;  // 4 sizes × 2 token counts
  std::ifstream in(dir + "/shapes.txt");
  std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("16 8960 1536 fp16 NT  # gate_proj, up_proj: 56 calls per forward"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("64 256 1536 fp16 NT  # k_proj, v_proj"), std::string::npos) << text;
  r = run_cli({"--json", "search", "--shapes-file", dir + "/shapes.txt", "--dry-run", "--family",
               "mma", "--max-configs", "1"},
              dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["compiled"], 8) << r.out;

  CliRun j = run_cli({"--json", "shapes", "--hf-config", dir + "/config.json", "--tokens", "1",
                      "--tp", "2", "--fused"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto const shapes = nlohmann::json::parse(j.out)["shapes"];
  ASSERT_EQ(shapes.size(), 5u);  // heaviest first: gate_up, down, the LM head, qkv, o
  EXPECT_EQ(shapes[0]["layers"][0], "gate_up_proj");
  EXPECT_EQ(shapes[0]["n"], 8960);  // 2 · 8960 / 2
  EXPECT_EQ(shapes[2]["layers"][0], "lm_head");
  EXPECT_EQ(shapes[2]["n"], 75968);  // 151936 / 2
  EXPECT_EQ(shapes[3]["n"], 1024);   // (12 + 2 · 2) · 128 / 2

  for (auto const& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"shapes"}, "give the model: --hf-config"},
           {{"shapes", "--hf-config", dir + "/missing.json"}, "cannot read config"},
           {{"shapes", "--hf-config", dir + "/config.json", "--tokens", "1:x:pow2"},
            "bad token count"},
           {{"shapes", "--hf-config", dir + "/config.json", "--precision", "fp8"},
            "bad precision 'fp8'"}}) {
    CliRun bad = run_cli(args);
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find(expected), std::string::npos) << bad.err;
  }
  // A TunableOp record: torch's column-major signatures as row-major problems, FP8 left out.
  std::ofstream(dir + "/untuned.csv")
      << "Validator,PT_VERSION,2.11.0\n"
         "GemmTunableOp_BFloat16_TN,tn_1024_16_4096_ld_4096_4096_1024\n"
         "GemmTunableOp_BFloat16_TN,tn_1024_16_4096_ld_4096_4096_1024\n"
         "GemmTunableOp_Half_NN,nn_512_64_256\n"
         "ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN,tn_64_64_64\n";
  CliRun t = run_cli({"shapes", "--tunableop", dir + "/untuned.csv", "-o", dir + "/rec.txt"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find("2 shapes; left out: ScaledGemmTunableOp"), std::string::npos) << t.err;
  std::ifstream rin(dir + "/rec.txt");
  std::string const rec((std::istreambuf_iterator<char>(rin)), std::istreambuf_iterator<char>());
  EXPECT_NE(rec.find("\n16 1024 4096 bf16 NT  # GemmTunableOp: 2 calls per record"),
            std::string::npos)
      << rec;
  EXPECT_NE(rec.find("\n64 512 256 fp16 NN  # GemmTunableOp: 1 call per record"),
            std::string::npos)
      << rec;
  r = run_cli({"--json", "search", "--shapes-file", dir + "/rec.txt", "--dry-run", "--family",
               "mma", "--max-configs", "1"},
              dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["compiled"], 2) << r.out;
  CliRun both = run_cli({"shapes", "--tunableop", dir + "/untuned.csv", "--hf-config",
                         dir + "/config.json"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("separate sources"), std::string::npos) << both.err;
  // A profiler trace: a linear's addmm counted once, ordered by recorded time.
  std::ofstream(dir + "/trace.json") << R"({"traceEvents": [
    {"ph": "X", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 90,
     "args": {"Input Dims": [[2, 8, 1536], [8960, 1536]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 80,
     "args": {"Input Dims": [[16, 1536], [1536, 8960]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
     "args": {"Input Dims": [[64, 64], [64, 128]], "Input type": ["c10::Half", "c10::Half"]}}]})";
  CliRun tr = run_cli({"shapes", "--torch-trace", dir + "/trace.json"});
  ASSERT_EQ(tr.exit_code, 0) << tr.err;
  EXPECT_NE(tr.out.find("\n16 8960 1536 bf16 NT  # aten::linear: 1 call per record, 80.0 % of "
                        "the trace's GEMM time\n64 128 64 fp16 NN  # aten::mm"),
            std::string::npos)
      << tr.out;
  std::ofstream(dir + "/fp8.csv") << "ScaledGemmTunableOp_Float8_e4m3fn_BFloat16_TN,tn_64_64_64\n";
  CliRun none = run_cli({"shapes", "--tunableop", dir + "/fp8.csv"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no GEMM gemmtune tunes (skipped: ScaledGemmTunableOp"),
            std::string::npos)
      << none.err;

  std::ofstream(dir + "/moe.json") << R"({"hidden_size": 4096, "num_attention_heads": 32,
      "num_hidden_layers": 32, "vocab_size": 32000, "intermediate_size": 14336,
      "num_local_experts": 8})";
  CliRun moe = run_cli({"shapes", "--hf-config", dir + "/moe.json"});
  EXPECT_EQ(moe.exit_code, 1) << moe.err;
  EXPECT_NE(moe.err.find("moe.json: num_local_experts: a mixture-of-experts model"),
            std::string::npos)
      << moe.err;
}

// SIGTERM during a dry run: exit 130 within a compile, not after the sixteen queued ahead, the
// partial counts marked as such.
TEST(Cli, AnInterruptedDryRunSaysSoAndExitsPromptlyWith130) {
  std::string const dir = temp_dir("dry-int");
  std::string err;
  // One compile thread over a whole space keeps the dry run busy well past the 3 s; waiting for
  // the compiles queued ahead would take 16 of them (about 10 s here), one running takes < 2.
  int const rc = shell_status(gemmtune_binary() + " -j 1 --cache-dir '" + dir + "/cubins' --db '" +
                                  dir + "/c.db' search --dry-run --whole-space "
                                  "--shape 4096x4096x4096 --precision bf16 > '" + dir +
                                  "/out.txt' & pid=$!; sleep 3; s=$(date +%s%N); "
                                  "kill -TERM $pid; wait $pid; rc=$?; e=$(date +%s%N); "
                                  "echo $(( (e - s) / 1000000 )) > '" + dir + "/ms.txt'; exit $rc",
                              err);
  EXPECT_EQ(rc, 130) << err;
  std::ifstream in(dir + "/out.txt");
  std::string const out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(out.find("INTERRUPTED"), std::string::npos) << out;
  long long ms = -1;
  std::ifstream(dir + "/ms.txt") >> ms;
  EXPECT_GE(ms, 0);
  EXPECT_LT(ms, 5000) << "the dry run took " << ms << " ms to stop after SIGTERM";
}

// On a terminal the dry run draws a bar per family: compiled of total, the family, an ETA.
TEST(Cli, ADryRunOnATerminalDrawsACompileBar) {
  std::string const dir = temp_dir("dry-bar");
  std::string err;
  // script(1) gives the dry run a pseudo-terminal for stderr, as a user's shell would.
  int const rc = shell_status("script -qec \"" + gemmtune_binary() + " --cache-dir '" + dir +
                                  "/cubins' --db '" + dir + "/c.db' search --dry-run --arch sm_86 "
                                  "--shape 512x512x512 --family smem_tiled --max-configs 3\" "
                                  "/dev/null > '" + dir + "/tty.txt'",
                              err);
  ASSERT_EQ(rc, 0) << err;
  std::ifstream in(dir + "/tty.txt");
  std::string const tty((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(tty.find("compiling smem_tiled for 512x512x512"), std::string::npos) << tty;
  EXPECT_NE(tty.find("] 3/3 eta"), std::string::npos) << tty;
  EXPECT_NE(tty.find("compiling smem_tiled"), std::string::npos) << tty;
  EXPECT_EQ(tty.find("tuning"), std::string::npos) << tty;  // a dry run compiles, it tunes nothing
}

// The default dry run compiles an evenly spread sample of each family; --max-configs sets its
// size, --whole-space compiles every valid config, and the two together are a usage error.
TEST(Cli, TheDefaultDryRunSamplesEachFamilyAndTheWholeSpaceIsOnRequest) {
  std::string const dir = temp_dir("dry-sample");
  auto family = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"--cache-dir", dir + "/cubins", "--json", "search", "--dry-run",
                                  "--arch", "sm_86", "--shape", "4096x4096x4096", "--precision",
                                  "fp32", "--family", "smem_tiled"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliRun r = run_cli(args, dir + "/cache.db");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["families"].at(0);
  };
  auto const sampled = family({});
  int const valid = sampled["valid"].get<int>();
  EXPECT_GT(valid, 24);  // the family's space is larger than the sample
  EXPECT_EQ(sampled["candidates"].get<int>(), 24);
  EXPECT_EQ(sampled["compiled"].get<int>() + sampled["failed"].get<int>(), 24);
  EXPECT_EQ(family({"--max-configs", "5"})["candidates"].get<int>(), 5);
  auto const whole = family({"--whole-space"});
  EXPECT_EQ(whole["candidates"].get<int>(), valid);
  EXPECT_EQ(whole["valid"].get<int>(), valid);
  CliRun both = run_cli({"search", "--dry-run", "--whole-space", "--max-configs", "3", "--shape",
                         "64x64x64"},
                        dir + "/cache.db");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--whole-space"), std::string::npos) << both.err;
}

}  // namespace gemmtune::test

namespace gemmtune::test {

// Inputs that scale: each of these took 15 s to minutes before (a parser callback, a linear key
// scan per key, a linear duplicate scan per shape); the bounds here are several times the
// measured figures on a 2-core machine (1.5 s, 0.5 s, 1 s), so only a return to quadratic time
// fails them.
TEST(Cli, InputsThatScaleAreReadInLinearTime) {
  std::string const dir = temp_dir("scale");
  std::string err;
  auto timed = [&](std::string const& command, double& seconds) {
    auto const t0 = std::chrono::steady_clock::now();
    int const rc = shell_status(command, err);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rc;
  };
  {  // a valid table of 200 000 entries
    std::ofstream out(dir + "/big.json");
    out << R"({"format":"gemmtune-table","version":1,"generated_at":"2026-12-02T00:00:00Z",)"
        << R"("gemmtune_version":"0.2.0","gpus":[{"id":0,"name":"NVIDIA H200","cc":"9.0",)"
        << R"("sm_count":132}],"entries":[)";
    for (int i = 0; i < 200000; ++i) {
      out << (i ? "," : "") << R"({"gpu":0,"precision":"fp32","layout":"NN","m":)"
          << 8 * (1 + i / 400) << R"(,"n":)" << 8 * (1 + i % 400)
          << R"(,"k":64,"align":16,"kernel":"naive:BM=32,BN=32","time_ms":0.01,"tflops":1.0,)"
          << R"("cublas_ms":null,"cublaslt_ms":null,"ratio_cublas":null,"ratio_cublaslt":null})";
    }
    out << R"(],"defaults":[]})";
  }
  double s = 0;
  EXPECT_EQ(timed(gemmtune_binary() + " query --table '" + dir + "/big.json' --shape 64x64x64 " +
                      "> /dev/null",
                  s),
            0)
      << err;
  EXPECT_LT(s, 10.0) << "200 000-entry table";
  {  // a hostile object of 200 000 keys, one of them twice
    std::ofstream out(dir + "/keys.json");
    out << "{";
    for (int i = 0; i < 200000; ++i) out << "\"k" << i << "\":1,";
    out << "\"k5\":2}";
  }
  EXPECT_EQ(timed(gemmtune_binary() + " query --table '" + dir + "/keys.json' --shape 8x8x8", s),
            1);
  EXPECT_NE(err.find("more than 64 keys in one object"), std::string::npos) << err;
  EXPECT_LT(s, 5.0) << "200 000 keys";
  {  // 200 000 distinct shapes, then all of them again
    std::ofstream out(dir + "/shapes.txt");
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < 200000; ++i) out << 1 + i % 500 << ' ' << 1 + i / 500 << " 64\n";
    }
  }
  write_sample_table(dir + "/t.json");
  EXPECT_EQ(timed(gemmtune_binary() + " --json query --table '" + dir + "/t.json' --shapes-file '" +
                      dir + "/shapes.txt' > /dev/null",
                  s),
            0)
      << err;
  EXPECT_LT(s, 30.0) << "400 000 shape lines";
}

}  // namespace gemmtune::test

namespace gemmtune::test {

// Text from a table reaches the terminal escaped: a GPU name holding an escape sequence and a
// newline can neither clear the screen nor forge a line.
TEST(Cli, TableTextIsEscapedOnOutput) {
  std::string const dir = temp_dir("escape");
  nlohmann::json const table{
      {"format", "gemmtune-table"},
      {"version", 1},
      {"generated_at", "2026-12-02T00:00:00Z"},
      {"gemmtune_version", "0.2.0"},
      {"gpus", {{{"id", 0}, {"name", "Evil\x1b[2J\nGPU"}, {"cc", "9.0"}, {"sm_count", 132}}}},
      {"entries",
       {{{"gpu", 0}, {"precision", "fp32"}, {"layout", "NN"}, {"m", 64}, {"n", 64}, {"k", 64},
         {"align", 16}, {"kernel", "naive:BM=32,BN=32"}, {"time_ms", 0.01}, {"tflops", 0.05},
         {"cublas_ms", nullptr}, {"cublaslt_ms", nullptr}, {"ratio_cublas", nullptr},
         {"ratio_cublaslt", nullptr}}}},
      {"defaults", nlohmann::json::array()}};
  std::ofstream(dir + "/t.json") << table.dump();
  CliRun const r = run_cli({"query", "--table", dir + "/t.json", "--shape", "64x64x64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Evil\\x1b[2J\\nGPU"), std::string::npos) << r.out;
}

namespace {

void edit_cache(std::string const& path, char const* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace

// import holds a foreign cache's rows to the table's rules: a naive (fp32-only) kernel filed
// under fp16 is refused whole; check names a bad row with exit 1, and check --repair removes it
// after copying the cache aside, after which query answers again.
TEST(Cli, ImportValidatesForeignRowsAndCheckRepairsTheCacheInUse) {
  std::string const dir = temp_dir("check-repair");
  write_sample_table(dir + "/t.json");
  std::string const theirs = dir + "/theirs.db", mine = dir + "/mine.db";
  ASSERT_EQ(run_cli({"import", dir + "/t.json"}, theirs).exit_code, 0);
  edit_cache(theirs, "UPDATE trials SET precision = 'fp16'");
  CliRun refused = run_cli({"import", theirs}, mine);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("'naive' has no fp16 kernel"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("trial 1 ("), std::string::npos) << refused.err;

  ASSERT_EQ(run_cli({"import", dir + "/t.json"}, mine).exit_code, 0);
  CliRun clean = run_cli({"check"}, mine);
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(clean.out.find("1 trials and 0 baselines checked, 0 bad"), std::string::npos) << clean.out;
  edit_cache(mine, "UPDATE trials SET time_ms = -5");
  CliRun bad = run_cli({"check"}, mine);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("trial 1 (naive:BM=32,BN=8 1024x1024x1024 fp32"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("time_ms: -5 is not a positive finite number"), std::string::npos) << bad.out;
  CliRun json = run_cli({"--json", "check"}, mine);
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json const j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["defects"].size(), 1u);
  EXPECT_EQ(j["defects"][0]["id"], 1);
  CliRun repaired = run_cli({"check", "--repair"}, mine);
  EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
  EXPECT_NE(repaired.out.find("removed 1 (the cache as it was: " + mine + ".before-repair-"),
            std::string::npos)
      << repaired.out;
  bool copied = false;
  for (auto const& e : std::filesystem::directory_iterator(dir)) {
    copied |= e.path().filename().string().rfind("mine.db.before-repair-", 0) == 0;
  }
  EXPECT_TRUE(copied);
  EXPECT_EQ(run_cli({"check"}, mine).exit_code, 0);
  EXPECT_EQ(run_cli({"query", "--shape", "1024x1024x1024"}, mine).exit_code, 3);  // no row left
}

namespace {

/// Files in `dir` whose names start with `prefix`.
int count_files(std::string const& dir, std::string const& prefix) {
  int n = 0;
  for (auto const& e : std::filesystem::directory_iterator(dir)) {
    n += e.path().filename().string().rfind(prefix, 0) == 0;
  }
  return n;
}

}  // namespace

// Caches used by more than one user (run as root, switching uid with setpriv): a cache another
// user owns in a directory the reader cannot write is listed, queried and exported; a reader in
// a shared sticky directory leaves no -wal/-shm behind, so the owner can still write; and a
// cache made shared (cache-mode shared) is written by two users of its group in turn.
TEST(Cli, CachesOtherUsersReadAndShare) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run commands as other users";
  if (std::system("command -v setpriv > /dev/null") != 0) GTEST_SKIP() << "no setpriv";
  std::string const dir = temp_dir("shared-caches");
  ::chmod(dir.c_str(), 0755);
  // The binary where every uid can run it (a build tree may sit under a private directory).
  std::string const g = dir + "/gemmtune";
  std::filesystem::copy_file(gemmtune_binary(), g);
  ::chmod(g.c_str(), 0755);
  write_sample_table(dir + "/t.json");
  ::chmod((dir + "/t.json").c_str(), 0644);
  auto as = [&](int uid, std::string const& args, bool group = false) {
    std::string err;
    std::string const who = "setpriv --reuid=" + std::to_string(uid) + " --regid=" +
                            std::to_string(uid) + (group ? " --groups=64100 " : " --clear-groups ");
    int const rc = shell_status("cd / && umask 022 && " + who + "'" + g + "' " + args + " > /dev/null", err);
    return std::pair{rc, err};
  };
  int const owner = 64101, other = 64102;

  // 1. Read-only: the reader can write neither the file nor its directory.
  std::string const ro = dir + "/ro";
  std::filesystem::create_directory(ro);
  ASSERT_EQ(run_cli({"import", dir + "/t.json"}, ro + "/cache.db").exit_code, 0);
  ASSERT_EQ(std::system(("chown -R " + std::to_string(owner) + " '" + ro + "'").c_str()), 0);
  ::chmod(ro.c_str(), 0755);
  ::chmod((ro + "/cache.db").c_str(), 0644);
  for (char const* cmd : {"list shapes", "query --shape 1024x1024x1024", "export"}) {
    auto const [rc, err] = as(other, "--db '" + ro + "/cache.db' " + cmd);
    EXPECT_EQ(rc, 0) << cmd << ": " << err;
  }
  EXPECT_EQ(count_files(ro, "cache.db-"), 0);

  // 2. A shared sticky directory: the reader leaves nothing the owner cannot write past.
  std::string const sticky = dir + "/sticky";
  std::filesystem::create_directory(sticky);
  ::chmod(sticky.c_str(), 01777);
  std::string const db = "--db '" + sticky + "/cache.db' ";
  ASSERT_EQ(as(owner, db + "import '" + dir + "/t.json'").first, 0);
  auto const [list_rc, list_err] = as(other, db + "list shapes");
  EXPECT_EQ(list_rc, 0) << list_err;
  EXPECT_EQ(count_files(sticky, "cache.db-"), 0);
  EXPECT_EQ(as(owner, db + "check --repair").first, 0);
  auto const [write_rc, write_err] = as(owner, db + "import '" + dir + "/t.json'");
  EXPECT_EQ(write_rc, 0) << write_err;

  // 3. A shared cache: two users of its group write it in turn; a third reads it.
  std::string const team = dir + "/team";
  std::filesystem::create_directory(team);
  ASSERT_EQ(std::system(("chgrp 64100 '" + team + "'").c_str()), 0);
  ::chmod(team.c_str(), 02775);
  std::string const tdb = "--db '" + team + "/cache.db' ";
  ASSERT_EQ(as(owner, tdb + "import '" + dir + "/t.json'", true).first, 0);
  // Private by default: the second user cannot write the owner's file.
  EXPECT_NE(as(other, tdb + "import '" + dir + "/t.json'", true).first, 0);
  auto const [share_rc, share_err] = as(owner, tdb + "cache-mode shared", true);
  ASSERT_EQ(share_rc, 0) << share_err;
  CliRun const mode = run_cli({"--json", "cache-mode"}, team + "/cache.db");
  EXPECT_EQ(nlohmann::json::parse(mode.out)["mode"], "shared") << mode.out;
  std::string const other_table = dir + "/t2.json";
  {
    nlohmann::json t = nlohmann::json::parse(std::ifstream(dir + "/t.json"));
    t["entries"][0]["m"] = 2048;
    std::ofstream(other_table) << t.dump();
  }
  ::chmod(other_table.c_str(), 0644);
  auto const [b_rc, b_err] = as(other, tdb + "import '" + other_table + "'", true);
  EXPECT_EQ(b_rc, 0) << b_err;
  auto const [a_rc, a_err] = as(owner, tdb + "import '" + dir + "/t.json'", true);
  EXPECT_EQ(a_rc, 0) << a_err;
  auto const [r_rc, r_err] = as(64103, tdb + "list shapes");
  EXPECT_EQ(r_rc, 0) << r_err;
  EXPECT_EQ(count_files(team, "cache.db-"), 0);
}

}  // namespace gemmtune::test
