// Private and shared caches. A private cache (the default) writes ahead to a log that every
// reader needs beside the file; a shared one uses a rollback journal and group permissions, so
// several users can write it and anyone who can read it reads it without leaving files behind.
#pragma once

#include <filesystem>

namespace gemmtune {

/// How a cache file journals its writes, from its SQLite header.
enum class CacheJournal {
  kWal,       ///< write-ahead log: the default, for a cache one user writes
  kRollback,  ///< rollback journal: a shared cache; readers create no files beside it
  kUnknown,   ///< not a SQLite file, or too short to tell
};
/// The journal of the cache at `path`, read from its header without opening it.
CacheJournal cache_journal(std::filesystem::path const& path);

/// Makes the cache at `path` shared (rollback journal, and group read and write on the file, so
/// several users in its group can write it and anyone who can read it can read it without
/// writing beside it) or private again (write-ahead log). Throws Error when another process has
/// it open or this user cannot write it.
void set_cache_shared(std::filesystem::path const& path, bool shared);

}  // namespace gemmtune
