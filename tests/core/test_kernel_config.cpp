// Kernel ids: canonical form, round trip, strict parsing with positions.
#include <gtest/gtest.h>

#include "src/core/error.hpp"
#include "src/core/kernel_config.hpp"

namespace gemmtune {

TEST(KernelConfig, RoundTrips) {
  KernelConfig c;
  c.family = "warptile";
  c.set("BM", 128);
  c.set("BN", 64);
  EXPECT_EQ(c.id(), "warptile:BM=128,BN=64");
  EXPECT_EQ(parse_kernel_id(c.id()), c);
  EXPECT_EQ(parse_kernel_id("naive:").params.size(), 0u);
  EXPECT_EQ(parse_kernel_id("naive:").id(), "naive:default");
  EXPECT_EQ(c.at("BN"), 64);
  EXPECT_FALSE(c.get("BK").has_value());
  EXPECT_THROW(c.at("BK"), Error);
}

TEST(KernelConfig, RejectsMalformedIds) {
  struct Case {
    char const* id;
    char const* why;
  };
  Case const cases[] = {
      {"", "family"},
      {"Naive:BM=1", "family"},
      {"naive", "':'"},
      {"naive:bm=1", "uppercase"},
      {"naive:BM", "'='"},
      {"naive:BM=", "integer"},
      {"naive:BM=-1", "integer"},
      {"naive:BM=1,", "uppercase"},
      {"naive:BM=1,BM=2", "twice"},
      {"naive:BM=99999999999", "too large"},
      {"naive:BM=1;system(1)", "','"},
      {"naive:BM=1)\n#include \"/etc/passwd\"", "','"},
  };
  for (auto const& c : cases) {
    try {
      parse_kernel_id(c.id);
      ADD_FAILURE() << "accepted " << c.id;
    } catch (UsageError const& e) {
      EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << c.id << ": " << e.what();
    }
  }
  EXPECT_THROW(parse_kernel_id(std::string(2000, 'a') + ":"), UsageError);
}

TEST(KernelConfig, OrdersAndCompares) {
  KernelConfig a = parse_kernel_id("naive:BX=16,BY=16");
  KernelConfig b = parse_kernel_id("naive:BX=32,BY=8");
  EXPECT_LT(a, b);
  EXPECT_NE(a, b);
}

}  // namespace gemmtune
