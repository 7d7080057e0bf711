// Split to fill: a warm-start tile carried to a skinny shape comes back with the split that
// fills the SMs' waves best, taken from the valid candidates only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tuner/search/split_to_fill.hpp"

namespace gemmtune {
namespace {

constexpr char kTile[] = "simt:BM=128,BN=256,BK=16,TM=8,TN=16,LL=0,CURE=2,ST=2,CP=0,SW=8,SK=";

KernelConfig split(int sk) {
  return parse_kernel_id(std::string(kTile) + std::to_string(sk) + ",RED=0");
}

std::vector<KernelConfig> splits(std::vector<int> const& sks) {
  std::vector<KernelConfig> out;
  for (int sk : sks) out.push_back(split(sk));
  return out;
}

Problem shape(std::string const& s) {
  Problem q = parse_shape(s);
  q.precision = Precision::kFP32;
  return q.resolved();
}

std::vector<std::string> ids(std::vector<KernelConfig> const& configs) {
  std::vector<std::string> out;
  for (KernelConfig const& c : configs) out.push_back(c.id());
  return out;
}

TEST(SplitToFill, PicksTheSplitWhoseWavesFillTheSms) {
  std::vector<KernelConfig> const all = splits({1, 2, 4, 8, 16});
  // 128×4096: 16 tiles of 128×256; SK=8 gives 128 blocks (97% of one wave of 132), SK=16
  // two waves filled no better, so the smaller split wins.
  EXPECT_EQ(ids(split_to_fill({split(1)}, all, shape("128x4096x4096"), 132)),
            std::vector<std::string>{split(8).id()});
  // 1024² outputs over K = 16384: 32 tiles, SK=4 gives 128 blocks.
  EXPECT_EQ(ids(split_to_fill({split(1)}, all, shape("1024x1024x16384"), 132)),
            std::vector<std::string>{split(4).id()});
  // From another split, on another GPU's SM count: 108 SMs take SK=16 (512 blocks, 95% of
  // 5 waves) over SK=2 and 4 (59%) and SK=8 (79%).
  EXPECT_EQ(ids(split_to_fill({split(2)}, all, shape("1024x1024x16384"), 108)),
            std::vector<std::string>{split(16).id()});
  // A tie between 2 and 4 waves' worth keeps the smaller split: 64 and 128 blocks on 108 SMs.
  EXPECT_EQ(ids(split_to_fill({split(1)}, splits({1, 2, 4}), shape("1024x1024x16384"), 108)),
            std::vector<std::string>{split(2).id()});
}

TEST(SplitToFill, LeavesFilledGridsKnownConfigsAndUnknownDevicesAlone) {
  std::vector<KernelConfig> const all = splits({1, 2, 4, 8, 16});
  // 4096³ has 512 tiles already.
  EXPECT_TRUE(split_to_fill({split(1)}, all, shape("4096x4096x4096"), 132).empty());
  // The pick is already warm.
  EXPECT_TRUE(split_to_fill({split(1), split(8)}, all, shape("128x4096x4096"), 132).empty());
  // No device: no SM count.
  EXPECT_TRUE(split_to_fill({split(1)}, all, shape("128x4096x4096"), 0).empty());
  // Only valid candidates are proposed: without SK=8 and 16, SK=4 (64 blocks) fills best.
  EXPECT_EQ(ids(split_to_fill({split(1)}, splits({1, 2, 4}), shape("128x4096x4096"), 132)),
            std::vector<std::string>{split(4).id()});
  // A family without SK is skipped.
  EXPECT_TRUE(split_to_fill({parse_kernel_id("naive:BM=32,BN=32")}, all, shape("128x4096x4096"),
                            132)
                  .empty());
}

}  // namespace
}  // namespace gemmtune
