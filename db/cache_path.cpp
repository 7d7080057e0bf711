// Default cache location from the environment, and its parent directory.
#include "db/cache_path.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <system_error>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

std::optional<std::string> env(char const* name) {
  char const* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

}  // namespace

std::filesystem::path resolve_cache_path(std::optional<std::filesystem::path> const& db_option) {
  if (db_option && !db_option->empty()) return *db_option;
  if (auto p = env("GEMMTUNE_DB")) return *p;
  if (auto x = env("XDG_CACHE_HOME"); x && std::filesystem::path(*x).is_absolute()) {
    return std::filesystem::path(*x) / "gemmtune" / "cache.db";
  }
  if (auto h = env("HOME")) return std::filesystem::path(*h) / ".cache" / "gemmtune" / "cache.db";
  throw Error(
      "cannot choose a cache location: none of GEMMTUNE_DB, XDG_CACHE_HOME or HOME is set "
      "(use --db to pick a file)");
}

void create_cache_parent(std::filesystem::path const& db_file) {
  std::filesystem::path const dir = db_file.parent_path();
  if (dir.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return;
  // Create one level at a time so each new directory gets 0700 (create_directories would use
  // the umask's default).
  std::filesystem::path partial;
  for (auto const& part : dir) {
    partial /= part;
    if (std::filesystem::is_directory(partial, ec)) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && !std::filesystem::is_directory(partial, ec)) {
      throw Error("cannot create the cache directory '" + partial.string() + "': " +
                  std::generic_category().message(errno) + " (use --db to pick another file)");
    }
  }
}

}  // namespace gemmtune
