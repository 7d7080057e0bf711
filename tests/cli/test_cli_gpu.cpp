// On a GPU: every ladder preset verified through the worker on ragged shapes in all four
// layouts, bench rounds, and search → query → export → query --table, end to end. Skips
// without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"

namespace gemmtune::test {
namespace {

class CliGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    CliRun r = run_cli({"devices"});
    if (r.exit_code != 0) GTEST_SKIP() << "no GPU: " << r.err;
  }
};

std::vector<std::string> preset_ids() {
  CliRun r = run_cli({"--json", "space", "--family", "ladder", "--list", "--shape", "132x260x36"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  std::vector<std::string> ids;
  // One config per family: the first valid one, so every template runs.
  nlohmann::json const space = nlohmann::json::parse(r.out);
  for (auto const& f : space["families"]) {
    if (!f["configs"].empty()) ids.push_back(f["configs"][0].get<std::string>());
  }
  return ids;
}

/// `bench --json` printed `rows` runs, each verified and timed.
void expect_every_run_ok(CliRun const& r, std::size_t rows) {
  ASSERT_FALSE(r.out.empty());
  auto const runs = nlohmann::json::parse(r.out);
  EXPECT_EQ(runs.size(), rows);
  for (auto const& j : runs) {
    EXPECT_EQ(j["result"]["disposition"], "ok")
        << j["problem"].dump() << " " << j["result"]["reason"];
  }
}

/// Benches each kernel id on every shape in `layouts` (all four, or one) through the cache in
/// `dir`, and expects each run verified and timed.
void expect_ids_verify(std::string const& dir, std::vector<std::string> const& ids,
                       std::string const& precision, std::vector<std::string> const& shapes,
                       std::string const& layouts = "all") {
  for (std::string const& id : ids) {
    std::vector<std::string> args{"--json", "--cache-dir", dir, "bench", "--kernel", id,
                                  "--precision", precision};
    for (std::string const& shape : shapes) {
      args.push_back("--shape");
      args.push_back(shape);
    }
    args.insert(args.end(), {"--layout", layouts, "--target-ms", "2", "--repeats", "2"});
    CliRun r = run_cli(args, dir + "/cache.db");
    SCOPED_TRACE(id + "\n" + r.err);
    expect_every_run_ok(r, shapes.size() * (layouts == "all" ? 4 : 1));
  }
}

}  // namespace

TEST_F(CliGpu, EveryFamilyVerifiesOnRaggedShapesInAllLayouts) {
  std::string const dir = temp_dir("gpu-ragged");
  auto const ids = preset_ids();
  ASSERT_GE(ids.size(), 7u);
  for (std::string const& id : ids) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--shape",
                        "127x255x33", "--shape", "132x260x36", "--shape", "1x1x1", "--layout",
                        "all", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(id + "\n" + r.err);
    ASSERT_FALSE(r.out.empty());
    auto const runs = nlohmann::json::parse(r.out);
    EXPECT_EQ(runs.size(), 12u);
    for (auto const& j : runs) {
      std::string const what = j["problem"].dump();
      std::string const disp = j["result"]["disposition"];
      if (disp == "rejected") {
        // Only a vector path may refuse, and only for a problem that is not 16-byte aligned.
        EXPECT_NE(j["result"]["reason"].get<std::string>().find("align"), std::string::npos) << what;
        EXPECT_LT(j["problem"]["align"].get<int>(), 16) << what;
        continue;
      }
      EXPECT_EQ(disp, "ok") << what << " " << j["result"]["reason"];
      EXPECT_GT(j["baseline"]["cublas_ms"].get<double>(), 0.0) << what;
    }
  }
}

// 16-bit wgmma below 16-byte alignment: the padded copy of whichever operand an odd M, N or K
// leaves off 16 bytes (A, B or both, per layout), then the main kernel, whose C stores fall
// back to pairs or single elements on odd N; split-K in one launch and through the reduce
// kernel; all verified against cuBLAS.
TEST_F(CliGpu, UnalignedSixteenBitWgmmaVerifiesInAllLayouts) {
  std::string const dir = temp_dir("gpu-unaligned");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  for (char const* id : {"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0",
                         "wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0",
                         "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0",
                         "wgmma:BM=64,BN=128,ST=4,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0"}) {
    for (char const* precision : {"bf16", "fp16"}) {
      CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                          precision, "--shape", "1537x1001x771", "--shape", "300x520x999",
                          "--shape", "256x384x1024", "--layout", "all", "--target-ms", "2",
                          "--repeats", "2"},
                         dir + "/cache.db");
      SCOPED_TRACE(std::string(id) + " " + precision + "\n" + r.err);
      expect_every_run_ok(r, 12);
    }
  }
}

// RP = 128: 16-bit operands whose rows are 16 but not 128 bytes apart go through the padded copy
// too, alone or beside unaligned ones; rows 128 bytes apart stay in place. Every layout, plain,
// clustered persistent, split-K and staged-epilogue configs.
TEST_F(CliGpu, RowsThatStraddleLinesVerifyThroughThePaddedCopy) {
  std::string const dir = temp_dir("gpu-row-pitch");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  expect_ids_verify(dir,
                    {"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,RP=128",
                     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,RP=128",
                     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,RP=128",
                     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=1,RP=128"},
                    "bf16", {"1000x1000x1000", "264x520x1000", "256x384x1024"});
  expect_ids_verify(dir, {"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,RP=128"},
                    "fp16", {"1537x1001x771", "200x1000x2048"});
}

// LD = 1: the producer warpgroup's cp.async fill the stages in TMA's swizzled layout. Every
// layout, rows that straddle lines and rows that do not, ragged edges along M, N and K (K = 1000
// ends inside a 64-deep stage), split-K summed in the last slice and by the reduce kernel,
// persistent, ping-pong, the staged epilogue, 64-row tiles, and fp16.
TEST_F(CliGpu, CpAsyncFillVerifiesInAllLayouts) {
  std::string const dir = temp_dir("gpu-cp-async-fill");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  expect_ids_verify(dir,
                    {"wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,LD=1",
                     "wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=1,GM=8,SK=2,EP=0,LD=1",
                     "wgmma:BM=64,BN=128,ST=6,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0,LD=1",
                     "wgmma:BM=128,BN=128,ST=5,CW=2,CL=1,PE=2,GM=8,SK=1,EP=1,LD=1"},
                    "bf16", {"1000x1000x1000", "264x520x1000", "256x384x1024"});
  expect_ids_verify(dir, {"wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,LD=1"}, "fp16",
                    {"1544x1000x776", "200x1000x2048"});
}

// Stream-K (PE = 3): the grid's clusters share out the k blocks of all units, and the shares
// of a cut unit sum their partials. Every layout; units fewer than the clusters (96×1024×1024:
// 8 units of 16 k blocks, each cut into 16 shares of one), between one and two waves, and
// ragged; pairs multicasting B; swapped operands and column halves in one layout.
TEST_F(CliGpu, StreamKSharesVerifyInAllLayouts) {
  std::string const dir = temp_dir("gpu-stream-k");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  for (char const* id : {"wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0",
                         "wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=3,GM=8,SK=1,EP=0"}) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                        "bf16", "--shape", "1544x1024x4096", "--shape", "96x1024x1024",
                        "--shape", "2000x3000x1000", "--layout", "all", "--target-ms", "2",
                        "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(std::string(id) + "\n" + r.err);
    expect_every_run_ok(r, 12);
  }
  for (char const* id : {"wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=3,GM=1,SK=1,EP=0,SW=1",
                         "wgmma:BM=64,BN=128,ST=6,CW=2,CL=1,PE=3,GM=1,SK=1,EP=0"}) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                        "fp16", "--shape", "96x4096x4096", "--shape", "384x2048x1000",
                        "--layout", "NN", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(std::string(id) + "\n" + r.err);
    expect_every_run_ok(r, 2);
  }
}

// N tiles between the searched widths (run when named) verified through the worker: BN=112
// (a part box of MN-major B) in every layout at a ragged M, BN=240 with pairs and a persistent
// grid, BN=80 with split-K summed in the last slice, BN=112 on swapped operands.
TEST_F(CliGpu, NamedNTilesVerifyInAllLayouts) {
  std::string const dir = temp_dir("gpu-named-n");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  CliRun all = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel",
                        "wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0", "--precision",
                        "bf16", "--shape", "1537x1024x4096", "--shape", "200x1000x520", "--layout",
                        "all", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
  SCOPED_TRACE(all.err);
  expect_every_run_ok(all, 8);
  for (char const* id : {"wgmma:BM=128,BN=240,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0",
                         "wgmma:BM=128,BN=80,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0",
                         "wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1"}) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                        "fp16", "--shape", "2000x3000x1000", "--shape", "200x4096x4096",
                        "--layout", "NN", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(std::string(id) + "\n" + r.err);
    expect_every_run_ok(r, 2);
  }
}

// Swapped operands (SW = 1, Cᵀ = Bᵀ·Aᵀ stored transposed) verified through the worker: bf16 in
// all four layouts, tf32 and e4m3 in NT, at a short M against the BN tile and N against BM,
// plain and with split-K summed in the last slice.
TEST_F(CliGpu, SwappedOperandsVerifyInAllLayouts) {
  std::string const dir = temp_dir("gpu-swapped");
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  for (char const* id : {"wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1",
                         "wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,SW=1"}) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                        "bf16", "--shape", "200x1032x520", "--shape", "96x776x2048", "--layout",
                        "all", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(std::string(id) + "\n" + r.err);
    expect_every_run_ok(r, 8);
  }
  // tf32 and e4m3 (per-tensor, row-wise scales) swap in NT, where both operands are K-major.
  for (char const* precision : {"tf32", "e4m3", "e4m3-row"}) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel",
                        "wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,SW=1",
                        "--precision", precision, "--shape", "200x1040x512", "--shape",
                        "96x776x2048", "--layout", "NT", "--target-ms", "2", "--repeats", "2"},
                       dir + "/cache.db");
    SCOPED_TRACE(std::string(precision) + "\n" + r.err);
    expect_every_run_ok(r, 2);
  }
}

// Rounds alternate cuBLAS and the kernel, each protocol in turn; the row reports the medians over
// them and keeps each, per protocol, and the figure of record (graph) at its top level.
TEST_F(CliGpu, BenchRoundsAlternateAndReportMedians) {
  std::string const dir = temp_dir("gpu-rounds");
  CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", preset_ids().front(),
                      "--shape", "256x256x256", "--target-ms", "5", "--repeats", "2", "--rounds",
                      "3"},
                     dir + "/cache.db");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto const rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 1u);
  auto const& row = rows[0];
  ASSERT_TRUE(row.contains("protocols")) << row.dump();
  for (char const* p : {"graph", "stream"}) {
    ASSERT_TRUE(row["protocols"].contains(p)) << p;
    ASSERT_EQ(row["protocols"][p]["rounds"].size(), 3u) << p;
    EXPECT_EQ(row["protocols"][p]["result"]["protocol"], p);
    auto const& k = row["protocols"][p]["kernel"];
    EXPECT_LE(k["min_round_ms"].get<double>(), k["median_ms"].get<double>()) << p;
    EXPECT_GE(k["max_round_ms"].get<double>(), k["median_ms"].get<double>()) << p;
    EXPECT_GT(k["host_us_per_call"].get<double>(), 0.0) << p;
  }
  auto const& graph = row["protocols"]["graph"];
  std::vector<double> kernel, cublas;
  for (auto const& round : graph["rounds"]) {
    EXPECT_EQ(round["result"]["disposition"], "ok");
    EXPECT_TRUE(round["baseline"]["ok"].get<bool>());
    kernel.push_back(round["result"]["median_ms"].get<double>());
    cublas.push_back(round["baseline"]["cublas_ms"].get<double>());
  }
  std::sort(kernel.begin(), kernel.end());
  std::sort(cublas.begin(), cublas.end());
  EXPECT_DOUBLE_EQ(row["result"]["median_ms"].get<double>(), kernel[1]);
  EXPECT_DOUBLE_EQ(row["baseline"]["cublas_ms"].get<double>(), cublas[1]);
}

// A vendor candidate benches like our kernels: cublas:default, then the cuBLASLt algorithm the
// baseline's autotuning picked, by its id, each verified and timed in both protocols.
TEST_F(CliGpu, BenchRunsVendorCandidatesByTheirIds) {
  std::string const dir = temp_dir("gpu-vendor-bench");
  auto bench = [&](std::string const& id) {
    CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--shape",
                        "256x512x384", "--precision", "bf16", "--target-ms", "2", "--repeats",
                        "2"},
                       dir + "/cache.db");
    EXPECT_EQ(r.exit_code, 0) << id << "\n" << r.err << r.out;
    auto const rows = nlohmann::json::parse(r.out.empty() ? "[{}]" : r.out);
    EXPECT_EQ(rows.size(), 1u);
    return rows[0];
  };
  nlohmann::json const plain = bench("cublas:default");
  ASSERT_TRUE(plain.contains("result")) << plain.dump();
  EXPECT_EQ(plain["kernel"], "cublas:default");
  EXPECT_EQ(plain["result"]["disposition"], "ok") << plain["result"]["reason"];
  EXPECT_GT(plain["result"]["median_ms"].get<double>(), 0.0);
  std::string const lt = plain["baseline"].value("cublaslt_kernel", std::string());
  ASSERT_EQ(lt.rfind("cublaslt:ALGO=", 0), 0u) << plain["baseline"].dump();
  nlohmann::json const tuned = bench(lt);
  ASSERT_TRUE(tuned.contains("result")) << tuned.dump();
  EXPECT_EQ(tuned["kernel"], lt);
  EXPECT_EQ(tuned["result"]["disposition"], "ok") << tuned["result"]["reason"];
  for (char const* p : {"graph", "stream"}) {
    EXPECT_GT(tuned["protocols"][p]["kernel"]["median_ms"].get<double>(), 0.0) << p;
  }
}

TEST_F(CliGpu, SearchQueryExportQueryTable) {
  std::string const dir = temp_dir("gpu-e2e");
  std::string const db = dir + "/cache.db";
  CliRun s = run_cli({"--cache-dir", dir, "search", "--shape", "256x256x256", "--family",
                      "blocktile_2d", "--strategy", "random", "--budget", "12", "--target-ms", "2",
                      "--repeats", "3"},
                     db);
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  CliRun t = run_cli({"--json", "list", "trials"}, db);
  ASSERT_EQ(t.exit_code, 0);
  // 12 quick trials plus the 3 best re-timed against cuBLAS (rows that supersede theirs), and
  // the vendor candidates (cublas:default and the chosen cuBLASLt algorithm), each as a quick
  // and a re-timed row.
  EXPECT_EQ(nlohmann::json::parse(t.out).size(), 19u);
  CliRun q = run_cli({"--json", "query", "--shape", "256x256x256"}, db);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  auto const qj = nlohmann::json::parse(q.out)[0];
  EXPECT_EQ(qj["rule"], "exact");
  EXPECT_GT(qj["ratio_cublas"].get<double>(), 0.0);
  EXPECT_GT(qj["ratio_cublaslt"].get<double>(), 0.0);
  CliRun e = run_cli({"export", "--out", dir + "/table.json"}, db);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CliRun qt = run_cli({"--json", "query", "--table", dir + "/table.json", "--shape", "256x256x256"});
  ASSERT_EQ(qt.exit_code, 0) << qt.err;
  EXPECT_EQ(nlohmann::json::parse(qt.out)[0]["kernel"], qj["kernel"]);
  // The same search again: the shape it finished is answered from the cache, nothing runs.
  std::vector<std::string> const same{"--json", "--cache-dir", dir, "search", "--shape",
                                      "256x256x256", "--family", "blocktile_2d", "--strategy",
                                      "random", "--budget", "12", "--target-ms", "2",
                                      "--repeats", "3"};
  CliRun repeat = run_cli(same, db);
  ASSERT_EQ(repeat.exit_code, 0) << repeat.err;
  auto const rj = nlohmann::json::parse(repeat.out);
  EXPECT_FALSE(rj["problems"][0]["finished_by"].is_null()) << repeat.out;
  EXPECT_EQ(rj["problems"][0]["evaluated"], 0);
  EXPECT_EQ(rj["problems"][0]["resumed"], 0);
  EXPECT_EQ(rj["problems"][0]["best"]["kernel"], qj["kernel"]);
  // --again searches it, and the resume redoes nothing stored.
  std::vector<std::string> again_args = same;
  again_args.push_back("--again");
  CliRun again = run_cli(again_args, db);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto const aj = nlohmann::json::parse(again.out);
  EXPECT_TRUE(aj["problems"][0]["finished_by"].is_null());
  EXPECT_EQ(aj["problems"][0]["evaluated"], 0);
  EXPECT_EQ(aj["problems"][0]["resumed"], 12);
  EXPECT_EQ(aj["problems"][0]["retimed"], 0);
  EXPECT_EQ(aj["problems"][0]["vendor_trials"], 0);  // the same algorithm, already stored
  CliRun t2 = run_cli({"--json", "list", "trials"}, db);
  EXPECT_EQ(nlohmann::json::parse(t2.out).size(), 19u);
}

// FP8 (e4m3, and e5m2 A with e4m3 B) through the whole search, with per-tensor, row-wise and
// block scales: wgmma candidates of the FP8 instructions verify against the FP32 reference on
// the widened (and for row-wise and block scales, scaled) inputs (none is a wrong result),
// cuBLASLt's FP8 matmul with the same scaling is timed as the baseline, and the pick is stored
// under the precision. 200×136×272 gives block scales a partial last K block and N block.
TEST_F(CliGpu, E4m3SearchVerifiesWgmmaAgainstCublasLt) {
  for (std::string const precision :
       {"e4m3", "e4m3-row", "e4m3-blk", "e5m2", "e5m2-row", "e5m2-blk"}) {
  SCOPED_TRACE(precision);
  std::string const dir = temp_dir("gpu-" + precision);
  std::string const db = dir + "/cache.db";
  CliRun s = run_cli({"--json", "--cache-dir", dir, "search", "--shape", "384x256x512",
                      "--shape", "200x136x272", "--precision", precision, "--layout", "NT",
                      "--family", "wgmma", "--strategy", "random", "--budget", "10",
                      "--target-ms", "2", "--repeats", "3"},
                     db);
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  CliRun t = run_cli({"--json", "list", "trials"}, db);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  int own_ok = 0, vendor_ok = 0;
  for (auto const& j : nlohmann::json::parse(t.out)) {
    std::string const id = j["kernel"], disp = j["disposition"];
    EXPECT_NE(disp, "wrong_result") << id << " " << j.dump();
    EXPECT_NE(disp, "fault") << id << " " << j.dump();
    if (disp != "ok") continue;
    EXPECT_EQ(j["problem"]["precision"], precision);
    (id.rfind("wgmma:", 0) == 0 ? own_ok : vendor_ok) += 1;
  }
  EXPECT_GE(own_ok, 5);
  EXPECT_GE(vendor_ok, 2);
  CliRun q = run_cli({"--json", "query", "--shape", "384x256x512", "--precision", precision,
                      "--layout", "NT"},
                     db);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_GT(nlohmann::json::parse(q.out)[0]["ratio_cublaslt"].get<double>(), 0.0);
  }
}

// FP8 in every layout: operands stored MN-major are copied K-major (bytes) before the main
// kernel; each scaling verifies against the reference, plain and split-K through the reduce
// kernel. cuBLASLt reads FP8 only as our NT on Hopper, so only NT needs its baseline here.
TEST_F(CliGpu, Fp8InEveryLayoutVerifiesThroughTheByteCopy) {
  CliRun probe = run_cli({"--json", "devices"});
  if (probe.out.find("sm_90") == std::string::npos) GTEST_SKIP() << "wgmma needs sm_90";
  std::string const dir = temp_dir("gpu-fp8-layouts");
  for (char const* id : {"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0",
                         "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0"}) {
    for (char const* precision : {"e4m3", "e4m3-row", "e4m3-blk", "e5m2"}) {
      CliRun r = run_cli({"--json", "--cache-dir", dir, "bench", "--kernel", id, "--precision",
                          precision, "--shape", "256x384x512", "--shape", "144x208x1040",
                          "--layout", "all", "--target-ms", "2", "--repeats", "2"},
                         dir + "/cache.db");
      SCOPED_TRACE(std::string(id) + " " + precision + "\n" + r.err);
      expect_every_run_ok(r, 8);
    }
  }
}

// The roofline's ceilings measured on the device, stored, and drawn by the report in place of
// the datasheet's figures.
TEST_F(CliGpu, DevicesMeasuresCeilingsThatTheReportDraws) {
  std::string const dir = temp_dir("gpu-ceilings");
  std::string const db = dir + "/cache.db";
  CliRun r = run_cli({"--json", "devices", "--ceilings", "--ceiling-size", "2048"}, db);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto const j = nlohmann::json::parse(r.out);
  ASSERT_GE(j["ceilings"].size(), 5u);  // copy, fp32, tf32, fp16, bf16 (and FP8 on sm_89+)
  for (auto const& c : j["ceilings"]) {
    EXPECT_FALSE(c.contains("error")) << c.dump();
    EXPECT_GT(c["value"].get<double>(), 0.0) << c.dump();
  }
  // A search gives the report a shape to place; its roofline then names the measurements.
  CliRun s = run_cli({"search", "--shape", "256x256x256", "--family", "naive", "--strategy",
                      "random", "--budget", "2", "--target-ms", "2"},
                     db);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  CliRun rep = run_cli({"report", "--out", dir + "/r.html", "--format", "md"}, db);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  CliRun html = run_cli({"report", "--out", "-"}, db);
  EXPECT_NE(html.out.find("measured on this device by `gemmtune devices --ceilings`"),
            std::string::npos);
}

}  // namespace gemmtune::test
