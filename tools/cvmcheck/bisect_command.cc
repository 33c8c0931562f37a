// cvmcheck bisect ...: the commit that introduced a finding and the one that fixed it
// (docs/bisect.md). The search builds and replays other revisions of the repository, which is
// process and git plumbing rather than anything the harness's libraries do, so it lives in
// tools/bisect/cvm_bisect.py; this subcommand execs it with every argument unchanged, so that
// `cvmcheck bisect --help` is that program's help.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.h"

namespace cvm::cli {
namespace {

// The program beside this binary's source tree: every preset builds into <tree>/<dir>/bin. It is
// found at run time rather than compiled in, so that this object is the same in every worktree
// and ccache shares it between the revisions a bisect builds. CVMCHECK_BISECT_TOOL overrides it
// (a binary moved away from its tree).
std::string bisect_tool(const std::string& self) {
  const char* given = std::getenv("CVMCHECK_BISECT_TOOL");
  if (given != nullptr && *given != '\0') return given;
  const std::filesystem::path tree = std::filesystem::path(self).parent_path().parent_path()
                                         .parent_path();
  return (tree / "tools" / "bisect" / "cvm_bisect.py").string();
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
    self[length > 0 ? length : 0] = '\0';
    if (length > 0) ::setenv("CVMCHECK_BINARY", self, 0);
    const std::string tool = bisect_tool(self);
    if (!std::filesystem::exists(tool)) {
      std::cerr << "cvmcheck bisect: no " << tool
                << " (this binary is away from its source tree: set CVMCHECK_BISECT_TOOL)\n";
      return kExitUsage;
    }
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
