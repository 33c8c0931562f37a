// A failing model shrunk to the fewest nodes that still show its failure (docs/graphs.md,
// "Shrinking"), generic over the predicate that says so ("this model still shows this
// signature"). Three steps, each candidate kept only where the predicate holds:
//   1. the failing node's ancestors only (its outputs become the heads);
//   2. entries frozen into parameters with their recorded values: the failing node's producers
//      all at once, then each remaining operator node from the last to the first (a frozen
//      node becomes one parameter per output; what only it consumed goes);
//   3. the remaining nodes removed one by one: a node nothing consumes is dropped (the operator
//      nodes it consumed stay), and a node whose output has the shape of one of its inputs is
//      bypassed (its consumers take that input instead).
// Bounded by a count of predicate calls (each one runs the model on the sides it compares),
// never by time: the same model and the same predicate shrink the same way on any machine.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "cvmcheck/tensor.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"

namespace cvm::graph {

struct Model {
  Graph graph;
  ModelInputs inputs;
};

// Whether a candidate model still shows the failure. An exception it throws counts as "no".
using ModelPredicate = std::function<bool(const Model&)>;

struct ShrunkModel {
  Model model;
  int node = -1;   // the failing node in the shrunk model
  int tries = 0;   // predicate calls made
  int op_nodes_before = 0, op_nodes_after = 0;
};

// Operator nodes of a graph.
int op_node_count(const Graph& g);

// Shrinks `model` whose node `node` fails. `recorded` holds every entry's value as one side
// recorded it (GraphRun::entries, in the model's entry order): what a frozen entry's parameter
// holds (an entry without a recorded value is not frozen). At most `max_tries` predicate calls.
// A model that cannot be shrunk (a node out of range, a malformed graph) comes back as it is.
ShrunkModel shrink_model(const Model& model, int node,
                         const std::vector<std::optional<Tensor>>& recorded,
                         const ModelPredicate& still_fails, int max_tries);

}  // namespace cvm::graph
