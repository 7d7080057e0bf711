// The fault-injection kernels compile as intended without a GPU: every F but the injected
// compile error builds for sm_80 and sm_90, F=8 fails with its static_assert, none spills.
#include <gtest/gtest.h>

#include "src/nvrtc/compiler.hpp"
#include "tests/reliability/fault_family.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune::reliability {

TEST(FaultKernels, CompileAsIntended) {
  Compiler compiler(CompilerSettings{});
  FaultFamily faults(gemmtune::test::source_path("tests/reliability/kernels").string());
  Problem const p = parse_shape("256x256x256", Precision::kFP32, Layout::kNT);
  for (char const* arch : {"sm_80", "sm_90"}) {
    for (KernelConfig const& cfg : faults.enumerate()) {
      CompileResult const r = compiler.compile(faults.compile_request(cfg, p, arch));
      if (cfg.at("F") == kCompileFailure) {
        EXPECT_FALSE(r.ok) << cfg.id();
        EXPECT_NE(r.log.find("injected compile error"), std::string::npos) << r.log;
      } else {
        ASSERT_TRUE(r.ok) << cfg.id() << " " << arch << "\n" << r.log;
        ASSERT_EQ(r.resources.size(), 1u);
        EXPECT_EQ(r.resources[0].spill_stores, 0) << cfg.id();
      }
    }
  }
}

}  // namespace gemmtune::reliability
