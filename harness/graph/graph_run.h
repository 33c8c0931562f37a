// Runs a model on one backend of the registry (docs/graphs.md, "Running"): loads it (the
// structural checks of graph_load.h; on a backend other than the reference, every operator
// node's output shapes and precisions inferred first by the production inference, infer/, and
// the declared shapes checked against them), binds its inputs, then runs each operator node in
// order through run_op_outcome, recording every entry's value. The reference is the oracle: it
// has no separate load inference; its own checks run as each node runs, and each output's shape
// is then checked against the graph's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_outputs.h"

namespace cvm::graph {

struct GraphRun {
  OutcomeKind kind = OutcomeKind::kOk;
  std::string message;
  std::string rule;
  int node = -1;  // the graph node blamed for a failure; -1: none, or the graph as a whole
  // Every entry's value where it was bound or computed (up to the failure), in entry order;
  // each tensor carries its precision.
  std::vector<std::optional<Tensor>> entries;
  // A worker's failure during the model ("crash", "hang", "protocol_error"; kind is then
  // runtime_error), as Outcome::failure for a call; empty otherwise.
  std::string failure;
  // What CVMAPIInference writes (graph_outputs.h), after a run that ended ok; none where the
  // heads cannot be packed (packed_error says why) or a worker sent none.
  std::optional<PackedOutput> packed;
  std::string packed_error;
  // The backend is unavailable (no device) or lacks an operator of the graph: nothing ran.
  bool skipped = false;
  std::string skip_reason;
};

// An external backend whose worker runs whole models (its hello has kFlagGraphs) is sent the
// model as one graph request (graph_worker_run.h); any other backend runs it node by node here,
// and a run that ends ok gets its packed output from its heads.
GraphRun run_graph(const Registry& registry, const std::string& backend, const Graph& g,
                   const ModelInputs& inputs);

// The reference's way (no load inference) is taken for this backend.
bool runs_as_oracle(const std::string& backend);

}  // namespace cvm::graph
