// The wgmma descriptor: the size of its space at the benchmark shape, that every constraint
// can decide a rejection with a reason, layouts and precisions, launch plans (grid, persistent
// grid, threads, shared memory, tensor-map boxes that match the kernel's loads, split-K) and the
// NVRTC request (built, not compiled).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/tensor_map_geometry.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/roofline_estimate.hpp"
#include "src/kernels/wgmma_family.hpp"

namespace gemmtune {
namespace {

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Precision precision = Precision::kBF16,
             Layout layout = Layout::kNN, int align = 0) {
  Problem p{.m = m, .n = n, .k = k, .precision = precision, .layout = layout};
  p.align = align;
  return p.resolved();
}

DeviceLimits sm90() { return *arch_limits("sm_90"); }

WgmmaFamily const& wgmma() { return dynamic_cast<WgmmaFamily const&>(*find_family("wgmma")); }

/// A config in canonical order; the cluster size, epilogue, cluster axis, turns, placement and
/// multicast lead last here because most cases leave them 1, 0, 0, 0, 1 and the lead the search
/// times (ml < 0: 1 for clusters of one unit each that share an operand, else 0); operands in
/// place (SW = 0; swapped() sets 1).
KernelConfig cfg(std::int64_t bm, std::int64_t bn, std::int64_t st, std::int64_t cw,
                 std::int64_t pe, std::int64_t gm, std::int64_t sk, std::int64_t cl = 1,
                 std::int64_t ep = 0, std::int64_t ca = 0, std::int64_t tu = 0,
                 std::int64_t pl = 1, std::int64_t ml = -1) {
  if (ml < 0) ml = cl > 1 && ca < 2 && pe == 0 ? 1 : 0;
  KernelConfig c;
  c.family = "wgmma";
  c.params = {{"BM", bm}, {"BN", bn}, {"ST", st}, {"CW", cw}, {"CL", cl}, {"PE", pe},
              {"GM", gm}, {"SK", sk}, {"EP", ep}, {"CA", ca}, {"TU", tu}, {"PL", pl},
              {"ML", ml}, {"SW", 0}, {"RP", 16}, {"LD", 0}};
  return c;
}

/// `c` with swapped operands (SW = 1).
KernelConfig swapped(KernelConfig c) {
  c.set("SW", 1);
  return c;
}

/// `c` with each stage filled by the producer warpgroup's cp.async instead of TMA (LD=1).
KernelConfig filled(KernelConfig c) {
  c.set("LD", 1);
  return c;
}

/// `c` with 16-bit rows that straddle 128-byte lines copied first (RP=128).
KernelConfig pitched(KernelConfig c) {
  c.set("RP", 128);
  return c;
}

std::vector<KernelConfig> valid(Problem const& p, DeviceLimits const& limits = sm90()) {
  std::vector<KernelConfig> out;
  for (KernelConfig const& c : wgmma().enumerate()) {
    if (wgmma().reject_reason(c, p, limits).empty()) out.push_back(c);
  }
  return out;
}

/// The constraint name a rejection starts with ("tile_fit: ..." → "tile_fit").
std::string rule(std::string const& reason) { return reason.substr(0, reason.find(':')); }

TEST(WgmmaFamily, IsRegisteredForSixteenBitAndTf32OnHopper) {
  EXPECT_EQ(find_family("wgmma"), &wgmma_family());
  EXPECT_TRUE(wgmma().supports(Precision::kBF16));
  EXPECT_TRUE(wgmma().supports(Precision::kFP16));
  EXPECT_TRUE(wgmma().supports(Precision::kTF32));
  EXPECT_FALSE(wgmma().supports(Precision::kFP32));
  EXPECT_EQ(wgmma().min_arch(), 90);
  KernelConfig const c = cfg(128, 256, 4, 2, 1, 8, 1);
  EXPECT_EQ(c.id(),
            "wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,CA=0,TU=0,PL=1,ML=0,SW=0,"
            "RP=16,LD=0");
  EXPECT_EQ(wgmma().canonical(c), c);
  // Ids stored before the epilogue, cluster-axis and turns knobs existed name the
  // register-store, M-clustered, freely issuing kernel they named then.
  EXPECT_EQ(wgmma().canonical(parse_kernel_id("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1")),
            c);
  EXPECT_EQ(wgmma().canonical(
                parse_kernel_id("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0")),
            c);
  EXPECT_THROW(wgmma().canonical(parse_kernel_id("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8")),
               UsageError);
  KernelConfig const stored = parse_kernel_id("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1");
  Problem const p = make(4096, 4096, 4096);
  EXPECT_EQ(wgmma().smem_bytes(stored, p), wgmma().smem_bytes(c, p));
  EXPECT_EQ(WgmmaFamily::tensor_maps(stored, p), WgmmaFamily::tensor_maps(c, p));
  std::string const old = wgmma().reject_reason(c, make(4096, 4096, 4096), *arch_limits("sm_80"));
  EXPECT_NE(old.find("needs sm_90"), std::string::npos) << old;
  std::string const fp32 =
      wgmma().reject_reason(c, make(4096, 4096, 4096, Precision::kFP32), sm90());
  EXPECT_NE(fp32.find("does not compute fp32"), std::string::npos) << fp32;
}

TEST(WgmmaFamily, DefaultSearchAtTheBenchmarkShapeIsTensOfConfigs) {
  for (Precision precision : {Precision::kBF16, Precision::kFP16}) {
    for (Layout layout : kAllLayouts) {
      std::vector<KernelConfig> const all = valid(make(4096, 4096, 4096, precision, layout));
      std::printf("wgmma valid at 4096^3 %s %s: %zu of %zu\n",
                  std::string(to_string(precision)).c_str(),
                  std::string(to_string(layout)).c_str(), all.size(),
                  wgmma().enumerate().size());
      EXPECT_GE(all.size(), 8u) << to_string(layout);
      EXPECT_LE(all.size(), 40u) << to_string(layout);
      std::set<std::int64_t> bn, pe, cl;
      std::set<std::string> ids;
      for (KernelConfig const& c : all) {
        bn.insert(c.at("BN"));
        pe.insert(c.at("PE"));
        cl.insert(c.at("CL"));
        ids.insert(c.id());
        EXPECT_EQ(c.at("SK"), 1) << c.id();  // 1024 tiles fill the SMs
      }
      // The fastest measured on the H200 (668 TFLOP/s bf16) stays in, clustered or not.
      EXPECT_TRUE(
          ids.count("wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=0,TU=0,PL=1,"
                    "ML=0,SW=0,RP=16,LD=0"));
      EXPECT_TRUE(
          ids.count("wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,CA=0,TU=0,PL=1,"
                    "ML=0,SW=0,RP=16,LD=0"));
      // 4096 = 16·256 leaves BN off the powers of two no fewer waves; ping-pong lost there.
      EXPECT_EQ(bn, (std::set<std::int64_t>{128, 256})) << to_string(layout);
      EXPECT_EQ(pe, (std::set<std::int64_t>{0, 1}));
      EXPECT_EQ(cl.size(), 2u);
    }
  }
  std::size_t const tf32 = valid(make(4096, 4096, 4096, Precision::kTF32, Layout::kNT)).size();
  std::printf("wgmma valid at 4096^3 tf32 NT: %zu\n", tf32);
  EXPECT_GE(tf32, 8u);
}

TEST(WgmmaFamily, EveryShapeOfTheSuiteSearchesACompactSpace) {
  // The search spends ~20–30 s per shape, compiles included: tens of configs, not hundreds.
  std::int64_t const shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 2048},
                                    {1024, 1024, 1024}, {512, 512, 512},    {4096, 11008, 4096},
                                    {4096, 4096, 11008}, {128, 4096, 4096}, {16, 4096, 4096},
                                    {1000, 1000, 1000}, {4096, 4096, 512},  {1024, 1024, 16384}};
  for (Precision precision : {Precision::kBF16, Precision::kTF32}) {
    for (auto const& s : shapes) {
      Problem const p = make(s[0], s[1], s[2], precision);
      std::size_t const n = valid(p).size();
      std::printf("wgmma valid at %s: %zu\n", p.describe().c_str(), n);
      EXPECT_GE(n, 5u) << p.describe();
      EXPECT_LE(n, 100u) << p.describe();
    }
  }
  // BN off the powers of two stays where it quantises the grid into fewer column-waves: at 8192³
  // (BM = 128, 132 SMs) BN = 192 is 2752 tiles in 21 waves, 21·192 = 4032, against 16·256 and
  // 32·128 = 4096; at 4096³ it is 704 tiles in 6 waves, 1152 against 4·256 = 1024.
  KernelConfig const bn192 = cfg(128, 192, 5, 2, 1, 8, 1);
  EXPECT_EQ(wgmma().reject_reason(bn192, make(8192, 8192, 8192), sm90()), "");
  EXPECT_EQ(rule(wgmma().reject_reason(bn192, make(4096, 4096, 4096), sm90())), "wave_fill");
  // Short main loops keep ping-pong (its overlapped epilogue is a large share there), long ones
  // do not: 4096×4096×512 is 8 K blocks, 4096³ 64.
  std::set<std::int64_t> short_pe;
  for (KernelConfig const& c : valid(make(4096, 4096, 512))) short_pe.insert(c.at("PE"));
  EXPECT_TRUE(short_pe.count(2));
  // The skinny and small winners measured on the H200 stay in.
  EXPECT_EQ(wgmma().reject_reason(cfg(64, 256, 5, 1, 0, 1, 8), make(16, 4096, 4096), sm90()),
            "");
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 64, 6, 2, 0, 1, 1), make(1000, 1000, 1000), sm90()),
            "");
}

TEST(WgmmaFamily, Tf32CopiesMnMajorOperandsKMajorIntoTheWorkspaceFirst) {
  KernelConfig const c = cfg(128, 128, 4, 2, 1, 8, 1);
  // Ragged M, N and K: the copies' row stride is K rounded up to 4 floats (16 bytes).
  std::int64_t const m = 1000, n = 1500, k = 999, ldk = 1000;
  std::int64_t const a_bytes = (m * ldk * 4 + 127) / 128 * 128, b_bytes = n * ldk * 4;
  struct Expect {
    Layout layout;
    bool copy_a, copy_b;
  };
  for (Expect const& e : {Expect{Layout::kNT, false, false}, Expect{Layout::kNN, false, true},
                          Expect{Layout::kTN, true, true}, Expect{Layout::kTT, true, false}}) {
    Problem const p = make(m, n, k, Precision::kTF32, e.layout, 16);
    std::string const name(to_string(e.layout));
    ASSERT_EQ(wgmma().reject_reason(c, p, sm90(), RejectScope::kRun), "") << name;
    LaunchPlan const plan = wgmma().launch_plan(c, p);
    // The main kernel always reads both operands K-major.
    KernelLaunch const& main = plan.launches[e.copy_a || e.copy_b ? 1 : 0];
    EXPECT_EQ(main.name_expression,
              "gemmtune::wgmma_gemm<128,128,4,2,1,1,8,1,0,0,0,1,0,0,16,0,2,false,true>")
        << name;
    EXPECT_EQ(plan.tensor_maps,
              (std::vector<TensorMapSpec>{
                  {TmaOperand::kA, 128, 32, 128, e.copy_a ? 0 : -1},
                  {TmaOperand::kB, 128, 32, 128, e.copy_b ? (e.copy_a ? a_bytes : 0) : -1}}))
        << name;
    if (!e.copy_a && !e.copy_b) {
      EXPECT_EQ(plan.launches.size(), 1u);
      EXPECT_EQ(plan.workspace_bytes, 0);
      continue;
    }
    ASSERT_EQ(plan.launches.size(), 2u) << name;
    KernelLaunch const& copy = plan.launches[0];
    // 32×32 blocks: ceil(1000/32) = 32 and ceil(1500/32) = 47 rows of them, 32 along K. Both
    // copies (2528 blocks) reach 4·4·132 and go four to a thread block; B's alone (1504) not.
    int const batch = e.copy_a && e.copy_b ? 4 : 1;
    EXPECT_EQ(copy.name_expression, std::string("gemmtune::wgmma_kmajor_copy<1,") +
                                        (e.copy_a ? "true" : "false") + "," +
                                        (e.copy_b ? "false" : "true") + "," +
                                        std::to_string(batch) + ">")
        << name;
    EXPECT_FALSE(copy.takes_tensor_maps);
    EXPECT_EQ(copy.block, (Dim3{256, 1, 1}));
    EXPECT_EQ(copy.dynamic_smem, batch * 32 * 33 * 4);
    // Four blocks (128 rows) per thread block: ceil(1000/128) = 8, ceil(1500/128) = 12 row
    // groups; one: 32 and 47.
    std::int64_t const groups = batch == 4 ? (e.copy_a ? 8 : 0) + (e.copy_b ? 12 : 0)
                                           : (e.copy_a ? 32 : 0) + (e.copy_b ? 47 : 0);
    EXPECT_EQ(copy.grid.x, groups * 32) << name;
    EXPECT_EQ(plan.workspace_bytes, (e.copy_a ? a_bytes : 0) + (e.copy_b ? b_bytes : 0)) << name;
    std::vector<std::string> const names =
        wgmma().compile_request(c, p, "sm_90").name_expressions;
    // Name expressions in launch order: the plan's launches take the lowered names by index.
    EXPECT_EQ(names, (std::vector<std::string>{copy.name_expression, main.name_expression}));
  }
  // Split-K partials come first; the copies start on the next 128-byte boundary after them.
  Problem const small = make(256, 250, 8192, Precision::kTF32, Layout::kNN, 16);
  KernelConfig const sk = cfg(128, 128, 6, 2, 0, 1, 4);
  ASSERT_EQ(wgmma().reject_reason(sk, small, sm90(), RejectScope::kRun), "");
  LaunchPlan const plan = wgmma().launch_plan(sk, small);
  ASSERT_EQ(plan.launches.size(), 3u);  // copy, main, reduce
  std::int64_t const partials = 4 * 256 * 252 * 4;
  EXPECT_EQ(plan.tensor_maps[1].workspace_offset, partials);
  EXPECT_EQ(plan.workspace_bytes, partials + 250 * 8192 * 4);
  EXPECT_EQ(plan.launches[0].name_expression, "gemmtune::wgmma_kmajor_copy<4,false,false,1>");
  std::vector<std::string> names;
  for (KernelLaunch const& l : plan.launches) names.push_back(l.name_expression);
  EXPECT_EQ(wgmma().compile_request(sk, small, "sm_90").name_expressions, names);
}

TEST(WgmmaFamily, EveryConstraintRejectsSomethingWithANamedReason) {
  Problem const big = make(4096, 4096, 4096);
  struct Case {
    KernelConfig config;
    Problem problem;
    std::string rule;
  };
  std::vector<Case> const cases = {
      {cfg(128, 128, 4, 2, 1, 8, 1), make(4096, 4096, 4096, Precision::kTF32, Layout::kNT, 8),
       "alignment"},
      {cfg(128, 256, 3, 2, 1, 8, 1, 1, 4),
       make(4096, 4096, 4096, Precision::kBF16, Layout::kNN, 8), "epilogue"},
      // Two warpgroups on a 64-row tile split its columns: each half a wgmma N of 64 or more,
      // whole 64-wide boxes where B is MN-major, stored from registers.
      {cfg(64, 96, 6, 2, 0, 1, 1), make(512, 512, 512, Precision::kBF16, Layout::kNT, 16),
       "column_halves"},
      {cfg(64, 160, 6, 2, 0, 1, 1), make(512, 512, 512), "column_halves"},
      {cfg(64, 128, 6, 2, 0, 1, 1, 1, 2), make(512, 512, 512), "column_halves"},
      {cfg(256, 128, 4, 1, 0, 1, 1), make(512, 512, 512), "warpgroups"},
      // Ping-pong: each warpgroup takes the whole BM rows, so BM = 256 is too tall and
      // 128×256 holds too many accumulators; it needs two consumer warpgroups.
      {cfg(256, 128, 4, 2, 2, 8, 1), big, "warpgroups"},
      {cfg(128, 256, 4, 2, 2, 8, 1), big, "accumulators"},
      {cfg(128, 128, 4, 1, 2, 8, 1), big, "pingpong"},
      {cfg(64, 128, 4, 2, 2, 8, 1), big, "compute_bound"},
      {cfg(128, 256, 4, 1, 0, 1, 1), make(512, 512, 512), "accumulators"},
      {cfg(256, 256, 3, 2, 0, 1, 1), make(512, 512, 512), "accumulators"},
      {cfg(256, 128, 4, 2, 0, 1, 1), make(100, 4096, 4096), "tile_fit"},
      {cfg(128, 256, 4, 2, 0, 1, 1), make(4096, 96, 4096), "tile_fit"},
      {cfg(64, 128, 4, 1, 1, 8, 1), big, "compute_bound"},
      {cfg(128, 128, 4, 1, 1, 8, 1), big, "compute_bound"},
      {cfg(128, 128, 4, 2, 1, 1, 1), big, "compute_bound"},
      {cfg(128, 128, 4, 2, 1, 1, 1), make(512, 512, 4096), "persistent"},
      {cfg(128, 128, 4, 2, 0, 8, 1), make(128, 4096, 4096), "raster"},
      {cfg(128, 128, 4, 2, 1, 8, 2), big, "split_k"},
      {cfg(128, 128, 4, 2, 0, 1, 4), make(512, 512, 512), "split_k"},
      {cfg(128, 256, 6, 2, 1, 8, 1), big, "smem"},
      {cfg(128, 128, 4, 2, 0, 1, 1, 2), make(200, 4096, 4096), "cluster"},
      {cfg(128, 128, 4, 2, 0, 8, 1), make(1024, 1024, 1024), "raster"},
      {cfg(128, 128, 6, 2, 0, 1, 4), make(1024, 1024, 1024), "split_k"},
      // 64 units on 132 SMs where twice the slices still walk 128 k blocks each.
      {cfg(128, 128, 6, 2, 0, 1, 1), make(1024, 1024, 16384), "under_filled"},
      {cfg(64, 256, 5, 2, 2, 8, 1), big, "pingpong_depth"},
      {cfg(128, 256, 3, 2, 1, 8, 1), big, "stages"},
      {cfg(128, 128, 6, 2, 0, 1, 1), make(512, 512, 256), "stages"},
      {cfg(128, 192, 5, 2, 1, 8, 1), big, "wave_fill"},
      {cfg(128, 64, 4, 2, 0, 1, 1, 2), make(1024, 512, 4096), "cluster_pieces"},
      // Clusters along N: A stored K×M comes in 64-wide boxes, one for BM = 64.
      {cfg(64, 128, 6, 1, 0, 1, 1, 2, 0, 1), make(1024, 1024, 1024, Precision::kBF16, Layout::kTN),
       "cluster_pieces"},
      {cfg(128, 64, 6, 2, 0, 1, 1, 2, 0, 1), make(4096, 100, 4096), "cluster"},
      {cfg(128, 64, 6, 2, 0, 1, 1, 1, 0, 1), make(1024, 1024, 1024), "cluster_axis"},
      {cfg(128, 128, 6, 1, 0, 1, 1, 2, 0, 2), make(1024, 1024, 1024), "k_split"},
      {cfg(128, 64, 6, 2, 0, 1, 1, 2, 0, 2), make(1024, 1024, 1024), "k_split_fill"},
      {cfg(128, 64, 6, 2, 0, 1, 2, 4, 0, 1), make(128, 4096, 4096), "cluster_size"},
      {cfg(128, 128, 4, 2, 1, 8, 1, 2, 0, 0, 1), big, "turns"},
      {cfg(128, 128, 4, 2, 2, 8, 1, 2, 0, 0, 1),
       make(4096, 4096, 512, Precision::kE4M3Blk, Layout::kNT), "turns"},
      {cfg(128, 128, 6, 2, 0, 1, 1, 2, 0, 1), make(1024, 1024, 1024), "cluster_axis"},
      {cfg(128, 128, 6, 2, 1, 8, 1, 2, 0, 0, 1),
       make(4096, 7168, 16384, Precision::kE4M3Blk, Layout::kNT), "turn_taking"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 1, 0, 0, 0, 8), big, "placement"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 2, 0, 0, 0, 8), big, "dealt_clusters"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 1, 0, 0, 0, 1, 1), big, "multicast_lead"},
      {cfg(128, 128, 6, 2, 0, 1, 1, 2, 0, 2, 0, 1, 1), make(1024, 1024, 16384), "multicast_lead"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 2, 0, 0, 0, 1, 1), big, "lead_by_schedule"},
      {cfg(64, 128, 6, 2, 0, 1, 1, 2, 0, 0, 0, 1, 0), make(1024, 1024, 16384, Precision::kBF16,
                                                         Layout::kNT),
       "lead_by_schedule"},
      {cfg(128, 128, 8, 2, 0, 1, 1), make(2048, 1024, 4096, Precision::kBF16, Layout::kNT),
       "stages"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 1, 2), make(4096, 4096, 4096, Precision::kTF32),
       "epilogue"},
      {cfg(128, 128, 6, 2, 0, 1, 4, 1, 2), make(1024, 1024, 16384), "epilogue"},
      {cfg(128, 96, 4, 2, 0, 1, 1, 1, 1), make(1024, 1024, 1024), "epilogue"},
      {cfg(128, 128, 6, 2, 1, 8, 1, 1, 4), make(4096, 4096, 512), "staging"},
      {cfg(128, 256, 4, 2, 1, 8, 1, 1, 1), make(4096, 4096, 512), "staging"},
      {cfg(128, 128, 6, 2, 1, 8, 1, 1, 2), make(2048, 2048, 4096), "epilogue_depth"},
      // Block scales double the accumulators: 64 rows × 256 (or 192) columns no longer fit.
      {cfg(128, 256, 4, 2, 1, 8, 1), make(4096, 4096, 4096, Precision::kE4M3Blk, Layout::kNT),
       "block_scales"},
      {cfg(128, 192, 4, 2, 1, 8, 1), make(4096, 4096, 4096, Precision::kE4M3Blk, Layout::kNT),
       "block_scales"},
      // Swapped operands: tf32 only where both operands are K-major as stored (NT); searched
      // where BN covers a short M better than 64-row tiles.
      {swapped(cfg(128, 96, 6, 2, 0, 1, 1)), make(96, 4096, 4096, Precision::kTF32, Layout::kNN),
       "swap"},
      {swapped(cfg(128, 96, 6, 2, 0, 1, 1)), make(64, 4096, 4096), "swap_search"},
      // RP=128 copies 16-bit operands whose rows straddle lines, where a copy is needed.
      {pitched(cfg(128, 128, 6, 2, 0, 1, 1)), make(1000, 1000, 1000, Precision::kTF32),
       "row_pitch"},
      {pitched(swapped(cfg(128, 96, 6, 2, 0, 1, 1))), make(96, 4096, 4000), "row_pitch"},
      {pitched(cfg(128, 128, 6, 2, 0, 1, 1)), make(1024, 1024, 1024), "row_pitch_search"},
      // LD=1 fills 16-bit tiles of single blocks, in place, in the caller's orientation.
      {filled(cfg(128, 128, 6, 2, 0, 1, 1)), make(1000, 1000, 1000, Precision::kTF32), "fill"},
      {filled(cfg(128, 128, 6, 2, 0, 1, 1, 2)), make(1000, 1000, 1000), "fill"},
      {filled(swapped(cfg(128, 96, 6, 2, 0, 1, 1))), make(96, 4096, 4096), "fill"},
      {filled(pitched(cfg(128, 128, 6, 2, 0, 1, 1))), make(1000, 1000, 1000), "fill"},
      {filled(cfg(128, 128, 6, 2, 0, 1, 1)),
       make(1000, 1000, 999, Precision::kBF16, Layout::kNN, 2), "fill"},
      // Stream-K (PE=3): whole units or partials from registers, summed in the last share, with
      // both operands read in place; run when named (it measured slower).
      {cfg(128, 128, 6, 2, 3, 8, 2), make(1536, 1024, 4096), "stream_k"},
      {cfg(128, 128, 6, 2, 3, 8, 1, 1, 1), make(1536, 1024, 4096), "stream_k"},
      {cfg(128, 128, 6, 1, 3, 8, 1), make(1536, 1024, 4096), "stream_k"},
      {cfg(128, 128, 6, 2, 3, 8, 1), make(1536, 1024, 4096, Precision::kTF32), "stream_k"},
      {cfg(128, 128, 6, 2, 3, 8, 1), make(1536, 1024, 4095, Precision::kBF16, Layout::kNN, 2),
       "stream_k"},
      {cfg(128, 128, 6, 2, 3, 8, 1), make(1536, 1024, 4096), "stream_k_search"},
  };
  std::set<std::string> seen;
  for (Case const& c : cases) {
    std::string const why = wgmma().reject_reason(c.config, c.problem, sm90());
    EXPECT_EQ(rule(why), c.rule) << c.config.id() << " " << c.problem.describe() << ": " << why;
    EXPECT_GT(why.size(), c.rule.size() + 10) << why;
    seen.insert(rule(why));
  }
  for (Constraint const& k : wgmma().constraints()) {
    if (k.name == "arch" || k.name == "wgmma_n" || k.name == "grid_size") continue;
    EXPECT_TRUE(seen.count(k.name)) << "no case exercises " << k.name;
  }
  // Split-K is welcome where 16 tiles leave most SMs idle and K is deep: SK=8 fills one wave,
  // and SK=4, half of it, is left to SK=8.
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 8), make(512, 512, 8192), sm90()),
            "");
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 4), make(512, 512, 8192),
                                       sm90())),
            "under_filled");
}

TEST(WgmmaFamily, OnlyCorrectnessConstraintsBindAKernelThatIsRunRatherThanSearched) {
  std::set<std::string> hard, preference;
  for (Constraint const& k : wgmma().constraints()) (k.prunes ? preference : hard).insert(k.name);
  EXPECT_EQ(hard, (std::set<std::string>{"arch", "alignment", "pingpong",
                                         "warpgroups", "column_halves", "wgmma_n",
                                         "accumulators",
                                         "cluster_pieces", "grid_size", "epilogue",
                                         "block_scales", "turns", "k_split", "placement",
                                         "multicast_lead", "swap", "row_pitch",
                                         "stream_k", "fill"}));
  // A split-K, persistent, clustered config tuned for a small grid still runs a big problem
  // correctly (persistent units stride, clusters pad, slices reduce): searches skip it, runs
  // may use it.
  KernelConfig const c = cfg(128, 128, 4, 2, 1, 1, 4, 2);
  Problem const big = make(4096, 4096, 4096);
  EXPECT_NE(wgmma().reject_reason(c, big, sm90()), "");
  EXPECT_EQ(wgmma().reject_reason(c, big, sm90(), RejectScope::kRun), "");
  EXPECT_EQ(runnable_reason(c, make(100, 4096, 64), sm90()), "");
  // ... but never one that TMA cannot load: tf32 has no padded copy.
  EXPECT_EQ(rule(runnable_reason(c, make(4096, 4096, 4095, Precision::kTF32), sm90())),
            "alignment");
  EXPECT_EQ(runnable_reason(c, make(4096, 4096, 4095), sm90()), "");
}

TEST(WgmmaFamily, RaggedShapesAreAcceptedWithSixteenByteAlignment) {
  Problem const ragged = make(1000, 1000, 1000, Precision::kBF16, Layout::kNN, 16);
  // 128×208 runs it (the search prefers 128×128: 64 tiles already fit one wave).
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 208, 4, 2, 0, 8, 1), ragged, sm90(), RejectScope::kRun),
            "");
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1), ragged, sm90()), "");
  // Packed 16-bit storage with an odd K is not 16-byte aligned: accepted with a padded copy,
  // but never with TMA stores of C (its rows may be the ones off 16 bytes).
  Problem const odd = make(1000, 1000, 999, Precision::kBF16, Layout::kNN);
  EXPECT_LT(odd.align, 16);
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1), odd, sm90()), "");
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1, 1, 2), odd, sm90())),
            "epilogue");
  // FP32 elements of tf32 with an odd K: no copy of that kind, rejected.
  Problem const odd_tf32 = make(1000, 1000, 999, Precision::kTF32, Layout::kNT);
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 4, 2, 0, 8, 1), odd_tf32, sm90())),
            "alignment");
}

TEST(WgmmaFamily, UnalignedSixteenBitPlansCopyFirstAndReadPaddedCopies) {
  // 3001×3072×24575 bf16 NN: A (3001×24575) has rows 2-byte aligned, B (24575×3072) is fine;
  // the plan cannot know which a launch's pointers leave off 16 bytes, so it has room for both.
  Problem const p = make(3001, 3072, 24575, Precision::kBF16, Layout::kNN);
  ASSERT_EQ(p.align, 2);
  for (std::int64_t sk : {1, 2, 4}) {
    KernelConfig const c = cfg(128, 256, 4, 2, 1, 8, sk);
    LaunchPlan const plan = wgmma().launch_plan(c, p);
    ASSERT_GE(plan.launches.size(), 2u);
    EXPECT_EQ(plan.launches[0].name_expression, "gemmtune::wgmma_padded_copy<" +
                                                    std::to_string(sk) + ",false,false,16>");
    EXPECT_TRUE(plan.launches[0].waits_for_prior_grids);
    EXPECT_FALSE(plan.launches[0].takes_tensor_maps);
    // One block per 2048 elements of each stored row: A 3001 rows × 12, B 24575 rows × 2.
    EXPECT_EQ(plan.launches[0].grid.x, 3001 * 12 + 24575 * 2);
    EXPECT_TRUE(plan.launches[1].takes_tensor_maps);
    ASSERT_EQ(plan.tensor_maps.size(), 2u);
    std::int64_t const partials = sk == 1 ? 0 : sk * 3001 * 3072 * 4;
    std::int64_t const a_copy = 3001 * 24576 * 2, b_copy = 24575 * 3072 * 2;
    EXPECT_EQ(plan.tensor_maps[0].workspace_offset, (partials + 127) / 128 * 128);
    EXPECT_EQ(plan.tensor_maps[1].workspace_offset,
              plan.tensor_maps[0].workspace_offset + (a_copy + 127) / 128 * 128);
    EXPECT_TRUE(plan.tensor_maps[0].padded_copy && plan.tensor_maps[1].padded_copy);
    EXPECT_EQ(plan.workspace_bytes, plan.tensor_maps[1].workspace_offset + b_copy);
    CompileRequest const req = wgmma().compile_request(c, p, "sm_90");
    EXPECT_EQ(req.name_expressions.front(), plan.launches[0].name_expression);
  }
  // What the runtime's GPU test runs at class 2 may run there (run scope: correctness only).
  struct Run {
    char const* id;
    Problem problem;
  };
  for (Run const& r :
       {Run{"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0",
            make(300, 520, 1001, Precision::kBF16, Layout::kNN, 2)},
        Run{"wgmma:BM=128,BN=64,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0",
            make(257, 1001, 640, Precision::kFP16, Layout::kNT, 2)},
        Run{"wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0",
            make(520, 296, 128, Precision::kBF16, Layout::kTT, 2)},
        Run{"wgmma:BM=64,BN=128,ST=4,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0",
            make(256, 384, 512, Precision::kFP16, Layout::kNN, 2)},
        Run{"wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=2,GM=8,SK=1,EP=0",
            make(1537, 999, 777, Precision::kBF16, Layout::kTN, 2)}}) {
    EXPECT_EQ(runnable_reason(parse_kernel_id(r.id), r.problem, sm90()), "") << r.id;
  }
  // Transposed storage keeps its orientation in the copy: the main kernel is the same one.
  Problem const tt = make(1537, 4097, 1000, Precision::kFP16, Layout::kTT);
  LaunchPlan const plan = wgmma().launch_plan(cfg(128, 128, 4, 2, 1, 8, 1), tt);
  EXPECT_EQ(plan.launches[0].name_expression, "gemmtune::wgmma_padded_copy<1,true,true,16>");
  Problem tt16 = tt;
  tt16.align = 16;
  EXPECT_EQ(plan.launches[1].name_expression,
            wgmma().main_expression(cfg(128, 128, 4, 2, 1, 8, 1), tt16));
}

TEST(WgmmaFamily, RowPitch128CopiesRowsThatStraddleLinesFirst) {
  // 1000³ bf16 NN: rows of 2000 bytes, 16-byte aligned (class 16) but straddling 128-byte
  // lines. RP=128 plans the padded copy with the 128-byte rule; the main kernel reads the copies
  // through the same descriptors, so only its RP template argument differs.
  Problem const p = make(1000, 1000, 1000, Precision::kBF16, Layout::kNN);
  ASSERT_EQ(p.align, 16);
  KernelConfig const in_place = cfg(128, 64, 6, 2, 0, 1, 1);
  KernelConfig const copied = pitched(in_place);
  EXPECT_EQ(wgmma().reject_reason(copied, p, sm90(), RejectScope::kRun), "");
  LaunchPlan const plan = wgmma().launch_plan(copied, p);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_EQ(plan.launches[0].name_expression, "gemmtune::wgmma_padded_copy<1,false,false,128>");
  EXPECT_EQ(plan.launches[0].grid.x, 1000 + 1000);  // one block per stored row of A and of B
  ASSERT_EQ(plan.tensor_maps.size(), 2u);
  for (TensorMapSpec const& map : plan.tensor_maps) {
    EXPECT_TRUE(map.padded_copy);
    EXPECT_EQ(map.in_place_pitch, 128);
  }
  std::int64_t const copy = 1000 * 1024 * 2;  // rows padded to 1024 elements
  EXPECT_EQ(plan.workspace_bytes, 2 * copy);
  std::string const main = plan.launches[1].name_expression;
  EXPECT_EQ(main, "gemmtune::wgmma_gemm<128,64,6,2,1,0,1,1,0,0,0,1,0,0,128,0,1,false,false>");
  // Read in place, the same config plans no copy and no workspace.
  LaunchPlan const direct = wgmma().launch_plan(in_place, p);
  ASSERT_EQ(direct.launches.size(), 1u);
  EXPECT_EQ(direct.workspace_bytes, 0);
  EXPECT_FALSE(direct.tensor_maps[0].padded_copy);
  // Below class 16 the copy takes both rules: the unaligned operand and the straddling one.
  Problem const odd = make(1000, 1001, 1000, Precision::kFP16, Layout::kNN, 2);
  EXPECT_EQ(wgmma().launch_plan(copied, odd).tensor_maps[0].in_place_pitch, 128);
  EXPECT_EQ(wgmma().launch_plan(in_place, odd).tensor_maps[0].in_place_pitch, 16);
  // The search reads in place (the copy won and lost by no rule); a named RP=128 runs anywhere
  // 16-bit.
  EXPECT_EQ(rule(wgmma().reject_reason(copied, p, sm90())), "row_pitch_search");
  EXPECT_EQ(wgmma().reject_reason(copied, make(1024, 1024, 1024), sm90(), RejectScope::kRun), "");
  EXPECT_EQ(rule(wgmma().reject_reason(copied, make(1000, 1000, 1000, Precision::kTF32), sm90(),
                                       RejectScope::kRun)),
            "row_pitch");
}

TEST(WgmmaFamily, ThreadsAndSharedMemoryFollowTheRing) {
  Problem const nn = make(4096, 4096, 4096, Precision::kBF16, Layout::kNN);
  Problem const tn = make(4096, 4096, 4096, Precision::kBF16, Layout::kTN);
  Problem const nt = make(4096, 4096, 4096, Precision::kBF16, Layout::kNT);
  EXPECT_EQ(wgmma().threads(cfg(128, 256, 4, 2, 1, 8, 1)), 384);
  EXPECT_EQ(wgmma().threads(cfg(128, 128, 4, 1, 1, 8, 1)), 256);
  // Stage = (rows of A + rows of B) × 128 bytes; 1024 bytes of alignment slack; 2 barriers per
  // stage.
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 256, 4, 2, 1, 8, 1), nn), 1024 + 4 * 384 * 128 + 64);
  // MN-major B (NN) is loaded in 64-wide boxes: BN = 208 takes 256 rows; K-major (NT) 208.
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 208, 4, 2, 1, 8, 1), nn), 1024 + 4 * 384 * 128 + 64);
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 208, 4, 2, 1, 8, 1), nt), 1024 + 4 * 336 * 128 + 64);
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 208, 4, 2, 1, 8, 1), tn), 1024 + 4 * 384 * 128 + 64);
  // tf32: BK = 32 floats is still 128 bytes per row.
  Problem const tf = make(4096, 4096, 4096, Precision::kTF32, Layout::kNT);
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 128, 4, 2, 1, 8, 1), tf), 1024 + 4 * 256 * 128 + 64);
  EXPECT_EQ(WgmmaFamily::block_k(Precision::kTF32), 32);
  EXPECT_EQ(WgmmaFamily::block_k(Precision::kBF16), 64);
  // The staged epilogue adds EP boxes of the warpgroup's rows × 128 bytes per consumer
  // warpgroup between the ring and the barriers: 64 KiB for the whole 128×256 tile at EP = 4,
  // and in ping-pong each warpgroup stages whole BM-row tiles.
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 256, 3, 2, 1, 8, 1, 2, 4), nn),
            1024 + 3 * 384 * 128 + 2 * 4 * 64 * 128 + 48);
  EXPECT_EQ(wgmma().smem_bytes(cfg(128, 128, 4, 2, 2, 8, 1, 1, 1), nn),
            1024 + 4 * 256 * 128 + 2 * 1 * 128 * 128 + 64);
}

TEST(WgmmaFamily, StagedEpilogueStoresThroughATensorMapOfC) {
  Problem const p = make(4096, 4096, 4096, Precision::kBF16, Layout::kNN);
  // One box per 64 columns (128 bytes of 16-bit C) and the warpgroup's rows, 128-byte swizzle.
  std::vector<TensorMapSpec> const maps =
      wgmma().launch_plan(cfg(128, 256, 3, 2, 1, 8, 1, 2, 4), p).tensor_maps;
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(maps[2], (TensorMapSpec{TmaOperand::kC, 64, 64, 128}));
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 128, 4, 2, 2, 8, 1, 1, 2), p).tensor_maps[2],
            (TensorMapSpec{TmaOperand::kC, 128, 64, 128}));
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 256, 4, 2, 1, 8, 1, 2, 0), p).tensor_maps.size(), 2u);
  // The tile goes out whole where it fits beside the ring; in rounds only where it does not.
  // Searched for short main loops (8 K blocks here) and for compute-bound problems at any depth
  // (4096³ has 64), not for deep main loops of smaller grids.
  Problem const short_k = make(4096, 4096, 512);
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 256, 3, 2, 1, 8, 1, 2, 4), short_k, sm90()), "");
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 256, 4, 2, 1, 8, 1, 2, 2), short_k, sm90()), "");
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 256, 4, 2, 1, 8, 1, 2, 4), short_k, sm90())),
            "smem");
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 256, 4, 2, 1, 8, 1, 2, 2), p, sm90()), "");
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 1, 8, 1, 1, 2), make(2048, 2048, 4096),
                                       sm90())),
            "epilogue_depth");
  // A stored kernel staged for a 16-bit problem still runs, with register stores, when beta ≠ 0:
  // the run scope accepts it for a ragged problem too (TMA clips the boxes).
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 256, 4, 2, 1, 8, 1, 2, 1), make(1000, 1000, 1000),
                                  sm90(), RejectScope::kRun),
            "");
}

TEST(WgmmaFamily, TensorMapBoxesMatchTheKernelsLoadsPerLayout) {
  KernelConfig const c = cfg(128, 192, 4, 2, 1, 8, 1);
  std::map<Layout, std::vector<TensorMapSpec>> const expected = {
      // A K-major: BK × BM box; B MN-major: 64-wide boxes of BK rows.
      {Layout::kNN, {{TmaOperand::kA, 128, 64, 128}, {TmaOperand::kB, 64, 64, 128}}},
      {Layout::kNT, {{TmaOperand::kA, 128, 64, 128}, {TmaOperand::kB, 192, 64, 128}}},
      {Layout::kTN, {{TmaOperand::kA, 64, 64, 128}, {TmaOperand::kB, 64, 64, 128}}},
      {Layout::kTT, {{TmaOperand::kA, 64, 64, 128}, {TmaOperand::kB, 192, 64, 128}}},
  };
  for (auto const& [layout, maps] : expected) {
    Problem const p = make(4096, 4096, 4096, Precision::kFP16, layout);
    LaunchPlan const plan = wgmma().launch_plan(c, p);
    EXPECT_EQ(plan.tensor_maps, maps) << to_string(layout);
    ASSERT_EQ(plan.launches.size(), 1u);
    EXPECT_TRUE(plan.launches[0].takes_tensor_maps);
    for (TensorMapSpec const& m : plan.tensor_maps) {
      // 128-byte swizzle: a box row is at most 128 bytes; TMA boxes are at most 256 per side.
      EXPECT_LE(m.box_cols * 2, m.swizzle_bytes);
      EXPECT_LE(m.box_rows, 256);
    }
  }
  Problem const tf = make(4096, 4096, 4096, Precision::kTF32, Layout::kNT);
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 128, 4, 2, 1, 8, 1), tf).tensor_maps,
            (std::vector<TensorMapSpec>{{TmaOperand::kA, 128, 32, 128},
                                        {TmaOperand::kB, 128, 32, 128}}));
}

TEST(WgmmaFamily, GridIsTilesOrOnePersistentBlockPerSm) {
  Problem const p = make(4096, 4096, 4096);
  LaunchPlan const plain = wgmma().launch_plan(cfg(128, 256, 4, 2, 0, 8, 1), p);
  EXPECT_EQ(plain.launches[0].grid, (Dim3{32 * 16, 1, 1}));
  EXPECT_EQ(plain.launches[0].block, (Dim3{384, 1, 1}));
  EXPECT_EQ(plain.launches[0].dynamic_smem, 1024 + 4 * 384 * 128 + 64);
  EXPECT_EQ(plain.workspace_bytes, 0);
  LaunchPlan const persistent = wgmma().launch_plan(cfg(128, 256, 4, 2, 1, 8, 1), p);
  EXPECT_EQ(persistent.launches[0].grid, (Dim3{132, 1, 1}));
  // Ragged: ceil(1000/128)·ceil(1000/208) = 8·5 tiles.
  Problem const r = make(1000, 1000, 1000, Precision::kBF16, Layout::kNN, 16);
  EXPECT_EQ(WgmmaFamily::tiles(cfg(128, 208, 4, 2, 0, 8, 1), r), 40);
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 208, 4, 2, 1, 8, 1), r).launches[0].grid.x, 40);
}

TEST(WgmmaFamily, PingPongTilesAreWholeWarpgroupTilesOnAPersistentGrid) {
  Problem const p = make(4096, 4096, 512);  // short main loops: where ping-pong is searched
  // 64×256 and 128×128 per warpgroup: the operand reuse of 128×128, accumulators that fit.
  for (KernelConfig const& c : {cfg(64, 256, 5, 2, 2, 8, 1), cfg(128, 128, 6, 2, 2, 8, 1),
                                cfg(128, 128, 6, 2, 2, 8, 1, 2)}) {
    EXPECT_EQ(wgmma().reject_reason(c, p, sm90()), "") << c.id();
    LaunchPlan const plan = wgmma().launch_plan(c, p);
    EXPECT_EQ(plan.launches[0].grid, (Dim3{132, 1, 1})) << c.id();
    EXPECT_EQ(plan.launches[0].block, (Dim3{384, 1, 1})) << c.id();
    // The ring holds one warpgroup tile per stage (A: BM rows; B MN-major: BN rows).
    EXPECT_EQ(plan.launches[0].dynamic_smem,
              1024 + c.at("ST") * (c.at("BM") + c.at("BN")) * 128 + 16 * c.at("ST"))
        << c.id();
  }
  // Units are BM×BN tiles, as without ping-pong: 64 × 16 for 64×256.
  EXPECT_EQ(WgmmaFamily::units(cfg(64, 256, 5, 2, 2, 8, 1), p), 64 * 16);
  EXPECT_EQ(wgmma().main_expression(cfg(64, 256, 5, 2, 2, 8, 1), p),
            "gemmtune::wgmma_gemm<64,256,5,2,1,2,8,1,0,0,0,1,0,0,16,0,1,false,false>");
  // One unit per block leaves the second warpgroup without a tile: searches skip it.
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 4, 2, 2, 8, 1), make(1024, 1024, 4096),
                                       sm90())),
            "persistent");
}

TEST(WgmmaFamily, SplitKAddsTheReduceKernelOrCountersForTwoSlices) {
  Problem const p = make(512, 510, 8192, Precision::kFP16, Layout::kNN, 16);
  KernelConfig const c = cfg(128, 128, 6, 2, 0, 1, 4);
  ASSERT_EQ(wgmma().reject_reason(c, p, sm90(), RejectScope::kRun), "");
  LaunchPlan const plan = wgmma().launch_plan(c, p);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_EQ(plan.launches[0].grid.x, 4 * 4 * 4);
  EXPECT_EQ(plan.launches[1].name_expression, "gemmtune::wgmma_reduce<4,0>");
  EXPECT_FALSE(plan.launches[1].takes_tensor_maps);
  EXPECT_EQ(plan.workspace_bytes, 4 * 512 * 512 * 4);  // rows padded to a multiple of 4
  EXPECT_EQ(plan.counter_bytes, 0);
  EXPECT_FALSE(plan.zero_workspace);
  // Two slices: the last slice of each tile sums, one counter per consumer warp of a tile.
  LaunchPlan const two = wgmma().launch_plan(cfg(128, 128, 6, 2, 0, 1, 2), p);
  ASSERT_EQ(two.launches.size(), 1u);
  EXPECT_EQ(two.workspace_bytes, 2 * 512 * 512 * 4);
  EXPECT_EQ(two.counter_bytes, 4 * 4 * 8 * 4);  // 16 tiles × 8 consumer warps
  // Ping-pong: one warpgroup owns a whole tile, 4 warps (128×64: 64 accumulators per thread).
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 64, 6, 2, 2, 1, 2), p).counter_bytes, 4 * 8 * 4 * 4);
  // 128 accumulators per thread leave no registers for the sum: the reduce kernel does it.
  LaunchPlan const big = wgmma().launch_plan(cfg(128, 128, 6, 1, 0, 1, 2), p);
  ASSERT_EQ(big.launches.size(), 2u);
  EXPECT_EQ(big.counter_bytes, 0);
}

TEST(WgmmaFamily, CompileRequestTargetsSm90aWithOnlyIntegersInTheNames) {
  Problem const p = make(4096, 4096, 4096, Precision::kBF16, Layout::kTN);
  CompileRequest const r = wgmma().compile_request(cfg(128, 256, 4, 2, 1, 8, 1), p, "sm_90");
  EXPECT_EQ(r.arch, "sm_90a");
  EXPECT_EQ(wgmma().compile_request(cfg(128, 256, 4, 2, 1, 8, 1), p, "sm_90a").arch, "sm_90a");
  ASSERT_EQ(r.name_expressions.size(), 1u);
  EXPECT_EQ(r.name_expressions[0],
            "gemmtune::wgmma_gemm<128,256,4,2,1,1,8,1,0,0,0,1,0,0,16,0,1,true,false>");
  EXPECT_NE(r.source.find("wgmma_gemm"), std::string::npos);
  Problem const f = make(4096, 4096, 4096, Precision::kFP16, Layout::kNT);
  EXPECT_EQ(wgmma().main_expression(cfg(128, 128, 4, 2, 1, 8, 1), f),
            "gemmtune::wgmma_gemm<128,128,4,2,1,1,8,1,0,0,0,1,0,0,16,0,0,false,true>");
  KernelConfig bad = cfg(128, 128, 4, 2, 1, 8, 1);
  bad.params[1].second = 100;  // not a declared BN
  EXPECT_THROW(wgmma().compile_request(bad, f, "sm_90"), UsageError);
}

}  // namespace
}  // namespace gemmtune

namespace gemmtune {
namespace {

TEST(WgmmaFamily, ClustersPairTileRowsAndSplitKMajorBIntoSlabs) {
  Problem const p = make(4096, 4096, 4096, Precision::kBF16, Layout::kNT);
  KernelConfig const plain = cfg(128, 256, 4, 2, 0, 8, 1, 2);
  KernelConfig const persistent = cfg(128, 256, 4, 2, 1, 8, 1, 2);
  ASSERT_EQ(wgmma().reject_reason(persistent, p, sm90()), "");
  // 32 tile rows in 16 pairs × 16 tile columns: 256 cluster units of 2 blocks.
  EXPECT_EQ(WgmmaFamily::units(plain, p), 256);
  EXPECT_EQ(wgmma().launch_plan(plain, p).launches[0].grid, (Dim3{512, 1, 1}));
  // Persistent: 66 clusters fill the 132 SMs.
  EXPECT_EQ(wgmma().launch_plan(persistent, p).launches[0].grid, (Dim3{132, 1, 1}));
  // K-major B (NT) is loaded as 2 slabs of 128 rows, one per block, multicast to both.
  EXPECT_EQ(wgmma().launch_plan(persistent, p).tensor_maps,
            (std::vector<TensorMapSpec>{{TmaOperand::kA, 128, 64, 128},
                                        {TmaOperand::kB, 128, 64, 128}}));
  // MN-major B (NN) keeps its 64-wide boxes; the blocks take turns issuing them.
  Problem const nn = make(4096, 4096, 4096, Precision::kBF16, Layout::kNN);
  EXPECT_EQ(wgmma().launch_plan(persistent, nn).tensor_maps[1],
            (TensorMapSpec{TmaOperand::kB, 64, 64, 128}));
  // ... so BN = 64 (one box) cannot feed two blocks there, but can as two K-major slabs.
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 64, 4, 2, 0, 1, 1, 2),
                                       make(1024, 512, 4096, Precision::kBF16, Layout::kNN),
                                       sm90())),
            "cluster_pieces");
  EXPECT_EQ(wgmma().reject_reason(cfg(128, 64, 6, 2, 0, 1, 1, 2),
                                  make(1024, 512, 4096, Precision::kBF16, Layout::kNT), sm90(),
                                  RejectScope::kRun),
            "");
  // An odd number of tile rows pads the last pair with a block below the matrix.
  Problem const odd = make(800, 1024, 1024, Precision::kBF16, Layout::kNN);  // 7 tile rows
  KernelConfig const small = cfg(128, 128, 6, 2, 0, 1, 1, 2);
  ASSERT_EQ(wgmma().reject_reason(small, odd, sm90()), "");
  EXPECT_EQ(WgmmaFamily::units(small, odd), 4 * 8);
  EXPECT_EQ(wgmma().launch_plan(small, odd).launches[0].grid.x % 2, 0);
  EXPECT_EQ(wgmma().launch_plan(small, odd).launches[0].grid.x, 64);
  EXPECT_EQ(wgmma().main_expression(small, odd),
            "gemmtune::wgmma_gemm_cluster<128,128,6,2,2,0,1,1,0,0,0,1,1,0,16,0,1,false,false>");
}

TEST(WgmmaFamily, ClustersAlongNPairTileColumnsAndShareA) {
  // 1024³ in 128×64 tiles: 8 tile rows × 16 columns, paired along N into 8 × 8 cluster units.
  Problem const p = make(1024, 1024, 1024, Precision::kBF16, Layout::kNT);
  KernelConfig const along_n = cfg(128, 64, 6, 2, 0, 1, 1, 2, 0, 1);
  ASSERT_EQ(wgmma().reject_reason(along_n, p, sm90()), "");
  EXPECT_TRUE(WgmmaFamily::shares_a_tiles(along_n));
  EXPECT_FALSE(WgmmaFamily::shares_a_tiles(cfg(128, 64, 6, 2, 0, 1, 1, 2)));
  EXPECT_FALSE(WgmmaFamily::shares_a_tiles(cfg(128, 64, 6, 2, 0, 1, 1, 1, 0, 1)));
  EXPECT_EQ(WgmmaFamily::units(along_n, p), 64);
  EXPECT_EQ(wgmma().launch_plan(along_n, p).launches[0].grid, (Dim3{128, 1, 1}));
  EXPECT_EQ(wgmma().main_expression(along_n, p),
            "gemmtune::wgmma_gemm_cluster<128,64,6,2,2,0,1,1,0,1,0,1,1,0,16,0,1,false,true>");
  // K-major A (NT) comes as 2 slabs of 64 rows, one per block, multicast; B whole per block.
  EXPECT_EQ(wgmma().launch_plan(along_n, p).tensor_maps,
            (std::vector<TensorMapSpec>{{TmaOperand::kA, 64, 64, 128},
                                        {TmaOperand::kB, 64, 64, 128}}));
  // MN-major A (TN) keeps its 64-wide boxes, which the two blocks take turns issuing.
  Problem const tn = make(1024, 1024, 1024, Precision::kBF16, Layout::kTN);
  EXPECT_EQ(wgmma().launch_plan(along_n, tn).tensor_maps[0],
            (TensorMapSpec{TmaOperand::kA, 64, 64, 128}));
  // An odd number of tile columns pads the last pair with a block past the matrix: 17 → 9.
  Problem const odd = make(1024, 1088, 1024, Precision::kBF16, Layout::kNT);
  EXPECT_EQ(WgmmaFamily::units(along_n, odd), 8 * 9);
  EXPECT_EQ(wgmma().launch_plan(along_n, odd).launches[0].grid.x, 2 * 8 * 9);
  // The estimate counts the shared A once per cluster and B once per block.
  RooflineTraits const t = wgmma().roofline_traits(along_n, p);
  EXPECT_EQ(t.a_shared_by, 2);
  EXPECT_EQ(t.b_shared_by, 1);
  // The search tries it where A's tile is the larger; an id without CA is clustered along M.
  std::set<std::string> ids;
  for (KernelConfig const& c : valid(p)) ids.insert(c.id());
  EXPECT_TRUE(ids.count(along_n.id())) << along_n.id();
  // (and each block issues its share of A: ML=0, the kernel such an id named when it was stored).
  EXPECT_EQ(wgmma().canonical(parse_kernel_id("wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1")),
            cfg(128, 64, 6, 2, 0, 1, 1, 2, 0, 0, 0, 1, 0));
}

TEST(WgmmaFamily, KSplitPairsTakeOneTileEachWithHalfItsK) {
  // 1024³ in 128×128 tiles: 64 tiles, each computed by a pair over half of K apiece.
  Problem const p = make(1024, 1024, 1024, Precision::kBF16, Layout::kNT);
  KernelConfig const pair = cfg(128, 128, 6, 2, 0, 1, 1, 2, 0, 2);
  ASSERT_EQ(wgmma().reject_reason(pair, p, sm90()), "");
  EXPECT_TRUE(WgmmaFamily::splits_k(pair));
  EXPECT_FALSE(WgmmaFamily::shares_a_tiles(pair));
  EXPECT_FALSE(WgmmaFamily::shares_b_tiles(pair));
  EXPECT_TRUE(WgmmaFamily::shares_b_tiles(cfg(128, 128, 6, 2, 0, 1, 1, 2)));
  EXPECT_EQ(WgmmaFamily::units(pair, p), 64);
  EXPECT_EQ(wgmma().launch_plan(pair, p).launches[0].grid, (Dim3{128, 1, 1}));
  EXPECT_EQ(wgmma().main_expression(pair, p),
            "gemmtune::wgmma_gemm_cluster<128,128,6,2,2,0,1,1,0,2,0,1,0,0,16,0,1,false,true>");
  // Nothing is shared: each block loads whole tiles of both operands, no workspace.
  EXPECT_EQ(wgmma().launch_plan(pair, p).tensor_maps,
            (std::vector<TensorMapSpec>{{TmaOperand::kA, 128, 64, 128},
                                        {TmaOperand::kB, 128, 64, 128}}));
  EXPECT_EQ(wgmma().launch_plan(pair, p).workspace_bytes, 0);
  RooflineTraits const t = wgmma().roofline_traits(pair, p);
  EXPECT_EQ(t.a_shared_by, 1);
  EXPECT_EQ(t.b_shared_by, 1);
  // Two more mbarriers than the same ring in a pair sharing B: the hand-over's.
  EXPECT_EQ(wgmma().smem_bytes(pair, p),
            wgmma().smem_bytes(cfg(128, 128, 6, 2, 0, 1, 1, 2), p) + 16);
  // The search tries it where single blocks leave SMs idle.
  std::set<std::string> ids;
  for (KernelConfig const& c : valid(p)) ids.insert(c.id());
  EXPECT_TRUE(ids.count(pair.id())) << pair.id();
  EXPECT_EQ(wgmma().canonical(parse_kernel_id(
                "wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2,TU=0,PL=1,ML=0,SW=0,"
                "RP=16,LD=0")),
            pair);
}

TEST(WgmmaFamily, KSplitPairsRefuseWhatTheHandOverCannotDo) {
  Problem const p = make(1024, 1024, 1024, Precision::kBF16, Layout::kNT);
  auto run_rule = [&](KernelConfig const& c) {
    return rule(wgmma().reject_reason(c, p, sm90(), RejectScope::kRun));
  };
  // The hand-over pairs the two consumer warpgroups of each block, once, from registers.
  EXPECT_EQ(run_rule(cfg(128, 128, 6, 1, 0, 1, 1, 2, 0, 2)), "k_split");    // CW=1
  EXPECT_EQ(run_rule(cfg(128, 128, 6, 2, 1, 1, 1, 2, 0, 2)), "k_split");    // PE=1
  EXPECT_EQ(run_rule(cfg(128, 128, 6, 2, 0, 1, 2, 2, 0, 2)), "k_split");    // SK=2
  EXPECT_EQ(run_rule(cfg(128, 128, 6, 2, 0, 1, 1, 2, 1, 2)), "k_split");    // EP=1
  EXPECT_EQ(run_rule(cfg(128, 128, 6, 2, 0, 1, 1, 4, 0, 2)), "k_split");    // CL=4
  // Without a cluster there is nothing to split: the search leaves CA=2 at CL=1 out.
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1, 1, 0, 2), p, sm90())),
            "cluster_axis");
  // 128 tiles of 128×64 in pairs would need 256 blocks: a second wave. It still runs named.
  KernelConfig const wide = cfg(128, 64, 6, 2, 0, 1, 1, 2, 0, 2);
  EXPECT_EQ(rule(wgmma().reject_reason(wide, p, sm90())), "k_split_fill");
  EXPECT_EQ(run_rule(wide), "");
  // K = 384 is 6 k blocks: 3 per block of a pair, too few to fill a ring.
  Problem const shallow = make(1024, 1024, 384, Precision::kBF16, Layout::kNT);
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1, 2, 0, 2), shallow, sm90())),
            "k_split_fill");
}

TEST(WgmmaFamily, ClustersOfFourRunWhenNamed) {
  // 128x4096x4096 in 128×64 tiles, 2 slices: one tile row, 64 columns in 16 clusters of 4.
  Problem const p = make(128, 4096, 4096, Precision::kBF16, Layout::kNT);
  KernelConfig const four = cfg(128, 64, 6, 2, 0, 1, 2, 4, 0, 1);
  EXPECT_EQ(rule(wgmma().reject_reason(four, p, sm90())), "cluster_size");
  ASSERT_EQ(wgmma().reject_reason(four, p, sm90(), RejectScope::kRun), "");
  EXPECT_EQ(WgmmaFamily::units(four, p), 16 * 2);
  EXPECT_EQ(wgmma().launch_plan(four, p).launches[0].grid, (Dim3{128, 1, 1}));
  // A's K-major slabs are a quarter of the tile's rows; B is whole per block.
  EXPECT_EQ(wgmma().launch_plan(four, p).tensor_maps,
            (std::vector<TensorMapSpec>{{TmaOperand::kA, 32, 64, 128},
                                        {TmaOperand::kB, 64, 64, 128}}));
  EXPECT_EQ(wgmma().roofline_traits(four, p).a_shared_by, 4);
  // Along M with B stored K×N, four blocks need four 64-wide boxes of B: BN = 256.
  Problem const nn = make(1024, 1024, 1024, Precision::kBF16, Layout::kNN);
  EXPECT_EQ(rule(wgmma().reject_reason(cfg(128, 128, 6, 2, 0, 1, 1, 4), nn, sm90(),
                                       RejectScope::kRun)),
            "cluster_pieces");
  EXPECT_EQ(wgmma().reject_reason(cfg(64, 256, 4, 1, 0, 1, 1, 4), nn, sm90(), RejectScope::kRun),
            "");
  // The persistent grid holds whole clusters: 33 of 4 blocks.
  EXPECT_EQ(wgmma().launch_plan(cfg(128, 128, 4, 2, 1, 8, 1, 4), make(4096, 4096, 4096))
                .launches[0].grid.x,
            132);
}

// SW=1 computes Cᵀ = Bᵀ·Aᵀ: its tiles, units, launch and workspace are the transposed problem's,
// its descriptors cover the caller's matrices crosswise (the kernel's A box over B), and the
// template is instantiated with the transposed layout's flags.
// A compute-bound grid one tile wide: the raster rule keeps GM=1 (GM=8 walks it in the same
// order), so the compute-bound rule must not ask for GM=8 there, or no N tile that covers a short
// N in one column (BN = 208 for N = 200) would be searched.
TEST(WgmmaFamily, ComputeBoundGridsOneTileWideKeepRowOrder) {
  std::set<std::string> one_column;
  for (KernelConfig const& c : valid(make(28672, 200, 4096))) {
    if (c.at("BN") >= 200) one_column.insert(c.id());
  }
  EXPECT_TRUE(one_column.count(
      "wgmma:BM=128,BN=208,ST=4,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,TU=0,PL=1,ML=1,SW=0,"
      "RP=16,LD=0"));
  for (std::string const& id : one_column) EXPECT_NE(id.find("GM=1"), std::string::npos) << id;
}

TEST(WgmmaFamily, SwappedOperandsTileTheTransposedProblem) {
  Problem const p = make(200, 8192, 4096);  // NN: the kernel reads TT
  KernelConfig const plain = cfg(128, 208, 4, 2, 0, 1, 1);
  KernelConfig const swap = swapped(plain);
  EXPECT_TRUE(WgmmaFamily::swaps_operands(swap));
  EXPECT_FALSE(WgmmaFamily::swaps_operands(plain));
  EXPECT_EQ(wgmma().tile_problem(swap, p), p.transposed());
  EXPECT_EQ(wgmma().tile_problem(plain, p), p);
  EXPECT_EQ(WgmmaFamily::tiles(plain, p), 2 * 40);  // 200 rows in two 128-row tiles
  EXPECT_EQ(WgmmaFamily::tiles(swap, p), 64 * 1);   // 200 columns in one 208-wide tile
  LaunchPlan const plan = wgmma().launch_plan(swap, p);
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].grid.x, 64);
  EXPECT_EQ(plan.launches[0].name_expression,
            "gemmtune::wgmma_gemm<128,208,4,2,1,0,1,1,0,0,0,1,0,1,16,0,1,true,true>");
  EXPECT_EQ(plan.workspace_bytes, 0);
  // TT: the kernel's A (the caller's B, stored K×N) is MN-major in 64-wide boxes; its B (the
  // caller's A, stored M×K) K-major, a box of BN = 208 rows.
  ASSERT_EQ(plan.tensor_maps.size(), 2u);
  EXPECT_EQ(plan.tensor_maps[0], (TensorMapSpec{TmaOperand::kB, 64, 64, 128}));
  EXPECT_EQ(plan.tensor_maps[1], (TensorMapSpec{TmaOperand::kA, 208, 64, 128}));
  TensorMapGeometry g;
  ASSERT_EQ(tensor_map_geometry(plan.tensor_maps[0], p, p.ldb(), g), "");
  EXPECT_EQ(g.rows, 4096u);
  EXPECT_EQ(g.cols, 8192u);
  ASSERT_EQ(tensor_map_geometry(plan.tensor_maps[1], p, p.lda(), g), "");
  EXPECT_EQ(g.rows, 200u);
  EXPECT_EQ(g.cols, 4096u);
  EXPECT_EQ(wgmma().smem_bytes(swap, p), wgmma().smem_bytes(plain, p.transposed()));

  // NT stays NT: both operands K-major, the kernel's A box is BM = 128 rows of the caller's B.
  Problem const nt = make(96, 11008, 4096, Precision::kFP16, Layout::kNT);
  KernelConfig const narrow = swapped(cfg(128, 96, 6, 2, 0, 1, 2));
  LaunchPlan const split = wgmma().launch_plan(narrow, nt);
  EXPECT_EQ(split.tensor_maps[0], (TensorMapSpec{TmaOperand::kB, 128, 64, 128}));
  EXPECT_EQ(split.tensor_maps[1], (TensorMapSpec{TmaOperand::kA, 96, 64, 128}));
  // Split-K partials of the transposed problem, summed in the last slice (48 accumulators per
  // thread): 86 tile rows of one column, 8 consumer warps each.
  EXPECT_TRUE(WgmmaFamily::sums_in_last_slice(narrow));
  EXPECT_EQ(split.workspace_bytes, 2 * 11008 * 96 * 4);
  EXPECT_EQ(split.counter_bytes, 86 * 8 * 4);
  EXPECT_EQ(split.launches[0].grid.x, 86 * 2);
  // Through the reduce kernel, which transposes as it stores.
  KernelConfig const reduced = swapped(cfg(128, 208, 4, 2, 0, 1, 4));
  LaunchPlan const four = wgmma().launch_plan(reduced, make(200, 4096, 4096));
  ASSERT_EQ(four.launches.size(), 2u);
  EXPECT_EQ(four.launches[1].name_expression, "gemmtune::wgmma_reduce_transposed<4,1>");
  EXPECT_EQ(four.launches[1].grid.x, 128 * 7);  // 32×32 tiles of 4096 × 200
  EXPECT_EQ(four.workspace_bytes, 4 * 4096 * 200 * 4);

  // The roofline counts the swapped tiles too.
  DeviceLimits limits = sm90();
  limits.sm_count = 132;
  EXPECT_EQ(roofline_breakdown(swap, p, limits).units, 64);
  EXPECT_EQ(roofline_breakdown(plain, p, limits).units, 80);
}

// What SW=1 needs to run (16-bit operands TMA reads in place, C stored from registers), and where
// the search times it: where BN covers a short M with fewer empty columns than 64-row tiles.
TEST(WgmmaFamily, SwappedOperandsRunWhenNamed) {
  auto const constraint = [](std::string const& name) {
    for (Constraint const& c : wgmma().declared_constraints()) {
      if (c.name == name) return c;
    }
    ADD_FAILURE() << "no constraint " << name;
    return Constraint{};
  };
  KernelConfig const swap = swapped(cfg(128, 96, 6, 2, 0, 1, 1));
  Problem const p = make(96, 4096, 4096);
  EXPECT_EQ(wgmma().reject_reason(swap, p, sm90(), RejectScope::kRun), "");
  Constraint const search = constraint("swap_search");
  EXPECT_TRUE(search.prunes);
  EXPECT_EQ(search.check(swap, p, sm90()), "");  // 96 columns of 96
  EXPECT_EQ(search.check(cfg(128, 96, 6, 2, 0, 1, 1), p, sm90()), "");
  EXPECT_EQ(search.check(swapped(cfg(128, 208, 4, 2, 0, 1, 1)), make(200, 4096, 4096), sm90()),
            "");  // 8 empty columns against 56 empty rows
  for (std::int64_t m : {64, 128, 300}) {  // 64-row tiles cover these as well, or M is long
    EXPECT_NE(search.check(swap, make(m, 4096, 4096), sm90()), "") << m;
  }
  EXPECT_NE(search.check(swapped(cfg(128, 128, 6, 2, 0, 1, 1)), p, sm90()), "");
  // tf32 and e4m3 (per-tensor, row-wise) swap where both operands are K-major as stored (NT);
  // e5m2 A with e4m3 B would trade types, and block scales are shaped per operand.
  for (Precision precision : {Precision::kTF32, Precision::kE4M3, Precision::kE4M3Row}) {
    Problem const nt = make(96, 4096, 4096, precision, Layout::kNT);
    EXPECT_EQ(wgmma().reject_reason(swap, nt, sm90(), RejectScope::kRun), "")
        << to_string(precision);
    EXPECT_NE(search.check(swap, nt, sm90()), "");  // run when named
  }
  for (Problem const& q : {make(96, 4096, 4096, Precision::kTF32, Layout::kNN),
                           make(96, 4096, 4096, Precision::kE5M2, Layout::kNT),
                           make(96, 4096, 4096, Precision::kE4M3Blk, Layout::kNT),
                           make(100, 4096, 4096, Precision::kE4M3Row, Layout::kNT)}) {
    std::string const why = wgmma().reject_reason(swap, q, sm90(), RejectScope::kRun);
    EXPECT_EQ(rule(why), "swap") << q.describe() << ": " << why;
  }
  std::string const unaligned =
      wgmma().reject_reason(swap, make(96, 4096, 4095), sm90(), RejectScope::kRun);
  EXPECT_EQ(rule(unaligned), "swap") << unaligned;
  KernelConfig const staged = swapped(cfg(128, 128, 4, 2, 1, 8, 1, 1, 2));
  std::string const ep = wgmma().reject_reason(staged, make(4096, 4096, 4096), sm90(),
                                               RejectScope::kRun);
  EXPECT_EQ(rule(ep), "swap") << ep;
  // The rules read the transposed problem: M = 96 against BN = 96 is one tile column, and a
  // BN far wider than the caller's M is the tile_fit preference.
  EXPECT_EQ(WgmmaFamily::units(swap, p), 32);
  Constraint const fit = constraint("tile_fit");
  EXPECT_NE(fit.check(swapped(cfg(64, 256, 4, 1, 0, 1, 1)), make(64, 4096, 4096), sm90()), "");
  EXPECT_EQ(fit.check(cfg(64, 256, 4, 1, 0, 1, 1), make(64, 4096, 4096), sm90()), "");
  std::set<std::int64_t> swapped_bn;
  for (KernelConfig const& c : valid(make(96, 4096, 4096))) {
    if (c.at("SW") == 1) swapped_bn.insert(c.at("BN"));
  }
  EXPECT_EQ(swapped_bn, (std::set<std::int64_t>{96}));
  for (KernelConfig const& c : valid(make(4096, 4096, 4096))) EXPECT_EQ(c.at("SW"), 0) << c.id();
}

}  // namespace
}  // namespace gemmtune
