// Compiler: CUBIN for every supported arch, lowered names and per-kernel ptxas figures, errors
// as results, in-memory headers, and option handling.
#include <gtest/gtest.h>

#include <cstdlib>

#include "src/nvrtc/compiler.hpp"

namespace gemmtune {
namespace {

// Two instantiations with different static shared memory, and the shared GemmArgs header.
constexpr char kSource[] = R"(
#include "common/gemm_args.cuh"
namespace gemmtune {
template <int N>
__global__ void __launch_bounds__(128) probe(GemmArgs args) {
  __shared__ float buffer[N];
  float* c = static_cast<float*>(args.C);
  buffer[threadIdx.x % N] = args.alpha * threadIdx.x;
  __syncthreads();
  c[threadIdx.x] = buffer[(threadIdx.x + 1) % N] + args.beta;
}
}  // namespace gemmtune
)";

CompileRequest probe_request(std::string arch) {
  CompileRequest r;
  r.source_name = "probe.cu";
  r.source = kSource;
  r.name_expressions = {"gemmtune::probe<256>", "gemmtune::probe<1024>"};
  r.arch = std::move(arch);
  return r;
}

TEST(Compiler, CompilesToCubinForEverySupportedArch) {
  Compiler const compiler(CompilerSettings{});
  for (char const* arch : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) {
    SCOPED_TRACE(arch);
    CompileResult const r = compiler.compile(probe_request(arch));
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_GT(r.cubin.size(), 64u);
    EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");
    EXPECT_FALSE(r.from_cache);
    EXPECT_TRUE(r.cubin_path.empty());  // no cache configured
    EXPECT_GT(r.compile_ms, 0.0);
    EXPECT_EQ(r.cache_key.size(), 32u);
    EXPECT_NE(r.options.find(std::string("--gpu-architecture=") + arch), std::string::npos);
    EXPECT_NE(r.options.find("--ptxas-options=-v"), std::string::npos);
    EXPECT_EQ(r.options.find("-I"), std::string::npos) << "include paths are not reported";
  }
}

TEST(Compiler, ReadsLoweredNamesAndResourcesPerKernel) {
  CompileResult const r = Compiler(CompilerSettings{}).compile(probe_request("sm_90"));
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.lowered_names.size(), 2u);
  ASSERT_EQ(r.resources.size(), 2u);
  EXPECT_EQ(r.lowered_names[0], "_ZN8gemmtune5probeILi256EEEv8GemmArgs");
  EXPECT_EQ(r.lowered_names[1], "_ZN8gemmtune5probeILi1024EEEv8GemmArgs");
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.resources[i].lowered_name, r.lowered_names[i]);
    EXPECT_GT(r.resources[i].registers, 0);
    EXPECT_EQ(r.resources[i].spill_stores, 0);
  }
  EXPECT_EQ(r.resources[0].static_smem, 256 * 4);
  EXPECT_EQ(r.resources[1].static_smem, 1024 * 4);
  EXPECT_NE(r.log.find("Compiling entry function"), std::string::npos);
}

TEST(Compiler, SourceErrorsAreResultsWithTheLog) {
  CompileRequest r = probe_request("sm_90");
  r.source_name = "broken.cu";
  r.source = std::string(kSource) + "\n__global__ void broken() { undeclared_thing = 1; }\n";
  CompileResult const res = Compiler(CompilerSettings{}).compile(r);
  EXPECT_FALSE(res.ok);
  EXPECT_TRUE(res.cubin.empty());
  EXPECT_TRUE(res.lowered_names.empty());
  EXPECT_NE(res.log.find("undeclared_thing"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("error"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("broken.cu"), std::string::npos) << res.log;
}

TEST(Compiler, UnknownNameExpressionIsAFailedResult) {
  CompileRequest r = probe_request("sm_90");
  r.name_expressions = {"gemmtune::no_such_kernel<1>"};
  CompileResult const res = Compiler(CompilerSettings{}).compile(r);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("no_such_kernel"), std::string::npos) << res.log;
}

TEST(Compiler, RejectsArchsOutsideTheSupportedSet) {
  Compiler const compiler(CompilerSettings{});
  for (char const* arch : {"sm_75", "sm_100", "", "compute_90", "sm_90 -G", "SM_90"}) {
    CompileResult const r = compiler.compile(probe_request(arch));
    EXPECT_FALSE(r.ok) << arch;
    EXPECT_NE(r.log.find("unsupported target architecture '" + std::string(arch) + "'"),
              std::string::npos)
        << r.log;
    EXPECT_NE(r.log.find("sm_90a"), std::string::npos) << r.log;
  }
  EXPECT_TRUE(is_supported_arch("sm_86"));
  EXPECT_FALSE(is_supported_arch("sm_70"));
}

TEST(Compiler, NoNameExpressionIsAFailedResult) {
  CompileRequest r = probe_request("sm_90");
  r.name_expressions.clear();
  CompileResult const res = Compiler(CompilerSettings{}).compile(r);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("no kernel"), std::string::npos) << res.log;
}

TEST(Compiler, ExtraOptionsReachNvrtcAndTheKey) {
  Compiler const compiler(CompilerSettings{});
  CompileRequest r = probe_request("sm_90");
  std::string const plain_key = compiler.compile(r).cache_key;
  r.extra_options = {"-DGEMMTUNE_PROBE_UNUSED=1"};
  CompileResult const with = compiler.compile(r);
  ASSERT_TRUE(with.ok) << with.log;
  EXPECT_NE(with.options.find("-DGEMMTUNE_PROBE_UNUSED=1"), std::string::npos);
  EXPECT_NE(with.cache_key, plain_key);
  r.extra_options = {"--no-such-nvrtc-option"};
  EXPECT_FALSE(compiler.compile(r).ok);
}

TEST(Compiler, IncludeDirectoriesComeFromTheBuildOrTheEnvironment) {
  std::string const build_dir = cuda_include_dir();
  EXPECT_FALSE(build_dir.empty());
  {
    Compiler const c(CompilerSettings{{"/opt/extra"}, ""});
    ASSERT_GE(c.include_dirs().size(), 3u);
    EXPECT_EQ(c.include_dirs()[0], build_dir);
    EXPECT_EQ(c.include_dirs()[1], build_dir + "/cccl");
    EXPECT_EQ(c.include_dirs().back(), "/opt/extra");
  }
  char const* old = std::getenv("GEMMTUNE_CUDA_INCLUDE");
  std::string const saved = old ? old : "";
  setenv("GEMMTUNE_CUDA_INCLUDE", "/somewhere/include", 1);
  EXPECT_EQ(cuda_include_dir(), "/somewhere/include");
  Compiler const c(CompilerSettings{});
  EXPECT_EQ(c.include_dirs()[0], "/somewhere/include");
  EXPECT_EQ(c.include_dirs()[1], "/somewhere/include/cccl");
  if (old) {
    setenv("GEMMTUNE_CUDA_INCLUDE", saved.c_str(), 1);
  } else {
    unsetenv("GEMMTUNE_CUDA_INCLUDE");
  }
}

TEST(Compiler, ReportsTheNvrtcVersion) {
  std::string const v = nvrtc_version();
  ASSERT_NE(v.find('.'), std::string::npos) << v;
  EXPECT_GE(std::atoi(v.c_str()), 12) << v;
}

}  // namespace
}  // namespace gemmtune
