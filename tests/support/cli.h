// Runs the cvmcheck binary as a user would, for the command-line tests.
#pragma once

#include <string>

namespace cvm::testing {

struct CliRun {
  int status = -1;  // the exit status; -1 when it did not exit normally
  std::string out;  // stdout, and stderr too when asked
};

// `cvmcheck ARGS` through the shell; stderr joins `out` with `with_stderr`, else is dropped.
CliRun run_cli(const std::string& args, bool with_stderr);

}  // namespace cvm::testing
