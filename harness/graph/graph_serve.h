// `cvmcheck worker --backend NAME` as a worker that runs whole models: the calls as
// serve_backend serves them (harness/worker_client/worker_call.h), and each graph request run by
// run_graph on that backend in process, answered with every entry, the outcome and the packed
// output (docs/backend-protocol.md, "Whole models (flag bit 3)").
#pragma once

#include <string>

#include "cvmcheck/registry.h"
#include "cvmcheck_worker.hpp"

namespace cvm::graph {

// One graph request run on `backend`. Never throws: a model the formats refuse is a logic_error
// reply blaming the graph as a whole; anything unexpected a runtime_error reply.
cvmcheck_worker::ModelReply serve_model(const Registry& registry, const std::string& backend,
                                        const cvmcheck_worker::GraphRequest& request);

// Serves `backend` on in_fd/out_fd until bye or the end of input: serve_backend's hello (its
// operators, rule ids, its kernel paths where it declares some) with kFlagGraphs. Returns the
// exit status (cvmcheck_worker::serve's).
int serve_backend_models(const Registry& registry, const std::string& backend, int in_fd,
                         int out_fd);

}  // namespace cvm::graph
