// RAII wrappers over the SQLite C API: a connection, a prepared statement, and a write
// transaction taken with BEGIN IMMEDIATE. Every failure throws Error carrying sqlite3_errmsg
// and the database path. Only db/ includes this header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace gemmtune {

/// One SQLite connection. Not copyable; movable.
class Database {
 public:
  /// kImmutable reads the main file only, with no locks and no -wal/-shm created: for a cache
  /// the reader may not write beside (schema.cpp decides when that is safe).
  enum class Mode { kReadWrite, kReadOnly, kImmutable };

  /// Opens (in kReadWrite, creating) the file. Sets nothing else: schema.cpp decides what the
  /// file may be used for before anything is written to it.
  Database(std::filesystem::path path, Mode mode);
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&&) = delete;
  Database(Database const&) = delete;
  Database& operator=(Database const&) = delete;

  /// Runs SQL without results (several statements allowed).
  void exec(std::string_view sql);
  /// A single integer from a one-row query (e.g. "PRAGMA user_version").
  std::int64_t query_int(std::string_view sql);
  /// A single text value from a one-row query; empty when the query returns no row.
  std::string query_text(std::string_view sql);

  /// True when the connection cannot write (opened kReadOnly, or the file is not writable).
  bool read_only() const;
  std::int64_t last_insert_rowid() const;
  std::filesystem::path const& path() const { return path_; }
  sqlite3* handle() const { return db_; }

  /// Throws Error "<context> '<path>': <sqlite message>" for a failed call returning `rc`.
  [[noreturn]] void raise(int rc, std::string_view context) const;

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

/// A prepared statement; reset and rebound for each use, finalized on destruction.
class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(Statement const&) = delete;
  Statement& operator=(Statement const&) = delete;

  /// Resets the statement on scope exit, so a statement kept for the life of a store never
  /// holds a read snapshot (or a lock) between calls.
  class Use {
   public:
    explicit Use(Statement& s) : stmt_(s) {}
    ~Use();
    Use(Use const&) = delete;
    Use& operator=(Use const&) = delete;

   private:
    Statement& stmt_;
  };
  /// Resets and clears bindings now, and resets again when the returned guard goes away.
  [[nodiscard]] Use use();

  /// Resets the statement and clears its bindings; returns *this for chaining binds.
  Statement& reset();
  /// Binds by 1-based index. A NaN double is stored as NULL (SQLite has no NaN).
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, char const* value) { return bind(index, std::string_view(value)); }
  Statement& bind_null(int index);
  template <class T>
  Statement& bind(int index, std::optional<T> const& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  /// Advances; true when a row is available.
  bool step();
  /// Steps a statement that returns no rows.
  void run();

  /// Column accessors (0-based). NULL reads as 0, NaN (doubles) or "".
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  bool column_is_null(int column) const;

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

/// BEGIN IMMEDIATE on construction, so the write lock is taken up front (a deferred transaction
/// that reads and then writes can fail with SQLITE_BUSY despite busy_timeout). Rolls back on
/// destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(Transaction const&) = delete;
  Transaction& operator=(Transaction const&) = delete;

  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace gemmtune
