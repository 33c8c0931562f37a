#include "harness/graph/graph_serve.h"

#include <exception>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_wire.h"
#include "harness/worker_client/worker_call.h"

namespace cvm::graph {
namespace wire = cvmcheck_worker;

wire::ModelReply serve_model(const Registry& registry, const std::string& backend,
                             const wire::GraphRequest& request) {
  try {
    const ModelFiles model = model_from_request(request);
    return model_reply_from_run(run_graph(registry, backend, model.graph, model.inputs));
  } catch (const LogicError& e) {
    return wire::ModelReply::error(wire::Outcome::kLogicError, e.what(), e.rule());
  } catch (const std::exception& e) {
    return wire::ModelReply::error(wire::Outcome::kRuntimeError, e.what());
  } catch (...) {
    return wire::ModelReply::error(wire::Outcome::kRuntimeError, "unknown exception");
  }
}

int serve_backend_models(const Registry& registry, const std::string& backend, int in_fd,
                         int out_fd) {
  const auto on_call = [&registry, &backend](const wire::Call& call) {
    return serve_call(registry, backend, call);
  };
  const auto on_model = [&registry, &backend](const wire::GraphRequest& request) {
    return serve_model(registry, backend, request);
  };
  const Backend* b = registry.find_backend(backend);
  const bool declares_paths = b != nullptr && b->available && !b->paths.empty();
  return wire::serve_graphs(backend, served_op_names(registry, backend), on_call, on_model,
                            wire::kFlagReportsRules | (declares_paths ? wire::kFlagPaths : 0u),
                            served_paths(registry, backend), in_fd, out_fd);
}

}  // namespace cvm::graph
