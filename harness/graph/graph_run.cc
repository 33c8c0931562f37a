#include "harness/graph/graph_run.h"

#include <exception>

#include "harness/graph/graph_infer.h"
#include "harness/graph/graph_worker_run.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm::graph {
namespace {

// The load phase of a production backend: every entry's shape and precision, inferred node by
// node from the variables' declared ones; a declared shape the inference disagrees with is the
// loader's refusal.
std::vector<EntrySpec> infer_entries(const Registry& registry, const Graph& g, const LoadedGraph& l) {
  std::vector<EntrySpec> specs(l.entries);
  for (uint32_t nid : l.variables) {
    const uint32_t eid = l.row_ptr[nid];
    specs[eid] = {g.shape[eid], static_cast<int>(g.precision[eid])};
  }
  for (const LoadedOp& op : l.ops) {
    std::vector<EntrySpec> in;
    for (uint32_t eid : op.inputs) in.push_back(specs[eid]);
    std::vector<EntrySpec> out;
    try {
      out = infer_node(registry, op.op, op.attrs, in);
    } catch (const LogicError& e) {
      throw LoadError(e.what(), static_cast<int>(op.node), e.rule());
    }
    if (out.size() != op.outputs) {
      throw LoadError(concat(op.op, ": ", out.size(), " outputs inferred"), static_cast<int>(op.node));
    }
    for (uint32_t j = 0; j < op.outputs; ++j) {
      const uint32_t eid = op.first_output + j;
      if (out[j].shape != g.shape[eid]) {
        throw LoadError(concat(op.op, ": output ", j, " has shape ", shape_str(out[j].shape),
                               ", the graph says ", shape_str(g.shape[eid])),
                        static_cast<int>(op.node), "graph.shape_mismatch");
      }
      specs[eid] = out[j];
    }
  }
  return specs;
}

void fail_run(GraphRun& run, OutcomeKind kind, const std::string& message, const std::string& rule, int node) {
  run.kind = kind;
  run.message = message;
  run.rule = rule;
  run.node = node;
}

// The outputs against what the load phase expects: the declared shape on the oracle (a
// mismatch is the model's fault), the inferred shape and precision elsewhere (a kernel that
// disagrees with its own load phase has failed).
bool outputs_agree(GraphRun& run, const Graph& g, const LoadedOp& op, const std::vector<Tensor>& out,
                   const std::vector<EntrySpec>* specs) {
  const int at = static_cast<int>(op.node);
  if (out.size() != op.outputs) {
    fail_run(run, OutcomeKind::kRuntimeError, concat(op.op, ": ", out.size(), " outputs"), "", at);
    return false;
  }
  for (uint32_t j = 0; j < op.outputs; ++j) {
    const uint32_t eid = op.first_output + j;
    if (specs == nullptr && out[j].shape() != g.shape[eid]) {
      fail_run(run, OutcomeKind::kLogicError,
           concat(op.op, ": output ", j, " has shape ", shape_str(out[j].shape()), ", the graph says ",
                  shape_str(g.shape[eid])),
           "graph.shape_mismatch", at);
      return false;
    }
    if (specs != nullptr && (out[j].shape() != (*specs)[eid].shape || out[j].precision() != (*specs)[eid].precision)) {
      fail_run(run, OutcomeKind::kRuntimeError,
           concat(op.op, ": output ", j, " (", shape_str(out[j].shape()), ", precision ",
                  out[j].precision(), ") differs from the load phase's inference"),
           "", at);
      return false;
    }
  }
  return true;
}

// The packed output from the head entries, or why there is none.
void pack_run(GraphRun& run, const Graph& g, const std::vector<uint32_t>& heads) {
  std::vector<Tensor> values;
  values.reserve(heads.size());
  for (uint32_t eid : heads) values.push_back(*run.entries[eid]);
  try {
    run.packed = pack_outputs(g, values);
  } catch (const std::exception& e) {
    run.packed_error = e.what();
  }
}

}  // namespace

bool runs_as_oracle(const std::string& backend) { return backend == kReferenceBackend; }

GraphRun run_graph(const Registry& registry, const std::string& backend, const Graph& g,
                   const ModelInputs& inputs) {
  if (WorkerClient* worker = model_worker(backend); worker != nullptr) {
    return run_graph_on_worker(*worker, registry, backend, g, inputs);
  }
  GraphRun run;
  LoadedGraph l;
  std::vector<EntrySpec> specs;
  const bool oracle = runs_as_oracle(backend);
  try {
    l = check_graph(g, registry);
    if (const Backend* b = registry.find_backend(backend); b != nullptr) {
      if (!b->available) {
        run.skipped = true;
        run.skip_reason = concat(backend, " is unavailable: ", b->unavailable_reason);
        return run;
      }
      for (const LoadedOp& op : l.ops) {
        if (b->implements(op.op)) continue;
        run.skipped = true;
        run.skip_reason = concat(backend, " does not implement ", op.op);
        return run;
      }
    }
    if (!oracle) specs = infer_entries(registry, g, l);
    run.entries = bind_inputs(g, l, inputs);
  } catch (const LoadError& e) {
    fail_run(run, OutcomeKind::kLogicError, e.what(), e.rule(), e.node());
    return run;
  } catch (const LogicError& e) {
    fail_run(run, OutcomeKind::kLogicError, e.what(), e.rule(), -1);
    return run;
  } catch (const std::exception& e) {
    // std::bad_alloc above all: the placeholders of a model declaring huge entries.
    fail_run(run, OutcomeKind::kRuntimeError, concat("load: ", e.what()), "", -1);
    return run;
  }
  for (const LoadedOp& op : l.ops) {
    std::vector<Tensor> in;
    in.reserve(op.inputs.size());
    for (uint32_t eid : op.inputs) in.push_back(*run.entries[eid]);
    Outcome o = run_op_outcome(registry, backend, op.op, op.attrs, in);
    if (o.kind != OutcomeKind::kOk) {
      fail_run(run, o.kind, o.message, o.rule, static_cast<int>(op.node));
      return run;
    }
    if (!outputs_agree(run, g, op, o.outputs, oracle ? nullptr : &specs)) return run;
    for (uint32_t j = 0; j < op.outputs; ++j) run.entries[op.first_output + j] = std::move(o.outputs[j]);
  }
  pack_run(run, g, l.heads);
  return run;
}

}  // namespace cvm::graph
