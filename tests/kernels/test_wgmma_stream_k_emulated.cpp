// wgmma's stream-K split (PE = 3) on the CPU: the shares of tile_schedule (the kernel's own
// arithmetic) cover every k block of every unit exactly once, none is empty, the shares that
// hold a unit number it 0, 1, ... as the kernel's slices, and the family sizes the partials for
// the most slices a unit is cut into.
// The emulation first: the template is CUDA source and needs its definitions.
#include "tests/kernels/cuda_emulation.hpp"
#include "kernel_templates/common/tile_schedule.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/core/kernel_config.hpp"
#include "src/kernels/family.hpp"
#include "src/kernels/wgmma_family.hpp"

namespace gemmtune {
namespace {

struct Walked {
  std::int64_t most_slices = 0;  // the most shares that held one unit
};

/// Every cluster's walk as the kernel's unit_at takes it (a unit's k blocks from the share's
/// position to the share's end or the unit's), checked against the units' k blocks.
Walked walk(std::int64_t units, std::int64_t kb, std::int64_t clusters) {
  long long const total = units * kb;
  long long const shares = tile_schedule::stream_shares(total, clusters);
  std::vector<int> seen(static_cast<std::size_t>(total), 0);
  std::vector<std::vector<std::int64_t>> slices_of(static_cast<std::size_t>(units));
  std::vector<std::int64_t> expected(static_cast<std::size_t>(units), 0);
  for (long long c = 0; c < clusters; ++c) {
    long long begin = 0, end = 0;
    tile_schedule::stream_share(c, total, clusters, begin, end);
    if (c < shares) {
      EXPECT_LT(begin, end) << "share " << c << " of " << shares << " is empty";
    } else {
      EXPECT_EQ(begin, end) << "cluster " << c << " past the shares walks k blocks";
    }
    for (long long w = begin; w < end;) {
      long long const u = w / kb, first = u * kb;
      long long const kb_end = std::min<long long>(end - first, kb);
      for (long long i = w; i < first + kb_end; ++i) ++seen[static_cast<std::size_t>(i)];
      long long const share0 = tile_schedule::stream_owner(first, total, shares);
      long long const count = tile_schedule::stream_owner(first + kb - 1, total, shares) -
                              share0 + 1;
      EXPECT_LE(share0, c);
      slices_of[static_cast<std::size_t>(u)].push_back(c - share0);
      expected[static_cast<std::size_t>(u)] = count;
      w = first + kb_end;
    }
  }
  for (long long i = 0; i < total; ++i) {
    EXPECT_EQ(seen[static_cast<std::size_t>(i)], 1) << "k block " << i << " of " << total;
  }
  Walked out;
  for (std::int64_t u = 0; u < units; ++u) {
    std::vector<std::int64_t> s = slices_of[static_cast<std::size_t>(u)];
    std::sort(s.begin(), s.end());
    // The slices a unit's shares store are 0 .. count-1, each once: the sum reads them all.
    EXPECT_EQ(static_cast<std::int64_t>(s.size()), expected[static_cast<std::size_t>(u)])
        << "unit " << u << " of " << units << " × " << kb << " over " << clusters;
    for (std::size_t j = 0; j < s.size(); ++j) {
      EXPECT_EQ(s[j], static_cast<std::int64_t>(j)) << "unit " << u;
    }
    out.most_slices = std::max(out.most_slices, static_cast<std::int64_t>(s.size()));
  }
  return out;
}

TEST(WgmmaStreamK, SharesCoverEveryKBlockOnceAndNumberTheirSlices) {
  // Fewer units than clusters, between one and two waves, many waves; k blocks fewer than the
  // clusters (shares of one k block); clusters of one and two blocks.
  for (std::int64_t clusters : {132, 66, 7}) {
    for (std::int64_t units : {1, 8, 13, 104, 131, 132, 133, 200, 264, 395}) {
      for (std::int64_t kb : {1, 2, 5, 16, 64, 257}) {
        SCOPED_TRACE(testing::Message() << units << " units × " << kb << " k blocks over "
                                        << clusters << " clusters");
        walk(units, kb, clusters);
      }
    }
  }
}

TEST(WgmmaStreamK, PartialsAreSizedForTheMostSlicesOfAUnit) {
  KernelConfig const plain = wgmma_family().canonical(
      parse_kernel_id("wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=3,GM=8,SK=1,EP=0"));
  KernelConfig const pair = wgmma_family().canonical(
      parse_kernel_id("wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=3,GM=8,SK=1,EP=0"));
  auto make = [](std::int64_t m, std::int64_t n, std::int64_t k, Precision precision,
                 Layout layout) {
    return Problem{.m = m, .n = n, .k = k, .precision = precision, .layout = layout}.resolved();
  };
  for (Problem const& p : {make(1544, 1024, 4096, Precision::kBF16, Layout::kNN),
                           make(96, 1024, 1024, Precision::kBF16, Layout::kNN),
                           make(2000, 3000, 1000, Precision::kFP16, Layout::kTN),
                           make(264, 520, 136, Precision::kBF16, Layout::kNT)}) {
    for (KernelConfig const& c : {plain, pair}) {
      SCOPED_TRACE(p.describe() + " CL=" + std::to_string(c.at("CL")));
      std::int64_t const units = WgmmaFamily::units(c, p);
      std::int64_t const kb = (p.k + 63) / 64;
      std::int64_t const clusters = WgmmaFamily::grid_blocks(c, p) / c.at("CL");
      EXPECT_EQ(clusters, WgmmaFamily::kPersistentSms / c.at("CL"));
      std::int64_t const most = walk(units, kb, clusters).most_slices;
      EXPECT_EQ(WgmmaFamily::stream_slices(c, p), most);
      LaunchPlan const plan = wgmma_family().launch_plan(c, p);
      std::int64_t const partials = most > 1 ? most * p.m * ((p.n + 3) / 4 * 4) * 4 : 0;
      EXPECT_EQ(plan.workspace_bytes, partials);
      EXPECT_EQ(plan.counter_bytes, most > 1 ? WgmmaFamily::tiles(c, p) * 8 * 4 : 0);
    }
  }
}

}  // namespace
}  // namespace gemmtune
