// CompilePool: every submission gets a result, good or failed, from a fixed set of threads.
#include <gtest/gtest.h>

#include "src/nvrtc/compile_pool.hpp"

namespace gemmtune {
namespace {

CompileRequest request(int v, bool broken) {
  CompileRequest r;
  r.source_name = "pool_" + std::to_string(v) + ".cu";
  r.source = "template <int V> __global__ void k(float* p) { p[threadIdx.x] = V; }\n";
  if (broken) r.source += "this is not C++\n";
  r.name_expressions = {"k<" + std::to_string(v) + ">"};
  r.arch = (v % 3 == 0) ? "sm_80" : "sm_90";
  return r;
}

TEST(CompilePool, ReturnsAResultForEverySubmission) {
  Compiler const compiler(CompilerSettings{});
  CompilePool pool(compiler, 2);
  EXPECT_EQ(pool.threads(), 2u);
  std::vector<std::future<CompileResult>> futures;
  for (int i = 0; i < 24; ++i) futures.push_back(pool.submit(request(i, i % 5 == 4)));
  for (int i = 0; i < 24; ++i) {
    CompileResult const r = futures[static_cast<std::size_t>(i)].get();
    if (i % 5 == 4) {
      EXPECT_FALSE(r.ok) << i;
      EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
    } else {
      ASSERT_TRUE(r.ok) << i << ": " << r.log;
      ASSERT_EQ(r.lowered_names.size(), 1u);
      EXPECT_EQ(r.lowered_names[0], "_Z1kILi" + std::to_string(i) + "EEvPf");
    }
  }
}

TEST(CompilePool, BadRequestsBecomeFailedResults) {
  Compiler const compiler(CompilerSettings{});
  CompilePool pool(compiler);
  EXPECT_GE(pool.threads(), 1u);
  CompileRequest r = request(1, false);
  r.arch = "sm_61";
  CompileResult const res = pool.submit(r).get();
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("sm_61"), std::string::npos);
}

TEST(CompilePool, ShutdownResolvesQueuedWork) {
  Compiler const compiler(CompilerSettings{});
  std::vector<std::future<CompileResult>> futures;
  {
    CompilePool pool(compiler, 1);
    for (int i = 0; i < 12; ++i) futures.push_back(pool.submit(request(100 + i, false)));
  }  // destroyed with most requests still queued
  int done = 0, dropped = 0;
  for (auto& f : futures) {
    CompileResult const r = f.get();  // never throws, never blocks forever
    if (r.ok) {
      ++done;
    } else {
      ++dropped;
      EXPECT_NE(r.log.find("shut down"), std::string::npos) << r.log;
    }
  }
  EXPECT_EQ(done + dropped, 12);
}

}  // namespace
}  // namespace gemmtune
