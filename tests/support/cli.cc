#include "support/cli.h"

#include <sys/wait.h>

#include <cstdio>

#include "support/paths.h"

namespace cvm::testing {

CliRun run_cli(const std::string& args, bool with_stderr) {
  CliRun run;
  const std::string command =
      std::string(CVMCHECK_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace cvm::testing
