// `gemmtune emit`: for every ladder stage, in every layout, the emitted .cu compiles with nvcc
// for sm_90 on its own; configs a problem cannot take and unknown ids are refused.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "src/kernels/family.hpp"
#include "src/kernels/ladder_presets.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

struct CliRun {
  int status = 0;
  std::string out;
};

CliRun run(std::string const& cmd) {
  auto const log = std::filesystem::temp_directory_path() /
                   ("gemmtune_emit_" + std::to_string(::getpid()) + ".log");
  int const raw = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  CliRun r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, std::string(std::istreambuf_iterator<char>(in), {})};
  std::filesystem::remove(log);
  return r;
}

class EmitCompiles : public ::testing::TestWithParam<int> {};

TEST_P(EmitCompiles, WithNvcc) {
  LadderPreset const preset = ladder_presets().at(static_cast<std::size_t>(GetParam()));
  auto const dir = std::filesystem::temp_directory_path() /
                   ("gemmtune_emit_" + std::string(preset.family->name()));
  std::filesystem::create_directories(dir);
  // One file per layout; a ragged shape whose packed storage is still 16-byte aligned, so the
  // vectorised stages may be emitted too.
  for (char const* layout : {"NN", "NT", "TN", "TT"}) {
    auto const cu = dir / (std::string(layout) + ".cu");
    CliRun r = run(gemmtune::test::gemmtune_binary() + " emit '" + preset.config.id() +
                "' --shape 200x136x72 --layout " + layout + " --out " + cu.string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::ifstream in(cu);
    std::string const text(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(text.find("#include \"common/"), std::string::npos) << "headers not inlined";
    EXPECT_NE(text.find("template __global__ void gemmtune::"), std::string::npos);
    EXPECT_NE(text.find("cudaError_t launch(GemmArgs const& args, cudaStream_t stream)"),
              std::string::npos);
    // The ladder's kernels do not wait for the prior grid: plain launches.
    EXPECT_NE(text.find(">>>(args);"), std::string::npos);
    EXPECT_EQ(text.find("cudaLaunchKernelEx"), std::string::npos);
    r = run(std::string(GEMMTUNE_NVCC) + " -c -arch=sm_90 -std=c++17 " + cu.string() + " -o " +
            (dir / (std::string(layout) + ".o")).string());
    EXPECT_EQ(r.status, 0) << preset.config.id() << " " << layout << ":\n" << r.out;
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(LadderStages, EmitCompiles, ::testing::Range(0, 7));

TEST(Emit, MultiLaunchPlanWithWorkspaceAndLargeSharedMemoryCompiles) {
  // split-K over two slices: a workspace, split-K counters, and 64 KiB of dynamic smem.
  auto const dir = std::filesystem::temp_directory_path() / "gemmtune_emit_simt";
  std::filesystem::create_directories(dir);
  auto const cu = dir / "simt.cu";
  CliRun r = run(gemmtune::test::gemmtune_binary() +
                 " emit 'simt:BM=128,BN=128,BK=16,TM=8,TN=8,LL=1,CURE=2,ST=4,CP=1,SW=8,SK=2,RED=0'"
                 " --shape 1024x1024x4096 --out " + cu.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(cu);
  std::string const text(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(text.find("cudaFuncAttributeMaxDynamicSharedMemorySize, 65536"), std::string::npos);
  EXPECT_NE(text.find("constexpr long long kWorkspaceBytes = 8388608;"), std::string::npos);
  EXPECT_NE(text.find("constexpr long long kCounterBytes = 256;"), std::string::npos);
  EXPECT_NE(text.find("args.counters == nullptr"), std::string::npos);
  // simt waits for the prior grid, so it is launched as the tuner launches it: with
  // programmatic stream serialization where the device has it.
  EXPECT_NE(text.find("cudaLaunchKernelEx(&config, gemmtune::simt<"), std::string::npos);
  EXPECT_NE(text.find("config.numAttrs = major >= 9 ? 1 : 0;"), std::string::npos);
  EXPECT_EQ(text.find("<<<"), std::string::npos);
  r = run(std::string(GEMMTUNE_NVCC) + " -c -arch=sm_90 -std=c++17 " + cu.string() + " -o " +
          (dir / "simt.o").string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::filesystem::remove_all(dir);
}


/// The build line an emitted file prints under "// Build:", with its file and output filled in
/// and `nvcc` replaced by the toolkit's; "" when there is none.
std::string printed_build_line(std::string const& text, std::filesystem::path const& cu,
                               std::filesystem::path const& obj) {
  std::size_t const at = text.find("// Build:\n//   nvcc ");
  if (at == std::string::npos) return "";
  std::size_t const start = at + std::string("// Build:\n//   nvcc ").size();
  std::string line = text.substr(start, text.find('\n', start) - start);
  auto replace = [&](std::string const& what, std::string const& with) {
    std::size_t const p = line.find(what);
    if (p != std::string::npos) line.replace(p, what.size(), with);
  };
  replace("<this file>", cu.string());
  replace("kernel.o", obj.string());
  return std::string(GEMMTUNE_NVCC) + " " + line;
}

// One emitted file of every family, built with exactly the line its header prints: a wgmma file
// needs sm_90a's instructions, which a plain compute_90 pass (nvcc's -arch=sm_90a) rejects.
TEST(Emit, EveryFamilyBuildsWithTheLineItsHeaderPrints) {
  struct Case {
    std::string id, precision, shape = "1024x1024x1024";
  };
  std::vector<Case> cases;
  for (LadderPreset const& preset : ladder_presets()) cases.push_back({preset.config.id(), "fp32"});
  cases.push_back({"simt:BM=128,BN=128,BK=16,TM=8,TN=8,LL=1,CURE=2,ST=4,CP=1,SW=8,SK=2,RED=0",
                   "fp32"});
  cases.push_back({"mma:BM=16,BN=128,BK=64,WM=16,WN=32,ST=4,SW=1,SK=4,CR=0", "bf16",
                   "16x4096x4096"});
  cases.push_back({"wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=0,GM=8,SK=1,EP=2", "bf16",
                   "8192x8192x8192"});
  cases.push_back({"wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0", "fp16",
                   "8192x8192x8192"});
  // Below 16-byte alignment: the padded copy first, descriptors over whichever the call needs.
  cases.push_back({"wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0", "bf16",
                   "300x520x1001"});
  // Rows 16 but not 128 bytes apart, copied first under RP=128's rule.
  cases.push_back({"wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,RP=128", "bf16",
                   "1000x1000x1000"});
  // Stream-K: the partials of cut tiles and their counters.
  cases.push_back({"wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0", "bf16",
                   "1536x1024x4096"});
  std::set<std::string> covered;
  for (Case const& c : cases) covered.insert(c.id.substr(0, c.id.find(':')));
  for (Family const* f : all_families()) {
    EXPECT_TRUE(covered.count(std::string(f->name()))) << f->name() << " has no emit case";
  }
  auto const dir = std::filesystem::temp_directory_path() / "gemmtune_emit_every_family";
  std::filesystem::create_directories(dir);
  int n = 0;
  for (Case const& c : cases) {
    auto const cu = dir / (std::to_string(n) + ".cu");
    auto const obj = dir / (std::to_string(n++) + ".o");
    CliRun r = run(gemmtune::test::gemmtune_binary() + " emit '" + c.id +
                   "' --shape " + c.shape + " --precision " + c.precision + " --out " + cu.string());
    ASSERT_EQ(r.status, 0) << c.id << ": " << r.out;
    std::ifstream in(cu);
    std::string const text(std::istreambuf_iterator<char>(in), {});
    std::string const line = printed_build_line(text, cu, obj);
    ASSERT_FALSE(line.empty()) << c.id << ": no build line in the header";
    r = run(line);
    EXPECT_EQ(r.status, 0) << c.id << "\n" << line << "\n" << r.out;
    EXPECT_TRUE(std::filesystem::exists(obj)) << c.id;
  }
  std::filesystem::remove_all(dir);
}

// A vendor id emits the equivalent cuBLAS call, which nvcc builds; hostile values are refused.
TEST(Emit, VendorIdsEmitTheirCublasCall) {
  std::string const g = gemmtune::test::gemmtune_binary();
  auto const dir = std::filesystem::temp_directory_path() / "gemmtune_emit_vendor";
  std::filesystem::create_directories(dir);
  std::string const lt =
      "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=2,RED=2,SWIZZLE=1,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0";
  struct Case {
    std::string id, precision, layout, expect;
  };
  // Emits the case's call for `shape`, checks it names `expect`, compiles it; the file's text.
  auto const emit_and_compile = [&](Case const& c, std::string const& shape) {
    auto const cu = dir / (c.precision + c.layout + ".cu");
    CliRun r = run(g + " emit '" + c.id + "' --shape " + shape + " --precision " + c.precision +
                   " --layout " + c.layout + " --out " + cu.string());
    EXPECT_EQ(r.status, 0) << r.out;
    std::ifstream in(cu);
    std::string const text(std::istreambuf_iterator<char>(in), {});
    EXPECT_NE(text.find(c.expect), std::string::npos) << text;
    r = run(std::string(GEMMTUNE_NVCC) + " -c -std=c++17 " + cu.string() + " -o " +
            (dir / (c.precision + c.layout + ".o")).string());
    EXPECT_EQ(r.status, 0) << c.id << ":\n" << r.out;
    return text;
  };
  for (Case const& c : {Case{lt, "bf16", "TN", "cublasLtMatmulAlgoCheck"},
                        Case{lt, "fp32", "NT", "CUBLAS_COMPUTE_32F_PEDANTIC"},
                        Case{"cublas:default", "fp16", "NN", "cublasGemmEx"}}) {
    std::string const text = emit_and_compile(c, "200x136x72");
    EXPECT_NE(text.find("constexpr std::int64_t M = 200, N = 136, K = 72;"), std::string::npos);
  }
  // FP8 through cuBLASLt only: the descriptor gets the precision's accumulation and scale modes
  // and the caller's scale pointers; cublas:default is cuBLASLt's heuristic algorithm.
  for (Case const& c :
       {Case{"cublas:default", "e4m3-blk", "NT", "CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F"},
        Case{lt, "e4m3-row", "NT", "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F"},
        Case{"cublas:default", "e4m3", "NT", "cublasLtMatmulAlgoGetHeuristic"}}) {
    std::string const text = emit_and_compile(c, "256x512x1024");
    EXPECT_NE(text.find("CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a"), std::string::npos)
        << text;
    EXPECT_NE(text.find(c.precision == "e4m3-blk" ? "fast_accum = 0" : "fast_accum = 1"),
              std::string::npos)
        << text;
  }
  CliRun r = run(g +
                 " emit 'cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=0,RED=0,SWIZZLE=0,CUSTOM=0,"
                 "INNER=0,CLUSTER=0,COMPUTE=0' --shape 64x64x64");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("SPLITK=0 is out of range"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Emit, RefusesWhatCannotRun) {
  std::string const g = gemmtune::test::gemmtune_binary();
  CliRun r = run(g + " emit 'vectorized:BM=128,BN=128,BK=8,TM=8,TN=8' --shape 64x64x64 --align 4");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("alignment"), std::string::npos) << r.out;
  r = run(g + " emit 'nosuch:BM=1' --shape 64x64x64");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("unknown kernel family 'nosuch'"), std::string::npos) << r.out;
  r = run(g + " emit 'naive:BM=33,BN=32' --shape 64x64x64");
  EXPECT_EQ(r.status, 2) << r.out;
  r = run(g + " emit 'naive:BM=32,BN=32' --shape 64x64x64 --layout all");
  EXPECT_EQ(r.status, 2) << r.out;
  r = run(g + " emit 'naive:BM=32,BN=32' --shape 64x64x64 --arch sm_1");
  EXPECT_EQ(r.status, 2) << r.out;
  r = run(g + " emit 'naive:BM=32,BN=32' --shape 64x64x64");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("gemmtune::naive<32,32,false,false><<<dim3(4, 1, 1), dim3(1024, 1, 1), 0, stream>>>"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace gemmtune
