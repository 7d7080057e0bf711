// The cache's schema: the application id that marks a file as a gemmtune cache, the ordered
// migrations behind PRAGMA user_version, and open_cache(), which refuses foreign, corrupt or
// newer files without touching them and brings ours up to date in one transaction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "db/sqlite_handle.hpp"

namespace gemmtune {

/// PRAGMA application_id of every gemmtune cache: "gmtn" read as a big-endian int32.
inline constexpr std::int32_t kCacheApplicationId = 0x676d746e;

/// migrations()[v] takes a cache from user_version v to v + 1; the list only ever grows.
std::span<std::string_view const> migrations();

/// The user_version this build creates and reads (the number of migrations).
int cache_schema_version();

/// Opens the cache file for the store. A missing file or an empty SQLite file is initialised
/// (kReadWrite only); an older gemmtune cache is migrated. Throws Error with one line naming
/// the path, what is wrong and "use --db to pick another file" when the file is not SQLite,
/// corrupt, another application's database, or from a newer gemmtune; such files are never
/// written to. Sets busy_timeout (10 s), WAL (unless the cache is shared), synchronous=NORMAL
/// and foreign_keys on. A reader that could not, or should not, create the log's side files
/// beside a write-ahead-log cache reads it immutable.
Database open_cache(std::filesystem::path const& path, Database::Mode mode);

}  // namespace gemmtune
