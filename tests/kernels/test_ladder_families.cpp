// The seven ladder descriptors: their spaces, that every constraint can reject with a reason,
// alignment handling, launch plans that cover the problem, and NVRTC requests (built, not
// compiled).
#include <gtest/gtest.h>

#include <map>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/ladder_family.hpp"
#include "src/nvrtc/embedded_sources.hpp"

namespace gemmtune {
namespace {

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout = Layout::kNN,
             int align = 0) {
  Problem p{.m = m, .n = n, .k = k, .precision = Precision::kFP32, .layout = layout};
  p.align = align;
  return p.resolved();
}

DeviceLimits sm90() { return *arch_limits("sm_90"); }

std::vector<Problem> sample_problems() {
  return {make(4096, 4096, 4096),         make(1000, 1000, 1000, Layout::kTN),
          make(127, 255, 33),             make(1, 1, 1, Layout::kTT),
          make(1 << 24, 1 << 24, 4),      make(4096, 4096, 4096, Layout::kNT, 4),
          make(96, 4000, 8, Layout::kNN, 8)};
}

TEST(LadderFamilies, SpaceSizesBeforeConstraints) {
  std::map<std::string, std::size_t> const expected = {
      {"naive", 9},          {"coalesced", 9},     {"smem_tiled", 48}, {"blocktile_1d", 54},
      {"blocktile_2d", 72}, {"vectorized", 162}, {"warptile", 5832}};
  for (Family const* f : select_families("ladder")) {
    EXPECT_EQ(f->enumerate().size(), expected.at(std::string(f->name()))) << f->name();
  }
}

TEST(LadderFamilies, EveryFamilyHasValidConfigsForTheBenchmarkShape) {
  Problem const p = make(4096, 4096, 4096);
  for (Family const* f : select_families("ladder")) {
    std::size_t valid = 0;
    for (KernelConfig const& cfg : f->enumerate()) valid += f->reject_reason(cfg, p, sm90()).empty();
    EXPECT_GT(valid, 0u) << f->name();
    if (f->name() == "warptile") {
      EXPECT_GE(valid, 300u);
      EXPECT_LE(valid, 2000u);
    }
  }
}

TEST(LadderFamilies, EveryConstraintRejectsSomethingWithANamedReason) {
  for (Family const* f : select_families("ladder")) {
    std::map<std::string, int> first_failures;
    for (Constraint const& c : f->constraints()) first_failures[c.name] = 0;
    for (Problem const& p : sample_problems()) {
      for (KernelConfig const& cfg : f->enumerate()) {
        std::string const why = f->reject_reason(cfg, p, sm90());
        for (Constraint const& c : f->constraints()) {
          std::string const own = c.check(cfg, p, sm90());
          if (why.rfind(c.name + ": ", 0) == 0) {
            ++first_failures[c.name];
            EXPECT_EQ(why, c.name + ": " + own);
            EXPECT_GT(own.size(), 10u) << "reason too terse: " << own;
          }
        }
      }
    }
    for (auto const& [name, count] : first_failures) {
      EXPECT_GT(count, 0) << f->name() << ": constraint " << name << " never decided a rejection";
    }
  }
}

TEST(LadderFamilies, Float4FamiliesNeedSixteenByteAlignment) {
  for (Family const* f : select_families("ladder")) {
    bool const vec4 = f->name() == "vectorized" || f->name() == "warptile";
    std::string const tmpl(f->template_file());
    for (int align : {4, 8, 16}) {
      Problem const p = make(4096, 4096, 4096, Layout::kNN, align);
      std::size_t valid = 0;
      for (KernelConfig const& cfg : f->enumerate()) {
        std::string const why = f->reject_reason(cfg, p, sm90());
        valid += why.empty();
        if (vec4 && align < 16) {
          EXPECT_EQ(why.rfind("alignment: ", 0), 0u) << why;
          EXPECT_NE(why.find(std::to_string(align) + " bytes"), std::string::npos) << why;
        }
      }
      EXPECT_EQ(valid > 0, !vec4 || align == 16) << f->name() << " align " << align;
    }
  }
  // Packed 127x255x33 NN has alignment class 4: the scalar families still run it.
  Problem const ragged = make(127, 255, 33);
  EXPECT_EQ(ragged.align, 4);
  EXPECT_EQ(find_family("blocktile_2d")
                ->reject_reason(parse_kernel_id("blocktile_2d:BM=64,BN=64,BK=8,TM=4,TN=4"),
                                ragged, sm90()),
            "");
}

TEST(LadderFamilies, LaunchPlansCoverTheProblem) {
  for (Family const* f : select_families("ladder")) {
    auto const& ladder = dynamic_cast<LadderFamily const&>(*f);
    for (Problem const& p : sample_problems()) {
      for (KernelConfig const& cfg : f->enumerate()) {
        if (!f->reject_reason(cfg, p, sm90()).empty()) continue;
        LaunchPlan const plan = f->launch_plan(cfg, p);
        ASSERT_EQ(plan.launches.size(), 1u);
        KernelLaunch const& l = plan.launches[0];
        std::int64_t const bm = ladder.tile_m(cfg), bn = ladder.tile_n(cfg);
        std::int64_t const tiles_m = (p.m + bm - 1) / bm, tiles_n = (p.n + bn - 1) / bn;
        // The flat grid walks every BM×BN tile of C exactly once.
        ASSERT_EQ(l.grid.x, tiles_m * tiles_n) << cfg.id();
        ASSERT_EQ(l.grid.y, 1);
        ASSERT_EQ(l.grid.z, 1);
        ASSERT_GE(tiles_m * bm, p.m);
        ASSERT_GE(tiles_n * bn, p.n);
        ASSERT_EQ(l.block, (Dim3{f->threads(cfg), 1, 1})) << cfg.id();
        int const smem = f->smem_bytes(cfg, p);
        ASSERT_EQ(l.dynamic_smem, smem > kSmemWithoutOptIn ? smem : 0) << cfg.id();
        ASSERT_TRUE(l.lowered_name.empty());
        ASSERT_EQ(plan.workspace_bytes, 0);
      }
    }
  }
}

TEST(LadderFamilies, CompileRequestsNameTheTemplateAndLayout) {
  Problem const nn = make(512, 512, 512, Layout::kNN);
  Problem const tn = make(512, 512, 512, Layout::kTN);
  Problem const nt = make(512, 512, 512, Layout::kNT);
  for (Family const* f : select_families("ladder")) {
    KernelConfig cfg;
    for (KernelConfig const& c : f->enumerate()) {
      if (f->reject_reason(c, nn, sm90()).empty()) {
        cfg = c;
        break;
      }
    }
    ASSERT_FALSE(cfg.family.empty()) << f->name();
    CompileRequest const r = f->compile_request(cfg, tn, "sm_86");
    EXPECT_EQ(r.arch, "sm_86");
    EXPECT_EQ(r.source_name, f->template_file());
    EXPECT_EQ(r.source, *embedded_source(f->template_file()));
    ASSERT_EQ(r.name_expressions.size(), 1u);
    std::string values;
    for (auto const& [name, v] : cfg.params) values += std::to_string(v) + ",";
    EXPECT_EQ(r.name_expressions[0], "gemmtune::" + std::string(f->name()) + "<" + values +
                                         "true,false>");
    EXPECT_EQ(f->launch_plan(cfg, tn).launches[0].name_expression, r.name_expressions[0]);
    EXPECT_NE(f->compile_request(cfg, nt, "sm_90").name_expressions[0].find("false,true>"),
              std::string::npos);
    EXPECT_EQ(f->min_arch(), 70);
    EXPECT_TRUE(f->supports(Precision::kFP32));
    EXPECT_FALSE(f->supports(Precision::kTF32));
    EXPECT_FALSE(template_hash(f->template_file()).empty());
  }
}

TEST(LadderFamilies, ThreadsAndSharedMemoryFollowTheTileArithmetic) {
  auto cfg = [](char const* id) { return parse_kernel_id(id); };
  Problem const p = make(1024, 1024, 1024);
  EXPECT_EQ(find_family("naive")->threads(cfg("naive:BM=32,BN=8")), 256);
  EXPECT_EQ(find_family("smem_tiled")->smem_bytes(cfg("smem_tiled:BM=32,BN=32,BK=32"), p), 8192);
  EXPECT_EQ(find_family("blocktile_1d")->threads(cfg("blocktile_1d:BM=64,BN=64,BK=8,TM=8")), 512);
  EXPECT_EQ(find_family("blocktile_2d")->threads(cfg("blocktile_2d:BM=128,BN=128,BK=8,TM=8,TN=8")),
            256);
  KernelConfig const wt =
      cfg("warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128");
  EXPECT_EQ(find_family("warptile")->threads(wt), 128);
  EXPECT_EQ(find_family("warptile")->smem_bytes(wt, p), 16 * 1024);
}

}  // namespace
}  // namespace gemmtune
