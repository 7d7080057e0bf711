// The ladder presets: seven stages in order, each a valid config of its family on the usual
// benchmark shape.
#include <gtest/gtest.h>

#include "src/core/gpu_identity.hpp"
#include "src/kernels/ladder_presets.hpp"

namespace gemmtune {
namespace {

TEST(LadderPresets, SevenStagesInLadderOrder) {
  std::vector<LadderPreset> const presets = ladder_presets();
  std::vector<std::string> const order = {"naive",        "coalesced",  "smem_tiled",
                                          "blocktile_1d", "blocktile_2d", "vectorized",
                                          "warptile"};
  ASSERT_EQ(presets.size(), order.size());
  for (std::size_t i = 0; i < presets.size(); ++i) {
    EXPECT_EQ(presets[i].display_name, std::to_string(i + 1) + " " + order[i]);
    ASSERT_NE(presets[i].family, nullptr);
    EXPECT_EQ(presets[i].family->name(), order[i]);
    EXPECT_EQ(presets[i].config.family, order[i]);
    EXPECT_EQ(presets[i].family->canonical(presets[i].config), presets[i].config);
  }
}

TEST(LadderPresets, EachIsValidForAlignedSquareProblems) {
  for (char const* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    for (std::int64_t n : {1024, 4096}) {
      Problem const p = Problem{.m = n, .n = n, .k = n}.resolved();
      for (LadderPreset const& s : ladder_presets()) {
        EXPECT_EQ(s.family->reject_reason(s.config, p, *arch_limits(arch)), "")
            << s.display_name << " " << arch;
      }
    }
  }
}

TEST(LadderPresets, TheSeedsWarptileSettings) {
  EXPECT_EQ(ladder_presets().back().config.id(),
            "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,NUM_THREADS=128");
}

}  // namespace
}  // namespace gemmtune
