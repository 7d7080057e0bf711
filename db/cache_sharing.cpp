// The journal a cache uses, read from its SQLite header, and the switch between private (WAL)
// and shared (rollback journal, group-writable) caches.
#include "db/cache_sharing.hpp"

#include <fstream>
#include <string>
#include <system_error>

#include <sqlite3.h>

#include "db/schema.hpp"
#include "db/sqlite_handle.hpp"
#include "src/core/error.hpp"

namespace gemmtune {

CacheJournal cache_journal(std::filesystem::path const& path) {
  // Bytes 18 and 19 of the SQLite header, the file format write and read versions: 2 in WAL
  // mode, 1 with a rollback journal.
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  if (in.gcount() != sizeof header) return CacheJournal::kUnknown;
  if (header[18] == 2 && header[19] == 2) return CacheJournal::kWal;
  if (header[18] == 1 && header[19] == 1) return CacheJournal::kRollback;
  return CacheJournal::kUnknown;
}

void set_cache_shared(std::filesystem::path const& path, bool shared) {
  Database db = open_cache(path, Database::Mode::kReadWrite);
  if (db.read_only()) {
    throw Error("'" + path.string() + "' is read-only for this user: only a user who can write "
                "it can change how it is shared");
  }
  std::string const want = shared ? "delete" : "wal";
  if (db.query_text("PRAGMA journal_mode") != want) {
    // Changing the journal needs the only connection to the file.
    int const rc = sqlite3_exec(db.handle(),
                                shared ? "PRAGMA journal_mode = DELETE" : "PRAGMA journal_mode = WAL",
                                nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK || db.query_text("PRAGMA journal_mode") != want) {
      throw Error("cannot change the journal of '" + path.string() +
                  "': another process has the cache open; try again when it is done");
    }
  }
  if (shared) {
    // SQLite gives the journal the database file's permissions: group read and write on the
    // file let the group's writers create, and readers roll back, the journal.
    std::error_code ec;
    std::filesystem::permissions(path,
                                 std::filesystem::perms::group_read | std::filesystem::perms::group_write,
                                 std::filesystem::perm_options::add, ec);
    if (ec) {
      throw Error("cannot give the group read and write permission on '" + path.string() +
                  "': " + ec.message());
    }
  }
}

}  // namespace gemmtune
