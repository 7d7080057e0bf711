// On an sm_90 GPU: a search over the wgmma family tunes a bf16 shape (NN), e4m3 and e5m2 ones (NT),
// and the kernel it picks, compiled as the search compiles it, disassembles to SASS that issues
// HGMMA (bf16) or QGMMA (FP8): the tensor cores reached through wgmma, not a fallback; and it
// loads through TMA. Skips without a GPU, on other
// archs, or where cuobjdump cannot be run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tests/cli/cli_runner.hpp"

namespace gemmtune::test {
namespace {

std::string read_file(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Tunes `precision` `layout` at 1024³ over the wgmma family alone and checks its pick's SASS
/// for `mma` (the tensor-core instruction), TMA loads and no spills.
void expect_tuned_kernel_issues(std::string const& precision, std::string const& layout,
                                std::string const& mma) {
  CliRun d = run_cli({"--json", "devices"});
  if (d.exit_code != 0) GTEST_SKIP() << "no GPU: " << d.err;
  auto const dev = nlohmann::json::parse(d.out);
  std::string const arch = dev["limits"]["arch"].get<std::string>();
  if (arch != "sm_90" && arch != "sm_90a") GTEST_SKIP() << "wgmma needs sm_90, not " << arch;

  std::string const dir = temp_dir("gpu-wgmma-sass-" + precision);
  std::string const db = dir + "/cache.db";
  CliRun s = run_cli({"--cache-dir", dir, "search", "--shape", "1024x1024x1024", "--precision",
                      precision, "--layout", layout, "--family", "wgmma", "--strategy", "random",
                      "--budget", "4", "--target-ms", "2", "--repeats", "3", "--no-vendor"},
                     db);
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  CliRun q = run_cli({"--json", "query", "--shape", "1024x1024x1024", "--precision", precision,
                      "--layout", layout},
                     db);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  auto const best = nlohmann::json::parse(q.out)[0];
  ASSERT_EQ(best["rule"], "exact");
  std::string const id = best["kernel"].get<std::string>();
  ASSERT_EQ(id.rfind("wgmma:", 0), 0u) << id;  // --no-vendor: the pick is ours

  KernelConfig const cfg = parse_kernel_id(id);
  Family const* family = find_family(cfg.family);
  ASSERT_NE(family, nullptr);
  Problem const p =
      parse_shape("1024x1024x1024", parse_precision(precision), parse_layout(layout)).resolved();
  CompileResult const r = Compiler(CompilerSettings{}).compile(family->compile_request(cfg, p, arch));
  ASSERT_TRUE(r.ok) << r.log;
  std::filesystem::path const cubin = std::filesystem::path(dir) / "best.cubin";
  std::filesystem::path const sass = std::filesystem::path(dir) / "best.sass";
  { std::ofstream(cubin, std::ios::binary) << r.cubin; }
  std::string const cmd =
      "cuobjdump -sass '" + cubin.string() + "' > '" + sass.string() + "' 2>&1";
  int const rc = std::system(cmd.c_str());
  if (rc != 0) GTEST_SKIP() << "cuobjdump could not be run (" << rc << "): " << read_file(sass);
  std::string const text = read_file(sass);
  EXPECT_NE(text.find(mma), std::string::npos) << id << "\n" << text.substr(0, 2000);
  EXPECT_NE(text.find("UTMALDG"), std::string::npos) << id;
  EXPECT_EQ(text.find("LDL"), std::string::npos) << id << ": local-memory loads (spills)";
}

TEST(WgmmaSassGpu, TunedKernelIssuesHgmma) { expect_tuned_kernel_issues("bf16", "NN", "HGMMA"); }

TEST(WgmmaSassGpu, TunedE4m3KernelIssuesQgmma) {
  expect_tuned_kernel_issues("e4m3", "NT", "QGMMA");
}

// e5m2 A with e4m3 B: the mixed-type QGMMA (its SASS names both input types).
TEST(WgmmaSassGpu, TunedE5m2KernelIssuesMixedQgmma) {
  expect_tuned_kernel_issues("e5m2", "NT", "E5M2.E4M3");
}

}  // namespace
}  // namespace gemmtune::test
