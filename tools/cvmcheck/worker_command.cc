// cvmcheck worker --backend NAME: serves one built-in backend over the worker protocol
// (worker_sdk/include/cvmcheck_worker.hpp) on stdin/stdout, diagnostics on stderr. It makes any
// built-in backend an external one (`--backend exec:"cvmcheck worker --backend optimized"`), so
// the harness's client is checked against backends whose answers are known, and it is the model
// of a well-behaved worker. It runs whole models too (kFlagGraphs): run_graph on that backend.
#include <csignal>
#include <iostream>

#include "registry/registry.h"
#include "commands.h"
#include "harness/graph/graph_serve.h"
#include "harness/worker_client/worker_call.h"

namespace cvm::cli {

Action add_worker_command(CLI::App& app) {
  auto backend = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "worker", "Serve a built-in backend over the worker protocol on stdin/stdout");
  sub->add_option("--backend", *backend, "Backend to serve (e.g. reference, optimized/avx2)")
      ->required();
  return [backend] {
    const Backend* b = registry().find_backend(*backend);
    if (b == nullptr) {
      std::cerr << "cvmcheck worker: unknown backend '" << *backend << "'\n";
      return kExitUsage;
    }
    if (!b->available) {
      // Still answers: a hello with no operators, so the harness reports the backend as
      // implementing nothing (skipped) rather than as a worker that broke the protocol.
      std::cerr << "cvmcheck worker: backend '" << *backend
                << "' is unavailable: " << b->unavailable_reason << "\n";
    }
    // A harness that goes away mid-reply then ends the worker with a write error on stderr
    // rather than a silent SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    const int protocol_fd = take_stdout_for_protocol();
    if (protocol_fd < 0) {
      std::cerr << "cvmcheck worker: cannot set up stdout for the protocol\n";
      return kExitUsage;
    }
    return graph::serve_backend_models(registry(), *backend, /*in_fd=*/0, protocol_fd);
  };
}

}  // namespace cvm::cli
