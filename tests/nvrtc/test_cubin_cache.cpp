// CubinCache through the Compiler: hits on the second compile, the key follows every input,
// corrupt entries are ignored and rewritten, concurrent writers are safe.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/nvrtc/compiler.hpp"
#include "src/nvrtc/cubin_cache.hpp"

namespace gemmtune {
namespace {

namespace fs = std::filesystem;

constexpr char kSource[] = R"(
#include "common/gemm_args.cuh"
namespace gemmtune {
template <int V>
__global__ void fill(GemmArgs args) { static_cast<float*>(args.C)[threadIdx.x] = V * args.alpha; }
}  // namespace gemmtune
)";

CompileRequest fill_request(int v = 3, std::string arch = "sm_90") {
  CompileRequest r;
  r.source_name = "fill.cu";
  r.source = kSource;
  r.name_expressions = {"gemmtune::fill<" + std::to_string(v) + ">"};
  r.arch = std::move(arch);
  return r;
}

class CubinCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gemmtune-cubin-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CubinCacheTest, SecondCompileIsAHitWithTheSameResult) {
  Compiler const compiler(CompilerSettings{{}, dir_.string()});
  CompileResult const first = compiler.compile(fill_request());
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.from_cache);
  ASSERT_FALSE(first.cubin_path.empty());
  EXPECT_TRUE(fs::exists(first.cubin_path));
  EXPECT_TRUE(fs::exists(dir_ / (first.cache_key + ".json")));

  CompileResult const second = compiler.compile(fill_request());
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.compile_ms, 0.0);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.cubin_path, first.cubin_path);
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.lowered_names, first.lowered_names);
  EXPECT_EQ(second.options, first.options);
  EXPECT_EQ(second.log, first.log);
  ASSERT_EQ(second.resources.size(), 1u);
  EXPECT_EQ(second.resources[0].registers, first.resources[0].registers);
  EXPECT_EQ(second.resources[0].lowered_name, first.resources[0].lowered_name);

  // A second Compiler (another process, in effect) sees the same entry.
  CompileResult const other = Compiler(CompilerSettings{{}, dir_.string()}).compile(fill_request());
  EXPECT_TRUE(other.from_cache);
}

TEST_F(CubinCacheTest, KeyFollowsSourceArchNameExpressionsAndOptions) {
  Compiler const compiler(CompilerSettings{{}, dir_.string()});
  std::string const base = compiler.compile(fill_request()).cache_key;
  EXPECT_NE(compiler.compile(fill_request(4)).cache_key, base);
  EXPECT_NE(compiler.compile(fill_request(3, "sm_80")).cache_key, base);
  CompileRequest r = fill_request();
  r.source += "\n// a comment changes the source\n";
  EXPECT_NE(compiler.compile(r).cache_key, base);
  r = fill_request();
  r.extra_options = {"-DX=1"};
  EXPECT_NE(compiler.compile(r).cache_key, base);
  r = fill_request();
  r.source_name = "renamed.cu";  // only a label in diagnostics
  CompileResult const renamed = compiler.compile(r);
  EXPECT_EQ(renamed.cache_key, base);
  EXPECT_TRUE(renamed.from_cache);
}

TEST_F(CubinCacheTest, CorruptEntriesAreIgnoredAndRewritten) {
  Compiler const compiler(CompilerSettings{{}, dir_.string()});
  CompileResult const good = compiler.compile(fill_request());
  ASSERT_TRUE(good.ok);
  fs::path const cubin = good.cubin_path;
  fs::path const json = dir_ / (good.cache_key + ".json");

  auto write = [](fs::path const& p, std::string const& text) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  };
  auto expect_recompiled_then_hit = [&](char const* what) {
    SCOPED_TRACE(what);
    CompileResult const again = compiler.compile(fill_request());
    ASSERT_TRUE(again.ok) << again.log;
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(again.cubin, good.cubin);
    CompileResult const hit = compiler.compile(fill_request());
    EXPECT_TRUE(hit.from_cache);
    EXPECT_EQ(hit.cubin, good.cubin);
  };

  write(cubin, good.cubin.substr(0, good.cubin.size() / 2));  // truncated cubin
  expect_recompiled_then_hit("truncated cubin");
  std::string flipped = good.cubin;
  flipped[flipped.size() / 2] ^= 0x5a;  // same size, different bytes
  write(cubin, flipped);
  expect_recompiled_then_hit("bit flip in cubin");
  write(json, "{ not json");
  expect_recompiled_then_hit("unparsable json");
  write(json, R"({"format":"gemmtune-cubin-entry","version":2})");
  expect_recompiled_then_hit("json missing fields");
  {
    // An entry stored for other key material under the same key: a collision, never a hit.
    std::ifstream in(json);
    nlohmann::json meta = nlohmann::json::parse(in);
    meta["key_material"] = meta["key_material"].get<std::string>() + " ";
    write(json, meta.dump());
  }
  expect_recompiled_then_hit("key material of another compile");
  fs::remove(cubin);
  expect_recompiled_then_hit("missing cubin");
  fs::remove(json);
  expect_recompiled_then_hit("missing json");
}

// The cache answers only for the key material an entry was stored with: two compiles whose
// keys collide each see a miss for the other's entry, however the key was made.
TEST_F(CubinCacheTest, AKeyStoredForOtherMaterialIsAMiss) {
  Compiler const compiler(CompilerSettings{{}, dir_.string()});
  CompileResult const good = compiler.compile(fill_request());
  ASSERT_TRUE(good.ok) << good.log;
  CubinCache const cache(dir_.string());
  std::string const key = "00112233445566778899aabbccddeeff";
  ASSERT_FALSE(cache.store(key, "material of compile A", good).empty());
  EXPECT_FALSE(cache.load(key, "material of compile B"));
  std::optional<CompileResult> const hit = cache.load(key, "material of compile A");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->cubin, good.cubin);
  std::ifstream in(dir_ / (key + ".json"));
  EXPECT_EQ(nlohmann::json::parse(in).at("key_material"), "material of compile A");
}

TEST_F(CubinCacheTest, FailedCompilesAreNotCached) {
  Compiler const compiler(CompilerSettings{{}, dir_.string()});
  CompileRequest r = fill_request();
  r.source += "\nint broken = ;\n";
  CompileResult const first = compiler.compile(r);
  EXPECT_FALSE(first.ok);
  EXPECT_TRUE(first.cubin_path.empty());
  EXPECT_FALSE(compiler.compile(r).from_cache);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CubinCacheTest, ConcurrentWritersOfOneKeyAllSucceed) {
  std::vector<std::future<CompileResult>> results;
  for (int i = 0; i < 6; ++i) {
    results.push_back(std::async(std::launch::async, [this] {
      return Compiler(CompilerSettings{{}, dir_.string()}).compile(fill_request(7));
    }));
  }
  std::string cubin;
  for (auto& f : results) {
    CompileResult const r = f.get();
    ASSERT_TRUE(r.ok) << r.log;
    if (cubin.empty()) cubin = r.cubin;
    EXPECT_EQ(r.cubin, cubin);
  }
  // Exactly one entry, no temporary files left behind.
  std::size_t files = 0;
  for (auto const& e : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 2u);
  EXPECT_TRUE(Compiler(CompilerSettings{{}, dir_.string()}).compile(fill_request(7)).from_cache);
}

TEST_F(CubinCacheTest, UnusableDirectoryIsAnError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  EXPECT_THROW(CubinCache((dir_ / "file").string()), Error);
  EXPECT_THROW(Compiler(CompilerSettings{{}, (dir_ / "file" / "sub").string()}), Error);
}

}  // namespace
}  // namespace gemmtune
