// SQLite RAII wrappers: errors become gemmtune::Error with the message and the file path.
#include "db/sqlite_handle.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include <sqlite3.h>

#include "src/core/error.hpp"

namespace gemmtune {

namespace {

/// "file:" URI of a path, with the characters a URI gives meaning to percent-encoded.
std::string file_uri(std::filesystem::path const& path, std::string_view query) {
  std::string uri = "file:";
  for (char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  return uri + "?" + std::string(query);
}

}  // namespace

Database::Database(std::filesystem::path path, Mode mode) : path_(std::move(path)) {
  int rc = SQLITE_OK;
  if (mode == Mode::kImmutable) {
    std::string const uri = file_uri(path_, "immutable=1");
    rc = sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  } else {
    int const flags = (mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  }
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open the cache database '" + path_.string() + "': " + msg +
                " (use --db to pick another file)");
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() {
  // Statements are owned by objects destroyed before the connection; close_v2 would defer the
  // close if one were left.
  if (db_) sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : path_(std::move(other.path_)), db_(std::exchange(other.db_, nullptr)) {}

void Database::raise(int rc, std::string_view context) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    msg += " (another gemmtune process holds the cache; try again when it is done)";
  } else if ((rc & 0xff) == SQLITE_READONLY) {
    msg += " (the cache is read-only; use --db to pick a writable file)";
  } else if ((rc & 0xff) == SQLITE_FULL) {
    msg += " (the disk is full)";
  }
  throw Error(std::string(context) + " '" + path_.string() + "': " + msg);
}

void Database::exec(std::string_view sql) {
  std::string const text(sql);
  int const rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    std::string shown = text.substr(text.find_first_not_of(" \n"), 40);
    raise(rc, "'" + shown + "' failed on the cache database");
  }
}

std::int64_t Database::query_int(std::string_view sql) {
  Statement s(*this, sql);
  return s.step() ? s.column_int(0) : 0;
}

std::string Database::query_text(std::string_view sql) {
  Statement s(*this, sql);
  return s.step() ? s.column_text(0) : std::string();
}

bool Database::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

Statement::Statement(Database& db, std::string_view sql) : db_(&db), sql_(sql) {
  int const rc = sqlite3_prepare_v3(db.handle(), sql_.data(), static_cast<int>(sql_.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.raise(rc, "cannot read the cache database");
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), sql_(std::move(other.sql_)) {}

Statement::Use::~Use() { sqlite3_reset(stmt_.stmt_); }

Statement::Use Statement::use() {
  reset();
  return Use(*this);
}

Statement& Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  int const rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_->raise(rc, "cannot bind a value for the cache database");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (std::isnan(value)) return bind_null(index);
  int const rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_->raise(rc, "cannot bind a value for the cache database");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  int const rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
  if (rc != SQLITE_OK) db_->raise(rc, "cannot bind a value for the cache database");
  return *this;
}

Statement& Statement::bind_null(int index) {
  int const rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_->raise(rc, "cannot bind a value for the cache database");
  return *this;
}

bool Statement::step() {
  int const rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->raise(rc, sqlite3_stmt_readonly(stmt_) ? "cannot read the cache database"
                                              : "cannot write to the cache database");
}

void Statement::run() {
  while (step()) {
  }
}

std::int64_t Statement::column_int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double Statement::column_double(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nan("");
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::column_text(int column) const {
  auto const* p = reinterpret_cast<char const*>(sqlite3_column_text(stmt_, column));
  if (!p) return {};
  return std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) {
    // Best effort: a failed rollback leaves SQLite to roll back when the connection closes.
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gemmtune
