// A planted graph-level bug: a worker that runs whole models (kFlagGraphs) with a wrong storage
// plan. Every node alone is computed correctly (each through the kernels of a built-in backend,
// as `cvmcheck worker` computes its calls), but the model's entries live in shared buffers as a
// runtime with a broken planner would keep them:
// - entries with the same storage_id share one buffer, the graph's plan taken literally;
// - the planner's liveness is wrong: it takes an operator entry as dead after its first
//   consumer, so that consumer's first output is written into the entry's buffer, and a later
//   consumer of the entry reads the overwritten values.
// Only whole models show it: `cvmcheck graphs --backends exec:"build/bin/wrong_storage_worker"`
// finds it (docs/graphs.md, planted_workers/README.md). Usage:
//   wrong_storage_worker [--backend NAME]     (the kernels' backend; default reference)
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_outputs.h"
#include "harness/graph/graph_wire.h"
#include "harness/worker_client/worker_call.h"
#include "harness/worker_client/worker_tensor.h"
#include "registry/registry.h"

namespace cvm::planted {
namespace {

namespace wire = cvmcheck_worker;
using graph::LoadedGraph;
using graph::LoadedOp;

// Each entry's buffer under the wrong plan.
std::vector<size_t> wrong_buffers(const graph::Graph& g, const LoadedGraph& l) {
  std::vector<size_t> buffer(l.entries);
  std::vector<int64_t> storage_ids;  // buffer k holds storage_ids[k]
  for (uint32_t eid = 0; eid < l.entries; ++eid) {
    size_t k = 0;
    while (k < storage_ids.size() && storage_ids[k] != g.storage_id[eid]) ++k;
    if (k == storage_ids.size()) storage_ids.push_back(g.storage_id[eid]);
    buffer[eid] = k;
  }
  std::vector<bool> is_op_entry(l.entries, false), consumed(l.entries, false);
  for (const LoadedOp& op : l.ops) {
    for (uint32_t j = 0; j < op.outputs; ++j) is_op_entry[op.first_output + j] = true;
  }
  for (const LoadedOp& op : l.ops) {
    std::optional<uint32_t> dead;  // an operator entry this node is the first to consume
    for (uint32_t eid : op.inputs) {
      if (is_op_entry[eid] && !consumed[eid] && !dead) dead = eid;
      consumed[eid] = true;
    }
    if (dead) buffer[op.first_output] = buffer[*dead];
  }
  return buffer;
}

wire::ModelReply run_wrong_plan(const std::string& backend, const wire::GraphRequest& request) {
  const graph::ModelFiles model = graph::model_from_request(request);
  const graph::Graph& g = model.graph;
  wire::ModelReply reply;
  LoadedGraph l;
  std::vector<std::optional<Tensor>> bound;
  try {
    l = graph::check_graph(g, registry());
    bound = graph::bind_inputs(g, l, model.inputs);
  } catch (const graph::LoadError& e) {
    return wire::ModelReply::error(wire::Outcome::kLogicError, e.what(), e.rule(), e.node());
  }
  const std::vector<size_t> buffer = wrong_buffers(g, l);
  std::vector<std::optional<Tensor>> buffers(l.entries);
  reply.entries.resize(l.entries);
  for (uint32_t eid = 0; eid < l.entries; ++eid) {
    if (bound[eid]) buffers[buffer[eid]] = bound[eid];
  }
  for (const LoadedOp& op : l.ops) {
    std::vector<Tensor> in;
    for (uint32_t eid : op.inputs) in.push_back(*buffers[buffer[eid]]);
    Outcome o = run_op_outcome(registry(), backend, op.op, op.attrs, in);
    if (o.kind == OutcomeKind::kOk && o.outputs.size() != op.outputs) {
      o.kind = OutcomeKind::kRuntimeError;
      o.message = concat(op.op, ": ", o.outputs.size(), " outputs");
    }
    if (o.kind != OutcomeKind::kOk) {
      reply.outcome = o.kind == OutcomeKind::kLogicError ? wire::Outcome::kLogicError
                                                         : wire::Outcome::kRuntimeError;
      reply.message = o.message;
      reply.rule = o.rule;
      reply.node = static_cast<int32_t>(op.node);
      return reply;
    }
    for (uint32_t j = 0; j < op.outputs; ++j) {
      reply.entries[op.first_output + j] = to_protocol(o.outputs[j]);
      buffers[buffer[op.first_output + j]] = std::move(o.outputs[j]);
    }
  }
  std::vector<Tensor> heads;
  for (uint32_t eid : l.heads) heads.push_back(*buffers[buffer[eid]]);
  try {
    const graph::PackedOutput packed = graph::pack_outputs(g, heads);
    reply.packed = wire::PackedOutput{packed.type_size, packed.bytes};
  } catch (const LogicError&) {
    // No packed output, as the original's CVMAPIInference has none for such heads.
  }
  return reply;
}

}  // namespace
}  // namespace cvm::planted

int main(int argc, char** argv) {
  std::string backend = "reference";
  if (argc == 3 && std::strcmp(argv[1], "--backend") == 0) {
    backend = argv[2];
  } else if (argc != 1) {
    std::cerr << "usage: wrong_storage_worker [--backend NAME]\n";
    return 2;
  }
  const cvm::Backend* b = cvm::registry().find_backend(backend);
  if (b == nullptr || !b->available) {
    std::cerr << "wrong_storage_worker: backend '" << backend << "' is unknown or unavailable\n";
    return 2;
  }
  const int protocol_fd = cvm::take_stdout_for_protocol();
  if (protocol_fd < 0) return 2;
  const auto on_call = [&backend](const cvmcheck_worker::Call& call) {
    return cvm::serve_call(cvm::registry(), backend, call);
  };
  const auto on_model = [&backend](const cvmcheck_worker::GraphRequest& request) {
    return cvm::planted::run_wrong_plan(backend, request);
  };
  return cvmcheck_worker::serve_graphs("wrong-storage", cvm::served_op_names(cvm::registry(), backend),
                                       on_call, on_model, cvmcheck_worker::kFlagReportsRules, {},
                                       0, protocol_fd);
}
