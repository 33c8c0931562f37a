#include "harness/findings/sqlite_statement.h"

#include "cvmcheck/errors.h"

namespace cvm {

void throw_sqlite(sqlite3* db, const std::string& path, int rc) {
  const std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
      throw RuntimeError(concat(path, ": not a findings store (not an SQLite file: ", detail,
                                "); it was left as it is: give --store another path"));
    case SQLITE_CORRUPT:
      throw RuntimeError(concat(path, ": the findings store is damaged (", detail,
                                "); it was left as it is: move it away to start a new one"));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw RuntimeError(concat(path, ": the findings store stayed locked by another writer (",
                                detail, "); try again when that run has ended"));
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      throw RuntimeError(concat(path, ": cannot write the findings store (", detail, ")"));
    default:
      throw RuntimeError(concat(path, ": findings store error: ", detail));
  }
}

void exec_sql(sqlite3* db, const std::string& path, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // sqlite3_errmsg still holds the text
  if (rc != SQLITE_OK) throw_sqlite(db, path, rc);
}

Statement::Statement(sqlite3* db, const std::string& path, const std::string& sql)
    : db_(db), path_(path) {
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(db, path, rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, const std::string& value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, rc);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, rc);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, rc);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(db_, path_, rc);
}

void Statement::run() {
  while (step()) {
  }
}

std::string Statement::text(int column) const {
  const unsigned char* value = sqlite3_column_text(stmt_, column);
  if (value == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(value),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

int64_t Statement::single_int() {
  check(step(), path_, ": a query returned no row");
  return integer(0);
}

std::string Statement::single_text() {
  check(step(), path_, ": a query returned no row");
  return text(0);
}

Transaction::Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
  exec_sql(db, path, "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  exec_sql(db_, path_, "COMMIT");
  open_ = false;
}

}  // namespace cvm
