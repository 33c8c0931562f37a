// The options every subcommand that takes a backend name shares for external backends
// (`exec:COMMAND`, `--backend-def NAME=COMMAND`): docs/backend-protocol.md.
#pragma once

#include <CLI/CLI.hpp>

#include "harness/worker_client/exec_backend.h"
#include "harness/findings/expectations.h"

namespace cvm::cli {

struct ExecCli {
  ExecSettings settings;
  std::string worker_memory = "4G";
};

// Adds --backend-def (repeatable), --call-timeout, --worker-memory and --worker-log-dir.
void add_exec_options(CLI::App* sub, ExecCli& cli);

// The settings, with --worker-memory parsed ("0" for no limit, or bytes with K/M/G).
ExecSettings exec_settings(const ExecCli& cli);

// --xfail FILE (every backend) and --xfail-for BACKEND=FILE, repeatable
// (docs/expected-failures.md), as golden verify and campaign take them.
struct XfailCli {
  std::vector<std::string> for_all, for_one;
};
void add_xfail_options(CLI::App* sub, XfailCli& cli);
ExpectationSet expectations(const XfailCli& cli);

// The names of the --backend-def definitions, in order.
std::vector<std::string> defined_backend_names(const ExecSettings& settings);

}  // namespace cvm::cli
