// A model run by a worker that runs whole models (its hello has cvmcheck_worker::kFlagGraphs):
// the model goes as one graph request, the model reply comes back as a GraphRun (docs/graphs.md,
// "Running"). run_graph takes this way for such a backend.
#pragma once

#include <string>

#include "cvmcheck/registry.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_run.h"
#include "harness/worker_client/worker_client.h"

namespace cvm::graph {

// Skipped where the model loads here and uses an operator the worker's hello does not list, or
// cannot be sent (a graph no file can hold, a request over the frame limit). A model our loader
// refuses is sent all the same: the worker's loader is under test. The worker's crash, hang or
// malformed reply (a frame, or a reply that cannot be this graph's) is a runtime_error run with
// GraphRun::failure set, blaming the graph as a whole.
GraphRun run_graph_on_worker(WorkerClient& worker, const Registry& registry,
                             const std::string& backend, const Graph& g, const ModelInputs& inputs);

}  // namespace cvm::graph
