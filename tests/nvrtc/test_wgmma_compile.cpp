// The wgmma family through NVRTC for sm_90a: a sample of the valid space at 4096³ for fp16 and
// bf16 in every layout, tf32 (K-major copies where an operand is MN-major), a ragged shape,
// split-K and ping-pong compile with no spills, no stack
// and no ignored setmaxnreg; where cuobjdump is installed (scripts/setup.sh fetches it), the
// SASS of each cubin holds HGMMA or QGMMA of the problem's input types (the tensor-core path),
// UTMALDG (TMA loads), each issued once rather than in a loop over the warp's operands, and no
// local-memory loads; the host's shared-memory size equals the template's layout.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/wgmma_family.hpp"
#include "src/nvrtc/compile_pool.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

struct Candidate {
  KernelConfig config;
  Problem problem;
};

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Precision precision, Layout layout,
             int align = 0) {
  Problem p{.m = m, .n = n, .k = k, .precision = precision, .layout = layout};
  p.align = align;
  return p.resolved();
}

DeviceLimits sm90() { return *arch_limits("sm_90"); }

/// n configs spread evenly over the valid space of p.
std::vector<Candidate> spread(Problem const& p, std::size_t n) {
  Family const& f = wgmma_family();
  std::vector<Candidate> all;
  for (KernelConfig const& cfg : f.enumerate()) {
    if (f.reject_reason(cfg, p, sm90()).empty()) all.push_back({cfg, p});
  }
  if (all.size() <= n) return all;
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(all[i * (all.size() - 1) / (n - 1)]);
  return out;
}

KernelConfig parse(std::string const& id) { return parse_kernel_id(id); }

/// cuobjdump on PATH, in the CUDA toolkit, or where scripts/setup.sh puts it (.tools/sass of
/// the checkout, beside nvdisasm), or "" (the SASS checks are then skipped).
std::string find_cuobjdump() {
  std::vector<std::string> dirs;
  if (char const* path = std::getenv("PATH")) {
    std::string const s = path;
    std::size_t start = 0;
    while (start <= s.size()) {
      std::size_t const end = s.find(':', start);
      dirs.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  dirs.push_back("/usr/local/cuda/bin");
  dirs.push_back(test::source_path(".tools/sass").string());
  for (std::string const& d : dirs) {
    std::filesystem::path const p = std::filesystem::path(d) / "cuobjdump";
    if (!d.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

/// The SASS of a cubin, through cuobjdump; "" when it cannot be run.
std::string sass_of(std::string const& cuobjdump, std::string const& cubin) {
  char dir_template[] = "/tmp/gemmtune_wgmma_XXXXXX";
  char* const dir = ::mkdtemp(dir_template);
  if (dir == nullptr) return {};
  std::string const bin = std::string(dir) + "/k.cubin", txt = std::string(dir) + "/k.sass";
  { std::ofstream(bin, std::ios::binary) << cubin; }
  // cuobjdump runs nvdisasm, which it looks for beside itself only through NVDISASM_PATH.
  std::string const tools = std::filesystem::path(cuobjdump).parent_path().string();
  std::string const cmd = "NVDISASM_PATH='" + tools + "' '" + cuobjdump + "' -sass '" + bin +
                          "' > '" + txt + "' 2>&1";
  int const rc = std::system(cmd.c_str());
  std::string sass;
  if (rc == 0) {
    std::ifstream in(txt);
    sass.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove_all(dir);
  return sass;
}

/// TMA loads that the compiler wrapped in a loop over the warp's distinct operands: a UTMALDG
/// followed within three instructions by the loop's branch back (BRA.U.ANY). The producer issues
/// under elect.sync so that each copy is one instruction from uniform registers; under a lane
/// test every copy took such a loop, about ten instructions more a copy (ncu: the producer of a
/// 64×128 tile busy 87% of the time and its consumers starved).
int copies_in_operand_loops(std::string const& sass) {
  // Instruction lines only (they hold a ';'): cuobjdump puts the second half of each encoding
  // on a line of its own.
  std::vector<std::string> lines;
  std::istringstream in(sass);
  for (std::string line; std::getline(in, line);) {
    if (line.find(';') != std::string::npos) lines.push_back(line);
  }
  int looped = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("UTMALDG") == std::string::npos) continue;
    for (std::size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
      if (lines[j].find("BRA.U.ANY") != std::string::npos) {
        ++looped;
        break;
      }
    }
  }
  return looped;
}

void compile_all(std::vector<Candidate> const& candidates) {
  Family const& f = wgmma_family();
  Compiler const compiler(CompilerSettings{});
  CompilePool pool(compiler, 2);
  std::string const cuobjdump = find_cuobjdump();
  if (cuobjdump.empty()) std::printf("cuobjdump not found: SASS checks skipped\n");
  std::vector<std::future<CompileResult>> futures;
  for (Candidate const& c : candidates) {
    // Legal kernels (the search's preferences aside: these cover the template's paths).
    ASSERT_EQ(f.reject_reason(c.config, c.problem, sm90(), RejectScope::kRun), "")
        << c.config.id();
    futures.push_back(pool.submit(f.compile_request(c.config, c.problem, "sm_90")));
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Candidate const& c = candidates[i];
    CompileResult const r = futures[i].get();
    std::string const what = c.config.id() + " " + c.problem.describe();
    ASSERT_TRUE(r.ok) << what << "\n" << r.log;
    ASSERT_EQ(r.resources.size(), f.launch_plan(c.config, c.problem).launches.size()) << what;
    // The main kernel: the launch that reads the TMA descriptors (tf32 copies come first).
    LaunchPlan const plan = f.launch_plan(c.config, c.problem);
    std::size_t main = 0;
    while (main + 1 < plan.launches.size() && !plan.launches[main].takes_tensor_maps) ++main;
    KernelResources const& k = r.resources[main];
    std::printf("%-52s %-28s regs=%3d spill=%d/%d stack=%d %.0f ms\n", c.config.id().c_str(),
                c.problem.describe().c_str(), k.registers, k.spill_stores, k.spill_loads,
                k.stack_bytes, r.compile_ms);
    for (KernelResources const& kr : r.resources) {
      EXPECT_EQ(kr.spill_stores, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.spill_loads, 0) << what << " " << kr.lowered_name;
      EXPECT_EQ(kr.stack_bytes, 0) << what << " " << kr.lowered_name;
    }
    // ptxas says so when it ignores setmaxnreg (C7508) or serializes wgmma.
    EXPECT_EQ(r.log.find("setmaxnreg"), std::string::npos) << what << "\n" << r.log;
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << what << "\n" << r.log;
    if (cuobjdump.empty()) continue;
    std::string const sass = sass_of(cuobjdump, r.cubin);
    ASSERT_FALSE(sass.empty()) << what << ": cuobjdump failed";
    // FP8 wgmma is QGMMA in SASS, which names the input types; the 16-bit and tf32 ones are
    // HGMMA.
    Precision const p = c.problem.precision;
    // Two consumer warpgroups on a 64-row tile split its columns: each wgmma is N = BN/2.
    bool const halves = c.config.at("BM") == 64 && c.config.at("CW") == 2 && c.config.at("PE") != 2;
    std::string const n = std::to_string(c.config.at("BN") / (halves ? 2 : 1));
    std::string const mma = !is_fp8(p)    ? "HGMMA.64x" + n
                            : a_is_e5m2(p) ? "QGMMA.64x" + n + "x32.F32.E5M2.E4M3"
                                           : "QGMMA.64x" + n + "x32.F32.E4M3.E4M3";
    EXPECT_NE(sass.find(mma), std::string::npos) << what << ": no " << mma;
    // Stages come by TMA, or with LD=1 by the producer's cp.async (LDGSTS) and no TMA load.
    bool const filled = f.canonical(c.config).at("LD") == 1;
    EXPECT_EQ(sass.find("UTMALDG") != std::string::npos, !filled) << what;
    EXPECT_EQ(sass.find("LDGSTS") != std::string::npos, filled) << what;
    EXPECT_EQ(sass.find("LDL"), std::string::npos) << what;
    EXPECT_EQ(copies_in_operand_loops(sass), 0) << what;
  }
}

TEST(WgmmaCompile, SixteenBitSampleInEveryLayoutAtTheBenchmarkShape) {
  std::vector<Candidate> all;
  for (Precision precision : {Precision::kBF16, Precision::kFP16}) {
    for (Layout layout : kAllLayouts) {
      for (Candidate const& c : spread(make(4096, 4096, 4096, precision, layout), 3)) {
        all.push_back(c);
      }
    }
  }
  compile_all(all);
}

// e4m3 (NT, the K-major layout FP8 wgmma reads): a spread of the valid space at 4096³, a ragged
// M and N with 16-byte rows, split-K and ping-pong, through the k32 FP8 instructions.
TEST(WgmmaCompile, E4m3SampleRaggedSplitKAndPingPong) {
  std::vector<Candidate> all = spread(make(4096, 4096, 4096, Precision::kE4M3, Layout::kNT), 6);
  for (Candidate const& c : spread(make(1000, 1008, 1024, Precision::kE4M3, Layout::kNT), 3)) {
    all.push_back(c);
  }
  all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4"),
                 make(512, 512, 8192, Precision::kE4M3, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=5,CW=2,CL=2,PE=2,GM=8,SK=1"),
                 make(4096, 4096, 4096, Precision::kE4M3, Layout::kNT)});
  ASSERT_GE(all.size(), 10u);
  compile_all(all);
}

// Row-wise e4m3: the scaling in registers before every store path (register stores, staged TMA
// stores, split-K partials summed in the last slice or by the reduce kernel, ping-pong) at the
// widest tiles, without spills.
TEST(WgmmaCompile, E4m3RowEveryStorePathWithoutSpills) {
  Problem const big = make(4096, 4096, 4096, Precision::kE4M3Row, Layout::kNT);
  std::vector<Candidate> all = spread(big, 4);
  for (char const* id : {"wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0",
                         "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=2",
                         "wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=1",
                         "wgmma:BM=128,BN=128,ST=5,CW=2,CL=2,PE=2,GM=8,SK=1,EP=0"}) {
    all.push_back({parse(id), big});
  }
  all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"),
                 make(1000, 1008, 4096, Precision::kE4M3Row, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0"),
                 make(512, 512, 8192, Precision::kE4M3Row, Layout::kNT)});
  compile_all(all);
}

// Block-scaled e4m3: the second set of accumulators and the promotion every K block, at the
// widest tiles the family allows (BN = 160 with 64 rows per warpgroup, BN = 64 with 128), with
// every store path and split-K, and with the consumer warpgroups taking turns, without spills.
TEST(WgmmaCompile, E4m3BlockScaledPromotionWithoutSpills) {
  Problem const big = make(4096, 7168, 16384, Precision::kE4M3Blk, Layout::kNT);
  std::vector<Candidate> all = spread(big, 4);
  for (char const* id : {"wgmma:BM=128,BN=160,ST=5,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0",
                         "wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=2",
                         "wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=1,GM=8,SK=1,EP=1"}) {
    all.push_back({parse(id), big});
  }
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=1,CL=1,PE=0,GM=1,SK=1,EP=0"),
                 make(256, 4096, 4096, Precision::kE4M3Blk, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=96,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"),
                 make(1000, 1008, 4096, Precision::kE4M3Blk, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0"),
                 make(512, 512, 8192, Precision::kE4M3Blk, Layout::kNT)});
  // The consumer warpgroups taking turns at the wgmma (TU=1): clustered and persistent, the
  // widest tile, split-K, and e5m2.
  for (char const* id : {"wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=0,TU=1",
                         "wgmma:BM=128,BN=160,ST=5,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,CA=0,TU=1",
                         "wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=1,GM=8,SK=1,EP=2,CA=0,TU=1"}) {
    all.push_back({parse(id), big});
  }
  all.push_back({parse("wgmma:BM=128,BN=96,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,CA=0,TU=1"),
                 make(1000, 1008, 4096, Precision::kE4M3Blk, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=0,TU=1"),
                 make(4096, 7168, 4096, Precision::kE5M2Blk, Layout::kNT)});
  compile_all(all);
}

// FP8 operands stored MN-major are copied K-major (bytes) first: every layout compiles, the
// copy kernel with the main one, for each scaling.
TEST(WgmmaCompile, Fp8InEveryLayoutThroughTheByteCopy) {
  std::vector<Candidate> all;
  for (Layout l : {Layout::kNN, Layout::kTN, Layout::kTT}) {
    all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0"),
                   make(4096, 4096, 4096, Precision::kE4M3, l)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"),
                   make(1008, 1008, 4096, Precision::kE4M3Row, l)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0"),
                   make(4096, 7168, 4096, Precision::kE4M3Blk, l)});
  }
  compile_all(all);
}

// e5m2 A with e4m3 B: the mixed-type k32 instruction under each scaling, in place (NT) and
// through the byte copy (NN, TT), with split-K, without spills.
TEST(WgmmaCompile, E5m2EveryScalingAndLayout) {
  std::vector<Candidate> all = spread(make(4096, 4096, 4096, Precision::kE5M2, Layout::kNT), 3);
  for (Layout l : {Layout::kNT, Layout::kNN, Layout::kTT}) {
    all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0"),
                   make(4096, 4096, 4096, Precision::kE5M2, l)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"),
                   make(1008, 1008, 4096, Precision::kE5M2Row, l)});
    all.push_back({parse("wgmma:BM=128,BN=160,ST=5,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0"),
                   make(4096, 7168, 4096, Precision::kE5M2Blk, l)});
  }
  compile_all(all);
}

TEST(WgmmaCompile, ExpectedLeadersRaggedSplitKAndTf32) {
  Problem const big = make(4096, 4096, 4096, Precision::kBF16, Layout::kNN);
  std::vector<Candidate> const all = {
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1"), big},
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1"), big},
      {parse("wgmma:BM=128,BN=192,ST=5,CW=2,CL=2,PE=1,GM=8,SK=1"), big},
      {parse("wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1"), big},
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1"),
       make(4096, 4096, 4096, Precision::kBF16, Layout::kNT)},
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=2,PE=0,GM=8,SK=1"),
       make(1000, 1000, 1000, Precision::kFP16, Layout::kTT, 16)},
      {parse("wgmma:BM=64,BN=96,ST=6,CW=1,CL=1,PE=0,GM=1,SK=1"),
       make(100, 200, 300, Precision::kBF16, Layout::kTN, 16)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4"),
       make(512, 512, 8192, Precision::kBF16, Layout::kNN)},
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1"),
       make(4096, 4096, 4096, Precision::kTF32, Layout::kNT)},
      {parse("wgmma:BM=128,BN=128,ST=3,CW=1,CL=1,PE=0,GM=1,SK=2"),
       make(256, 512, 4096, Precision::kTF32, Layout::kNT)},
      // Ping-pong (PE=2): whole tiles per consumer warpgroup, alone and in clusters.
      {parse("wgmma:BM=64,BN=256,ST=5,CW=2,CL=1,PE=2,GM=8,SK=1"), big},
      {parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=2,GM=8,SK=1"),
       make(4096, 4096, 4096, Precision::kFP16, Layout::kTT)},
      {parse("wgmma:BM=128,BN=128,ST=5,CW=2,CL=2,PE=2,GM=8,SK=1"),
       make(2000, 3000, 1000, Precision::kBF16, Layout::kTN, 16)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=2,GM=8,SK=1"),
       make(4096, 4096, 4096, Precision::kTF32, Layout::kNT)},
      // tf32 with MN-major operands: the K-major copy kernel first.
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1"),
       make(4096, 4096, 4096, Precision::kTF32, Layout::kTN)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1"),
       make(2000, 3000, 1000, Precision::kTF32, Layout::kTT, 16)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4"),
       make(256, 512, 8192, Precision::kTF32, Layout::kNN)},
  };
  compile_all(all);
}

// 16-bit operands below 16-byte alignment: the padded copy kernel first, then the main kernel
// with its C stores checked for alignment, in every layout, with split-K in one launch and with
// the reduce kernel, clusters and ping-pong; and a spread of the space an odd K leaves.
TEST(WgmmaCompile, UnalignedSixteenBitPaddedCopies) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1"),
                   make(3001, 3072, 4095, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=0,GM=1,SK=2"),
                   make(1537, 4097, 4096, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=4"),
                 make(128, 1001, 8191, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=5,CW=2,CL=1,PE=2,GM=8,SK=1"),
                 make(3072, 30522, 1024, Precision::kBF16, Layout::kNN)});
  for (Candidate const& c : spread(make(2000, 3000, 999, Precision::kBF16, Layout::kNN), 4)) {
    all.push_back(c);
  }
  for (Candidate const& c : all) {
    ASSERT_LT(c.problem.align, 16) << c.problem.describe();
    ASSERT_NE(wgmma_family().launch_plan(c.config, c.problem).launches.front().name_expression.find(
                  "wgmma_padded_copy"),
              std::string::npos);
  }
  compile_all(all);
}

// RP=128: the padded copy with the 128-byte rule before the main kernel, at class 16 (rows that
// straddle lines) and below it, in every layout, with split-K, clusters and the staged epilogue.
TEST(WgmmaCompile, RowPitchCopiesBeforeTheMainKernel) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,RP=128"),
                   make(1000, 1000, 1000, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=1,GM=8,SK=2,EP=0,RP=128"),
                   make(1537, 4097, 1000, Precision::kFP16, layout, 2)});
  }
  all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=1,RP=128"),
                 make(4000, 4000, 4000, Precision::kBF16, Layout::kNN)});
  for (Candidate const& c : all) {
    std::string const copy =
        wgmma_family().launch_plan(c.config, c.problem).launches.front().name_expression;
    ASSERT_NE(copy.find("wgmma_padded_copy"), std::string::npos) << copy;
    ASSERT_NE(copy.find(",128>"), std::string::npos) << copy;
  }
  compile_all(all);
}

// LD=1: each stage filled by the producer warpgroup's 16-byte cp.async, in every layout, at rows
// that straddle lines and at 1024, with the tile widths whose MN-major tiles round up to whole
// boxes, split-K (summed in the last slice and by the reduce kernel), ping-pong, stream-K, the
// staged epilogue and fp16.
TEST(WgmmaCompile, CpAsyncFillInEveryLayout) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,LD=1"),
                   make(1000, 1000, 1000, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=1,GM=8,SK=2,EP=0,LD=1"),
                   make(2000, 1000, 3000, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=64,BN=128,ST=8,CW=1,CL=1,PE=0,GM=1,SK=1,EP=0,LD=1"),
                 make(1000, 1000, 1000, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=64,BN=224,ST=5,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,LD=1"),
                 make(1024, 1024, 1024, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=1,LD=1"),
                 make(4000, 4000, 4000, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,LD=1"),
                 make(3000, 3000, 3000, Precision::kBF16, Layout::kTT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=5,CW=2,CL=1,PE=2,GM=8,SK=1,EP=0,LD=1"),
                 make(2000, 2000, 2000, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0,LD=1"),
                 make(1000, 1000, 4000, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=1,CL=1,PE=0,GM=1,SK=8,EP=0,LD=1"),
                 make(1000, 1000, 8000, Precision::kBF16, Layout::kTN)});
  for (Candidate const& c : all) {
    ASSERT_EQ(c.problem.align, 16) << c.problem.describe();
    ASSERT_EQ(wgmma_family().launch_plan(c.config, c.problem).launches.size(),
              c.config.at("SK") > 2 ? 2u : 1u)
        << c.config.id() << ": no copy first";
  }
  compile_all(all);
}

// Stream-K (PE=3): every layout, units fewer than the clusters and between one and two waves,
// pairs multicasting B, column halves, swapped operands, and the K-major precisions in NT
// (block-scaled FP8 too); no spills in the consumers that sum a cut unit's partials.
TEST(WgmmaCompile, StreamKInEveryLayout) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0"),
                   make(1544, 1024, 4096, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=3,GM=8,SK=1,EP=0"),
                   make(2000, 3000, 1000, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=64,BN=128,ST=6,CW=1,CL=1,PE=3,GM=1,SK=1,EP=0"),
                 make(96, 1024, 1024, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=64,BN=128,ST=6,CW=2,CL=1,PE=3,GM=1,SK=1,EP=0"),
                 make(384, 2048, 4096, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=3,GM=1,SK=1,EP=0,SW=1"),
                 make(96, 4096, 4096, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0"),
                 make(1536, 1024, 4096, Precision::kTF32, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0"),
                 make(1536, 1024, 4096, Precision::kE4M3Blk, Layout::kNT)});
  compile_all(all);
}

// N tiles between the searched widths (BN = 80, 112, 144, 176, 240: run when named): whole and
// part 64-wide boxes of MN-major B in every layout, split-K, pairs, swapped operands, tf32 and
// e4m3; none spills.
TEST(WgmmaCompile, NamedNTilesInEveryLayout) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0"),
                   make(1537, 1024, 4096, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=128,BN=240,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0"),
                   make(4096, 4096, 1000, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=128,BN=80,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"),
                 make(1000, 3000, 4096, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=144,ST=5,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"),
                 make(2048, 2100, 2048, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=176,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0"),
                 make(4096, 4096, 4096, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1"),
                 make(200, 4096, 4096, Precision::kBF16, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0"),
                 make(1536, 1024, 4096, Precision::kTF32, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0"),
                 make(1536, 1024, 4096, Precision::kE4M3, Layout::kNT)});
  compile_all(all);
}

// Clusters along N sharing A (CA=1): A in K-major slabs (NN, NT) and in MN-major boxes (TN,
// TT), a tile count along N that leaves the cluster's last tile past the matrix, split-K summed
// in the last slice, the staged epilogue, tf32 (K-major copies) and block-scaled e4m3 (whose
// scale reads are clamped for the tile past the edge); and the deepest rings (ST=7, 8) and
// clusters of four, which run when named.
TEST(WgmmaCompile, ClustersAlongNAndDeepRings) {
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"),
                   make(1024, 1088, 1024, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=256,BN=128,ST=3,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=1"),
                   make(4096, 4096, 4096, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=2,EP=0,CA=1"),
                 make(256, 1024, 8192, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=1,CA=1"),
                 make(2048, 2048, 1024, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"),
                 make(1024, 1024, 1024, Precision::kTF32, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"),
                 make(1024, 1088, 1024, Precision::kE4M3Blk, Layout::kNT)});
  all.push_back({parse("wgmma:BM=64,BN=128,ST=8,CW=1,CL=2,PE=0,GM=1,SK=1,EP=0"),
                 make(1024, 1024, 1024, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=64,ST=8,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"),
                 make(1024, 1024, 1024, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=7,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0"),
                 make(4096, 4096, 4096, Precision::kBF16, Layout::kTN)});
  // Clusters of four, along N (A in quarter slabs) and along M (B in 64-wide boxes).
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=4,PE=0,GM=1,SK=2,EP=0,CA=1"),
                 make(128, 4096, 4096, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=64,BN=256,ST=4,CW=1,CL=4,PE=1,GM=8,SK=1,EP=0,CA=0"),
                 make(2048, 2048, 2048, Precision::kFP16, Layout::kNN)});
  compile_all(all);
}

TEST(WgmmaCompile, KSplitPairsInEveryLayoutAndPrecision) {
  // Both tile shapes of two consumer warpgroups (rows: 128-row tiles; columns: 64-row ones),
  // ragged edges, an odd k-block count, tf32 through its K-major copy, FP8 with row and block
  // scales (summed before the row scales apply), and unaligned fp16 through the padded copy.
  std::vector<Candidate> all;
  for (Layout layout : kAllLayouts) {
    all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                   make(1000, 1000, 1000, Precision::kBF16, layout)});
    all.push_back({parse("wgmma:BM=64,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                   make(200, 384, 4160, Precision::kFP16, layout)});
  }
  all.push_back({parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                 make(512, 1024, 8192, Precision::kBF16, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                 make(256, 1024, 4096, Precision::kTF32, Layout::kNN)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                 make(512, 512, 4096, Precision::kE4M3Row, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                 make(512, 512, 4096, Precision::kE4M3Blk, Layout::kNT)});
  all.push_back({parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"),
                 make(999, 1001, 2047, Precision::kFP16, Layout::kNN, 2)});
  compile_all(all);
}

// Clusters dealt onto GPCs (PL=8): persistent waves and one-unit-per-cluster runs, pairs
// sharing B or A, K-split pairs, ping-pong and fours, with no spills.
TEST(WgmmaCompile, ClustersDealtOntoGpcs) {
  std::vector<Candidate> const all = {
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=1,CA=0,TU=0,PL=8,ML=0,SW=0"),
       make(4096, 4096, 4096, Precision::kBF16, Layout::kNN)},
      {parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=8,SK=1,EP=0,CA=2,TU=0,PL=8,ML=0,SW=0"),
       make(256, 4096, 4096, Precision::kBF16, Layout::kNT)},
      {parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=1,GM=1,SK=2,EP=0,CA=1,TU=0,PL=8,ML=0,SW=0"),
       make(3000, 2000, 512, Precision::kTF32, Layout::kNN)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=4,PE=2,GM=8,SK=1,EP=0,CA=0,TU=0,PL=8,ML=0,SW=0"),
       make(2048, 2048, 1024, Precision::kFP16, Layout::kTT)},
  };
  compile_all(all);
}

// One block multicasting the shared operand (ML=1): pairs sharing B and A, K-major and MN-major
// pieces, fours, split-K partials and block-scaled FP8, with no spills.
TEST(WgmmaCompile, OneBlockMulticastsTheSharedTile) {
  std::vector<Candidate> const all = {
      {parse("wgmma:BM=64,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,TU=0,PL=1,ML=1,SW=0"),
       make(1024, 1024, 16384, Precision::kBF16, Layout::kNT)},
      {parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1,TU=0,PL=1,ML=1,SW=0"),
       make(1024, 1024, 1024, Precision::kFP16, Layout::kTN)},
      {parse("wgmma:BM=128,BN=128,ST=4,CW=2,CL=4,PE=0,GM=8,SK=1,EP=0,CA=0,TU=0,PL=8,ML=1,SW=0"),
       make(3000, 2000, 512, Precision::kFP16, Layout::kTT)},
      {parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=2,EP=0,CA=0,TU=0,PL=1,ML=1,SW=0"),
       make(1024, 1024, 16384, Precision::kTF32, Layout::kNN)},
      {parse("wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=8,SK=1,EP=0,CA=0,TU=0,PL=1,ML=1,SW=0"),
       make(4096, 4096, 4096, Precision::kE4M3Blk, Layout::kNT)},
      {parse("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=2,CA=0,TU=0,PL=1,ML=1,SW=0"),
       make(4096, 4096, 4096, Precision::kBF16, Layout::kNN)},
  };
  compile_all(all);
}

// Swapped operands (SW=1: Cᵀ = Bᵀ·Aᵀ, C stored transposed) in every layout (16-bit; tf32 and e4m3
// in NT): plain and persistent
// tiles, split-K summed in the last slice and through the transposing reduce kernel, clusters
// sharing either operand, a K-split pair, with no spills.
TEST(WgmmaCompile, SwappedOperandsInEveryLayout) {
  std::vector<Candidate> const all = {
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1"),
       make(200, 8192, 4096, Precision::kBF16, Layout::kNN)},
      {parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,SW=1"),
       make(96, 11008, 4096, Precision::kFP16, Layout::kNT)},
      {parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,SW=1"),
       make(96, 3584, 3584, Precision::kBF16, Layout::kTN)},
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0,SW=1"),
       make(200, 4096, 4096, Precision::kFP16, Layout::kTT)},
      {parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,ML=1,SW=1"),
       make(96, 4096, 4096, Precision::kBF16, Layout::kNN)},
      {parse("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1,SW=1"),
       make(64, 4096, 4096, Precision::kFP16, Layout::kTN)},
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2,SW=1"),
       make(200, 8192, 28672, Precision::kBF16, Layout::kNT)},
      // K-major-only types in NT: tf32 (FP32 C), e4m3 with per-tensor and row-wise scales.
      {parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,SW=1"),
       make(96, 4096, 4096, Precision::kTF32, Layout::kNT)},
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1"),
       make(200, 8192, 4096, Precision::kE4M3, Layout::kNT)},
      {parse("wgmma:BM=128,BN=96,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2,SW=1"),
       make(96, 8192, 8192, Precision::kE4M3Row, Layout::kNT)},
      {parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0,SW=1"),
       make(200, 4096, 4096, Precision::kE4M3Row, Layout::kNT)},
  };
  compile_all(all);
  // SW=0 and an id without SW name one kernel; SW=1 names the transposing reduce.
  Family const& f = wgmma_family();
  Problem const p = make(200, 4096, 4096, Precision::kBF16, Layout::kNN);
  EXPECT_EQ(f.compile_request(parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0"), p,
                              "sm_90")
                .name_expressions,
            f.compile_request(
                 parse("wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4,EP=0,SW=0"), p, "sm_90")
                .name_expressions);
  EXPECT_EQ(f.compile_request(all[3].config, all[3].problem, "sm_90").name_expressions.back(),
            "gemmtune::wgmma_reduce_transposed<4,0>");
}

/// The descriptor's shared-memory size is what the template lays out (ring + barriers + 1024
/// bytes of alignment slack): a static_assert per config and layout, compiled by NVRTC.
TEST(WgmmaCompile, HostSharedMemoryMatchesTheTemplatesLayout) {
  Family const& f = wgmma_family();
  std::string source = "#include \"wgmma/wgmma.cuh\"\n";
  int checks = 0;
  for (Layout layout : kAllLayouts) {
    for (char const* id : {"wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0",
                           "wgmma:BM=64,BN=96,ST=6,CW=1,CL=1,PE=0,GM=1,SK=1,EP=0",
                           "wgmma:BM=256,BN=128,ST=3,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0",
                           "wgmma:BM=128,BN=256,ST=3,CW=2,CL=2,PE=1,GM=8,SK=1,EP=4",
                           "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=2,GM=8,SK=1,EP=1",
                           "wgmma:BM=64,BN=128,ST=8,CW=1,CL=2,PE=0,GM=1,SK=1,EP=0",
                           "wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2"}) {
      KernelConfig const c = parse(id);
      Problem const p = make(4096, 4096, 4096, Precision::kBF16, layout);
      source += "static_assert(gemmtune::wgmma_detail::smem_bytes(" +
                std::to_string(c.at("BM")) + ", " + std::to_string(c.at("BN")) + ", " +
                std::to_string(c.at("ST")) + ", " + std::to_string(c.at("CW")) + ", " +
                std::to_string(c.at("CL")) + ", " + std::to_string(c.at("PE")) + ", " +
                std::to_string(c.at("EP")) + ", " + std::to_string(c.get("CA").value_or(0)) +
                ", " + (a_transposed(layout) ? "true" : "false") +
                ", " + (b_transposed(layout) ? "true" : "false") +
                ") == " + std::to_string(f.smem_bytes(c, p)) + ", \"" + id + "\");\n";
      ++checks;
    }
  }
  source += "namespace gemmtune { __global__ void smem_probe() {} }\n";
  CompileRequest r;
  r.source_name = "wgmma_smem_probe.cu";
  r.source = source;
  r.name_expressions = {"gemmtune::smem_probe"};
  r.arch = "sm_90a";
  CompileResult const result = Compiler(CompilerSettings{}).compile(r);
  EXPECT_TRUE(result.ok) << result.log;
  EXPECT_EQ(checks, 28);
}

}  // namespace
}  // namespace gemmtune
