// The cvmcheck binary started as a child this test can signal (the stop and kill tests), and
// reading a findings store the way a second process does while a run writes it.
#pragma once

#include <sys/types.h>

#include <string>

namespace cvm::testing {

// Starts `sh -c 'SHELL exec ENV cvmcheck ARGS >OUT 2>ERR'`: the returned pid is cvmcheck's own
// (ENV: a command that execs its arguments, e.g. "env VAR=VALUE" or setpriv; SHELL: commands
// before it, e.g. "ulimit -f 1;").
pid_t spawn_cli(const std::string& env, const std::string& args, const std::string& out,
                const std::string& err, const std::string& shell = "");

// Waits for `pid`; its exit status, or 128 + the signal that ended it.
int wait_cli(pid_t pid);

// The integer `sql` gives on the store at `path` (read only; -1 when it cannot be read yet).
int64_t store_int(const std::string& path, const std::string& sql);
// The text of `sql`'s first row (read only; "" when none).
std::string store_text(const std::string& path, const std::string& sql);

// Polls `sql` on the store every 20 ms until it gives at least `at_least`, or the process `pid`
// ended, or 60 s passed (a hung run); true when it did. Decides when to signal, never a verdict.
bool wait_for_store(const std::string& path, const std::string& sql, int64_t at_least, pid_t pid);

// Waits until `pid` catches `signal` (its handler is installed: /proc/PID/status, SigCgt), or it
// ended, or 60 s passed; true when it does.
bool wait_for_handler(pid_t pid, int signal);

// The whole file; "" when absent.
std::string file_text(const std::string& path);

}  // namespace cvm::testing
