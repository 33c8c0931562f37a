// cvmcheck bisect ...: the commit that introduced a finding and the one that fixed it
// (docs/bisect.md). The search builds and replays other revisions of the repository, which is
// process and git plumbing rather than anything the harness's libraries do, so it lives in
// tools/bisect/cvm_bisect.py; this subcommand execs it with every argument unchanged, so that
// `cvmcheck bisect --help` is that program's help.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "commands.h"

namespace cvm::cli {
namespace {

// CVMCHECK_BISECT_TOOL overrides the path compiled in (a binary run away from its source tree).
std::string bisect_tool() {
  const char* given = std::getenv("CVMCHECK_BISECT_TOOL");
  if (given != nullptr && *given != '\0') return given;
  return CVMCHECK_BISECT_SCRIPT;
}

}  // namespace

Action add_bisect_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "bisect", "The commit that introduced a finding, and the one that fixed it "
                "(tools/bisect/cvm_bisect.py; cvmcheck bisect --help)");
  // Everything after `bisect`, --help included, belongs to the Python program.
  sub->set_help_flag();
  sub->prefix_command();
  return [sub] {
    // The program reads a finding from the store with `cvmcheck findings show`: this binary's,
    // unless the caller named one.
    char self[4096];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
      self[length] = '\0';
      ::setenv("CVMCHECK_BINARY", self, 0);
    }
    const std::string tool = bisect_tool();
    std::vector<std::string> args = {"python3", tool};
    for (const std::string& a : sub->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp("python3", argv.data());
    std::cerr << "cvmcheck bisect: cannot run python3 " << tool << ": " << std::strerror(errno)
              << " (install python3, or set CVMCHECK_BISECT_TOOL)\n";
    return kExitUsage;
  };
}

}  // namespace cvm::cli
