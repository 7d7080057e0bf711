// Family's shared behaviour: config validation and canonical order, enumeration, device-limit
// checks, and the registry's --family syntax.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "src/core/error.hpp"
#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/embedded_sources.hpp"

namespace gemmtune {
namespace {

Problem square(std::int64_t n, Layout layout = Layout::kNN) {
  Problem p{.m = n, .n = n, .k = n, .precision = Precision::kFP32, .layout = layout};
  return p.resolved();
}

DeviceLimits sm90() { return *arch_limits("sm_90"); }

TEST(Family, EnumerateIsTheCartesianProductInCanonicalOrder) {
  for (Family const* f : all_families()) {
    SCOPED_TRACE(std::string(f->name()));
    std::size_t expected = 1;
    for (ParamSpec const& p : f->params()) expected *= p.values.size();
    std::vector<KernelConfig> const all = f->enumerate();
    ASSERT_EQ(all.size(), expected);
    EXPECT_EQ(f->space_size(), expected);
    std::set<std::string> ids;
    for (KernelConfig const& cfg : all) {
      EXPECT_EQ(cfg.family, f->name());
      EXPECT_EQ(f->canonical(cfg), cfg);
      ids.insert(cfg.id());
    }
    EXPECT_EQ(ids.size(), expected) << "duplicate configs";
  }
}

TEST(Family, CanonicalIdRoundTrips) {
  for (Family const* f : all_families()) {
    for (KernelConfig const& cfg : f->enumerate()) {
      KernelConfig const parsed = parse_kernel_id(cfg.id());
      ASSERT_EQ(f->canonical(parsed), cfg) << cfg.id();
      ASSERT_EQ(parsed.id(), cfg.id());
    }
  }
}

TEST(Family, CanonicalReordersParameters) {
  Family const& f = *find_family("blocktile_2d");
  KernelConfig const shuffled = parse_kernel_id("blocktile_2d:TN=8,BK=8,BM=128,TM=8,BN=64");
  EXPECT_EQ(f.canonical(shuffled).id(), "blocktile_2d:BM=128,BN=64,BK=8,TM=8,TN=8");
}

TEST(Family, CanonicalRejectsMissingUnknownAndUndeclaredValues) {
  Family const& f = *find_family("naive");
  EXPECT_THROW(f.canonical(parse_kernel_id("naive:BM=32")), UsageError);
  EXPECT_THROW(f.canonical(parse_kernel_id("naive:BM=32,BN=32,BK=8")), UsageError);
  EXPECT_THROW(f.canonical(parse_kernel_id("naive:BM=33,BN=32")), UsageError);
  EXPECT_THROW(f.canonical(parse_kernel_id("coalesced:BM=32,BN=32")), UsageError);
  try {
    f.canonical(parse_kernel_id("naive:BM=33,BN=32"));
  } catch (UsageError const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("BM=33"), std::string::npos) << what;
    EXPECT_NE(what.find("8, 16, 32"), std::string::npos) << what;
  }
}

/// The first config of `f`'s product (each parameter's first value), without enumerating it.
KernelConfig first_config(Family const& f) {
  KernelConfig c;
  c.family = std::string(f.name());
  for (ParamSpec const& p : f.params()) c.params.emplace_back(p.name, p.values.front());
  return c;
}

TEST(Family, NamedOnlyValuesRunButAreNotEnumerated) {
  // A value measured not to pay stays runnable by id while the space the search walks skips it:
  // every parameter's named-only values are outside the product and accepted by canonical().
  for (Family const* f : all_families()) {
    for (ParamSpec const& p : f->params()) {
      for (std::int64_t v : p.named_only) {
        SCOPED_TRACE(std::string(f->name()) + " " + p.name + "=" + std::to_string(v));
        EXPECT_EQ(std::count(p.values.begin(), p.values.end(), v), 0);
        EXPECT_TRUE(p.accepts(v));
        KernelConfig named = first_config(*f);
        named.set(p.name, v);
        EXPECT_EQ(f->canonical(named), named);
        EXPECT_EQ(f->canonical(parse_kernel_id(named.id())).id(), named.id());
      }
    }
  }
  // Stream-K runs when named; the space of the search has no config with it, and a value
  // neither enumerated nor named lists both kinds.
  Family const& w = *find_family("wgmma");
  // A named-only value that every constraint accepts runs, and the search says it never times
  // it: 130 tiles of 128x112 fill 132 SMs where 128x128 leaves 28 idle.
  Problem const p = Problem{.m = 1537, .n = 1024, .k = 4096, .precision = Precision::kBF16}
                        .resolved();
  KernelConfig const narrow =
      w.canonical(parse_kernel_id("wgmma:BM=128,BN=112,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0"));
  EXPECT_EQ(w.reject_reason(narrow, p, sm90(), RejectScope::kRun), "");
  std::string const why = w.reject_reason(narrow, p, sm90());
  EXPECT_EQ(why.rfind("named_only: BN=112 runs only when named", 0), 0u) << why;
  bool any = false;
  w.for_each_config([&](KernelConfig const& c) { any = any || c.at("PE") == 3; });
  EXPECT_FALSE(any);
  KernelConfig bad = first_config(w);
  bad.set("PE", 5);
  try {
    (void)w.canonical(bad);
    ADD_FAILURE() << "PE=5 accepted";
  } catch (UsageError const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("0, 1, 2 (searched) or 3 (named)"), std::string::npos) << what;
  }
}

TEST(Family, RejectReasonChecksParametersFirst) {
  Family const& f = *find_family("naive");
  EXPECT_NE(f.reject_reason(parse_kernel_id("naive:BM=32"), square(64), sm90()).find("BN"),
            std::string::npos);
  EXPECT_NE(f.reject_reason(parse_kernel_id("naive:BM=7,BN=32"), square(64), sm90()).find("BM=7"),
            std::string::npos);
  EXPECT_EQ(f.reject_reason(parse_kernel_id("naive:BM=32,BN=32"), square(64), sm90()), "");
}

TEST(Family, RejectReasonIsTheSameForAnyParameterOrder) {
  // Canonical configs skip the canonicalising copy; any other order must get the same verdict.
  Family const& f = *find_family("blocktile_2d");
  for (std::int64_t n : {64, 4096}) {
    for (KernelConfig const& cfg : f.enumerate()) {
      KernelConfig shuffled = cfg;
      std::reverse(shuffled.params.begin(), shuffled.params.end());
      ASSERT_EQ(f.reject_reason(shuffled, square(n), sm90()),
                f.reject_reason(cfg, square(n), sm90()))
          << cfg.id();
    }
  }
}

TEST(Family, RejectsOtherPrecisions) {
  for (Family const* f : all_families()) {
    // The first precision the family does not compute (every family lacks one).
    auto const other = std::find_if(kAllPrecisions.begin(), kAllPrecisions.end(),
                                    [&](Precision q) { return !f->supports(q); });
    ASSERT_NE(other, kAllPrecisions.end()) << f->name();
    Problem const p = Problem{.m = 64, .n = 64, .k = 64, .precision = *other}.resolved();
    std::string const why = f->reject_reason(f->enumerate().front(), p, sm90());
    EXPECT_NE(why.find(std::string(to_string(*other))), std::string::npos) << why;
  }
}

TEST(Family, RejectsTooManyThreadsForTheDevice) {
  Family const& f = *find_family("smem_tiled");
  KernelConfig const big = parse_kernel_id("smem_tiled:BM=32,BN=64,BK=8");  // 2048 threads
  std::string const why = f.reject_reason(big, square(256), sm90());
  EXPECT_EQ(why.rfind("threads:", 0), 0u) << why;
  EXPECT_NE(why.find("2048"), std::string::npos) << why;
  DeviceLimits small = sm90();
  small.max_threads_per_block = 512;
  EXPECT_NE(f.reject_reason(parse_kernel_id("smem_tiled:BM=32,BN=32,BK=8"), square(256), small)
                .find("> the device's 512"),
            std::string::npos);
}

TEST(Family, RejectsThreadCountsThatAreNotWholeWarps) {
  Family const& f = *find_family("blocktile_2d");
  // (32/8)·(32/8) = 16 threads: half a warp.
  std::string const why = f.reject_reason(
      parse_kernel_id("blocktile_2d:BM=32,BN=32,BK=8,TM=8,TN=8"), square(256), sm90());
  EXPECT_EQ(why.rfind("threads:", 0), 0u) << why;
  EXPECT_NE(why.find("multiple of the warp size"), std::string::npos) << why;
}

TEST(Family, RejectsSharedMemoryAboveTheOptInLimit) {
  Family const& f = *find_family("smem_tiled");
  KernelConfig const cfg = parse_kernel_id("smem_tiled:BM=16,BN=64,BK=64");  // 20 KiB
  DeviceLimits tiny = sm90();
  tiny.max_smem_per_block_optin = 16 * 1024;
  std::string const why = f.reject_reason(cfg, square(256), tiny);
  EXPECT_EQ(why.rfind("smem:", 0), 0u) << why;
  EXPECT_NE(why.find("20480"), std::string::npos) << why;
  EXPECT_EQ(f.reject_reason(cfg, square(256), sm90()), "");
}

TEST(Family, RejectsArchsBelowTheMinimum) {
  Family const& f = *find_family("naive");
  DeviceLimits old = sm90();
  old.arch = "sm_60";
  EXPECT_NE(f.reject_reason(parse_kernel_id("naive:BM=32,BN=32"), square(64), old).find("sm_70"),
            std::string::npos);
}

/// The body of kernel `name` (the text between the braces of its definition in the embedded
/// templates), or "" when no template defines it.
std::string kernel_body(std::string const& name) {
  std::regex const definition("\\b" + name + "\\s*\\(\\s*GemmArgs");
  for (std::string const& path : embedded_paths()) {
    std::string const text(*embedded_source(path));
    std::smatch m;
    if (!std::regex_search(text, m, definition)) continue;
    std::size_t const open = text.find('{', static_cast<std::size_t>(m.position(0)));
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
      if (text[i] == '{') ++depth;
      if (text[i] == '}' && --depth == 0) return text.substr(open + 1, i - open - 1);
    }
  }
  return "";
}

TEST(Family, LaunchesMarkedToOverlapWaitForPriorGridsFirst) {
  // A launch marked waits_for_prior_grids starts, on sm_90+, while the previous kernel in the
  // stream may still run: its kernel must wait (grid_dependency::enter) before it reads its
  // arguments' memory. Every plan of every family, on problems that bring in split-K reduce
  // and operand-copy launches: each kernel is marked in all plans or in none, and it is marked
  // exactly when its body starts with the wait.
  DeviceLimits const limits = sm90();
  std::map<std::string, std::set<bool>> marks;  // kernel name -> marks seen
  for (Family const* f : all_families()) {
    for (Precision precision : {Precision::kFP32, Precision::kBF16, Precision::kTF32}) {
      for (Layout layout : {Layout::kNN, Layout::kTN}) {
        for (std::int64_t m : {16, 1024}) {
          Problem p{.m = m, .n = 1024, .k = 4096, .precision = precision, .layout = layout};
          p = p.resolved();
          int planned = 0;
          for (KernelConfig const& cfg : f->enumerate()) {
            if (planned == 400) break;
            if (!f->reject_reason(cfg, p, limits).empty()) continue;
            ++planned;
            for (KernelLaunch const& l : f->launch_plan(cfg, p).launches) {
              std::string name = l.name_expression.substr(0, l.name_expression.find('<'));
              name = name.substr(name.rfind(':') + 1);
              marks[name].insert(l.waits_for_prior_grids);
            }
          }
        }
      }
    }
  }
  for (char const* expected : {"simt", "simt_reduce", "mma_gemm", "mma_reduce", "wgmma_gemm",
                               "wgmma_gemm_cluster", "wgmma_kmajor_copy", "wgmma_reduce",
                               "naive"}) {
    EXPECT_TRUE(marks.count(expected)) << expected << " never appeared in a launch plan";
  }
  for (auto const& [name, seen] : marks) {
    SCOPED_TRACE(name);
    ASSERT_EQ(seen.size(), 1u) << "marked in some plans only";
    std::string const body = kernel_body(name);
    ASSERT_FALSE(body.empty()) << "no template defines the kernel";
    std::size_t const wait = std::min(body.find("grid_dependency::enter();"),
                                      body.find("grid_dependency::wait_for_prior_grids();"));
    EXPECT_EQ(*seen.begin(), wait != std::string::npos);
    if (wait != std::string::npos) {
      std::string before = body.substr(0, wait);
      EXPECT_EQ(before.find("args"), std::string::npos) << "arguments used before the wait";
      // The one exception: wgmma's set-up fetches the TMA descriptors ahead. They are kernel
      // parameters (__grid_constant__), which no earlier kernel writes.
      std::string const set_up = "(maps)));";
      if (std::size_t const at = before.find("set_up_block<"); at != std::string::npos) {
        std::size_t const call = before.find(set_up, at);
        ASSERT_NE(call, std::string::npos) << before;
        before.erase(call, set_up.size());
      }
      EXPECT_EQ(before.find("maps"), std::string::npos) << "arguments used before the wait";
    }
  }
}

TEST(FamilyRegistry, FindsEveryFamilyByName) {
  std::vector<Family const*> const all = all_families();
  ASSERT_EQ(all.size(), 10u);  // the seven ladder stages, simt, mma and wgmma
  for (Family const* f : all) EXPECT_EQ(find_family(f->name()), f);
  EXPECT_EQ(find_family("nope"), nullptr);
}

TEST(FamilyRegistry, SelectsNamesGroupsAndLists) {
  EXPECT_EQ(select_families("ladder").size(), 7u);
  EXPECT_EQ(select_families("all"), all_families());
  std::vector<Family const*> const two = select_families("warptile,naive");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]->name(), "warptile");
  EXPECT_EQ(two[1]->name(), "naive");
  EXPECT_EQ(select_families("naive, naive,ladder").size(), 7u);  // de-duplicated
  EXPECT_EQ(select_families("ladder").front()->name(), "naive");
}

TEST(WaveCost, WavesOfTilesTimesTileWork) {
  DeviceLimits limits = sm90();
  limits.sm_count = 132;
  KernelConfig const k =
      parse_kernel_id("simt:BM=256,BN=128,BK=8,TM=8,TN=16,LL=2,CURE=1,ST=2,CP=0,SW=1,SK=1,RED=0");
  // 4096³: 16·32 = 512 tiles, 4 waves on 132 SMs; 4224 rows add a 17th tile row: 544, 5 waves.
  double const base = wave_cost(k, square(4096), limits);
  EXPECT_DOUBLE_EQ(base, 4.0 * 256 * 128 * 4096);
  Problem taller = square(4096);
  taller.m = 4224;
  EXPECT_DOUBLE_EQ(wave_cost(k, taller, limits) / base, 5.0 / 4.0);
  // A fifth of the SMs: 4 waves become 20.
  limits.sm_count = 26;
  EXPECT_DOUBLE_EQ(wave_cost(k, square(4096), limits) / base, 20.0 / 4.0);
  limits.sm_count = 132;
  // No estimate for what the search would not propose there (tiles taller than M), nor for an
  // unknown family.
  Problem skinny = square(4096);
  skinny.m = 16;
  EXPECT_EQ(wave_cost(k, skinny, limits), 0.0);
  EXPECT_EQ(wave_cost(parse_kernel_id("nosuch:BM=1,BN=1"), square(4096), limits), 0.0);
}

TEST(WaveCost, SmallBlocksShareAnSm) {
  // 64-thread blocks: several fit on an SM, so 2048³'s 512 tiles are one wave like 1000³'s 128,
  // and only the K work differs. Counting one block per SM would have said 4 waves against 1.
  DeviceLimits limits = sm90();
  limits.sm_count = 132;
  KernelConfig const small =
      parse_kernel_id("simt:BM=64,BN=128,BK=8,TM=8,TN=16,LL=2,CURE=2,ST=1,CP=0,SW=8,SK=1,RED=0");
  ASSERT_EQ(find_family("simt")->threads(small), 64);
  double const big = wave_cost(small, square(2048), limits);
  double const little = wave_cost(small, square(1000), limits);
  ASSERT_GT(little, 0.0);
  EXPECT_DOUBLE_EQ(big / little, 2048.0 / 1000.0);
}

TEST(FamilyRegistry, UnknownNamesAreUsageErrorsNamingTheTextAndChoices) {
  for (char const* bad : {"simd", "naive,bogus", "", "naive,", "Naive"}) {
    SCOPED_TRACE(bad);
    try {
      select_families(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (UsageError const& e) {
      std::string const what = e.what();
      EXPECT_NE(what.find("warptile"), std::string::npos) << what;
      EXPECT_NE(what.find("ladder"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace gemmtune
