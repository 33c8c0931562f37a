#include "support/spawned_cli.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "support/paths.h"

namespace cvm::testing {

pid_t spawn_cli(const std::string& env, const std::string& args, const std::string& out,
                const std::string& err, const std::string& shell) {
  const std::string command = shell + " exec " + env + " " + CVMCHECK_BINARY + " " + args + " >'" + out +
                              "' 2>'" + err + "'";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

int wait_cli(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

// Runs `sql` read-only; `row` gets the first row's first column as text (unset when no row).
bool query(const std::string& path, const std::string& sql, std::string& row, bool& has_row) {
  sqlite3* db = nullptr;
  has_row = false;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  bool ok = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK;
  if (ok) {
    const int rc = sqlite3_step(stmt);
    ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (rc == SQLITE_ROW) {
      has_row = true;
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      row = text != nullptr ? reinterpret_cast<const char*>(text) : "";
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return ok;
}

}  // namespace

int64_t store_int(const std::string& path, const std::string& sql) {
  std::string row;
  bool has_row = false;
  if (!query(path, sql, row, has_row) || !has_row) return -1;
  return std::stoll("0" + row);
}

std::string store_text(const std::string& path, const std::string& sql) {
  std::string row;
  bool has_row = false;
  query(path, sql, row, has_row);
  return row;
}

bool wait_for_store(const std::string& path, const std::string& sql, int64_t at_least, pid_t pid) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    if (::access(path.c_str(), F_OK) == 0 && store_int(path, sql) >= at_least) return true;
    if (::kill(pid, 0) != 0) return false;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // ended (and now reaped)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

bool wait_for_handler(pid_t pid, int signal) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const std::string status = "/proc/" + std::to_string(pid) + "/status";
  while (std::chrono::steady_clock::now() < give_up) {
    const std::string text = file_text(status);
    const size_t at = text.find("SigCgt:");
    if (at == std::string::npos) return false;  // ended
    const uint64_t caught = std::stoull(text.substr(at + 7), nullptr, 16);
    if ((caught >> (signal - 1)) & 1) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace cvm::testing
