#include "harness/graph/graph_worker_run.h"

#include <exception>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_wire.h"

namespace cvm::graph {
namespace {

GraphRun worker_failure(const std::string& failure, const std::string& message) {
  GraphRun run;
  run.kind = OutcomeKind::kRuntimeError;
  run.failure = failure;
  run.message = message;
  return run;
}

GraphRun skipped_run(const std::string& reason) {
  GraphRun run;
  run.skipped = true;
  run.skip_reason = reason;
  return run;
}

}  // namespace

GraphRun run_graph_on_worker(WorkerClient& worker, const Registry& registry,
                             const std::string& backend, const Graph& g, const ModelInputs& inputs) {
  uint32_t entries = 0;  // unknown where our loader refuses the model
  try {
    const LoadedGraph l = check_graph(g, registry);
    entries = l.entries;
    if (const Backend* b = registry.find_backend(backend); b != nullptr) {
      for (const LoadedOp& op : l.ops) {
        if (!b->implements(op.op)) return skipped_run(concat(backend, " does not implement ", op.op));
      }
    }
  } catch (const std::exception&) {
    // Refused here: sent all the same, for the worker's loader to judge.
  }
  cvmcheck_worker::GraphRequest request;
  try {
    request = graph_request(g, inputs);
  } catch (const std::exception& e) {
    return skipped_run(concat("the model cannot be sent: ", e.what()));
  }
  ModelResult result;
  try {
    result = worker.run_model(std::move(request));
  } catch (const cvmcheck_worker::ProtocolError& e) {  // over the frame limit: nothing was sent
    return skipped_run(concat("the model cannot be sent: ", e.what()));
  }
  if (!result.failure.empty()) return worker_failure(result.failure, result.message);
  try {
    return run_from_model_reply(g, entries, result.reply);
  } catch (const cvmcheck_worker::ProtocolError& e) {
    return worker_failure("protocol_error", e.what());
  }
}

}  // namespace cvm::graph
