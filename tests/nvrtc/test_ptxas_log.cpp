// parse_ptxas_log on logs in the shapes ptxas prints: several entries, a non-inlined device
// function's own properties block, figures that are absent.
#include <gtest/gtest.h>

#include "src/nvrtc/ptxas_log.hpp"

namespace gemmtune {
namespace {

constexpr char kLog[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Function properties for _Z6helperv\n"
    "ptxas         .     48 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Compiling entry function '_Z5firstv' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5firstv\n"
    "ptxas         .     16 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers, 16 bytes cumulative stack size, "
    "16384 bytes smem\n"
    "ptxas info    : Compile time = 14.313 ms\n"
    "ptxas info    : Compiling entry function '_Z6secondv' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z6helperv\n"
    "ptxas         .     48 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Function properties for _Z6secondv\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers\n";

TEST(PtxasLog, ReadsEveryEntryFunction) {
  std::vector<KernelResources> const all = parse_ptxas_log(kLog);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].lowered_name, "_Z5firstv");
  EXPECT_EQ(all[0].registers, 168);
  EXPECT_EQ(all[0].stack_bytes, 16);
  EXPECT_EQ(all[0].spill_stores, 4);
  EXPECT_EQ(all[0].spill_loads, 12);
  EXPECT_EQ(all[0].static_smem, 16384);
  // The helper's spills inside the second entry's section are the helper's, not the entry's;
  // smem is absent from its "Used" line.
  EXPECT_EQ(all[1].lowered_name, "_Z6secondv");
  EXPECT_EQ(all[1].registers, 32);
  EXPECT_EQ(all[1].spill_stores, 0);
  EXPECT_EQ(all[1].spill_loads, 0);
  EXPECT_EQ(all[1].stack_bytes, 0);
  EXPECT_EQ(all[1].static_smem, 0);
}

TEST(PtxasLog, FindsByLoweredName) {
  auto const second = find_kernel_resources(kLog, "_Z6secondv");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->registers, 32);
  EXPECT_FALSE(find_kernel_resources(kLog, "_Z6helperv").has_value());  // not an entry
  EXPECT_FALSE(find_kernel_resources("", "_Z5firstv").has_value());
}

TEST(PtxasLog, ToleratesUnrelatedAndTruncatedText) {
  EXPECT_TRUE(parse_ptxas_log("warning: something\nerror: else\n").empty());
  std::vector<KernelResources> const cut =
      parse_ptxas_log("ptxas info    : Compiling entry function '_Z1kv' for 'sm_80'\nptxas info"
                      "    : Used ");
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].registers, 0);
}

}  // namespace
}  // namespace gemmtune
