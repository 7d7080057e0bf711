// Cache location: --db, then GEMMTUNE_DB, XDG_CACHE_HOME, HOME.
#include "db/cache_path.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

/// Sets or clears the three variables for one test and restores them afterwards.
class CachePathEnv : public testing::Test {
 protected:
  void SetUp() override {
    for (char const* n : kNames) {
      char const* v = std::getenv(n);
      saved_.push_back(v ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(n);
    }
  }
  void TearDown() override {
    for (std::size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i]) ::setenv(kNames[i], saved_[i]->c_str(), 1);
      else ::unsetenv(kNames[i]);
    }
  }
  static constexpr char const* kNames[] = {"GEMMTUNE_DB", "XDG_CACHE_HOME", "HOME"};
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(CachePathEnv, HomeFallback) {
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(resolve_cache_path(), "/home/u/.cache/gemmtune/cache.db");
}

TEST_F(CachePathEnv, XdgBeatsHome) {
  ::setenv("HOME", "/home/u", 1);
  ::setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
  EXPECT_EQ(resolve_cache_path(), "/var/cache/u/gemmtune/cache.db");
}

TEST_F(CachePathEnv, RelativeOrEmptyXdgIsIgnored) {
  ::setenv("HOME", "/home/u", 1);
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
  EXPECT_EQ(resolve_cache_path(), "/home/u/.cache/gemmtune/cache.db");
  ::setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(resolve_cache_path(), "/home/u/.cache/gemmtune/cache.db");
}

TEST_F(CachePathEnv, EnvironmentVariableBeatsXdg) {
  ::setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
  ::setenv("GEMMTUNE_DB", "/data/tune.db", 1);
  EXPECT_EQ(resolve_cache_path(), "/data/tune.db");
}

TEST_F(CachePathEnv, DbOptionBeatsEverything) {
  ::setenv("GEMMTUNE_DB", "/data/tune.db", 1);
  EXPECT_EQ(resolve_cache_path(std::filesystem::path("mine.db")), "mine.db");
  // An empty --db value is no choice at all.
  EXPECT_EQ(resolve_cache_path(std::filesystem::path()), "/data/tune.db");
}

TEST_F(CachePathEnv, NothingSetIsAClearError) {
  try {
    resolve_cache_path();
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("--db"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gemmtune
