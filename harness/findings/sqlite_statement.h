// A thin RAII layer over SQLite's C API for the findings store: a prepared statement, a write
// transaction, and errors that name the file and say what to do, as RuntimeError.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace cvm {

// RuntimeError for SQLite result `rc` on `path`, in words a user can act on.
[[noreturn]] void throw_sqlite(sqlite3* db, const std::string& path, int rc);

// Runs statements that return no rows.
void exec_sql(sqlite3* db, const std::string& path, const std::string& sql);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  bool step();  // true: a row is ready
  void run();   // steps to the end
  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  int64_t single_int();       // the first column of the only row
  std::string single_text();  // the same, as text

 private:
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE (the write lock at once, so that concurrent writers queue on the busy timeout
// instead of failing on a lock upgrade); rolled back unless commit() is reached.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  sqlite3* db_;
  const std::string& path_;
  bool open_ = true;
};

}  // namespace cvm
