// Two runs of one model compared (docs/graphs.md, "The diff"): the outcome (class and the node
// blamed) and every entry's shape, precision and values, bit for bit. The first differing node
// is named: the first node, in graph order, that one side blames and the other does not (or
// blames with another class), or whose outputs differ. Then the packed outputs (CVMAPIInference's
// bytes) where both runs have one.
#pragma once

#include <optional>
#include <string>

#include "harness/graph/graph.h"
#include "harness/graph/graph_run.h"

namespace cvm::graph {

struct GraphDifference {
  int node = -1;     // the first differing node; -1: the graph as a whole (a load refusal)
  // "outcome", "shape", "precision", "value", "packed" (the packed outputs, where both runs
  // have one, compared after every entry), or a worker's "crash", "hang", "protocol_error"
  std::string kind;
  std::string what;  // one line for people
};

// nullopt when `actual` agrees with `expected` (the oracle's run) on everything both recorded.
std::optional<GraphDifference> diff_runs(const Graph& g, const GraphRun& expected,
                                         const GraphRun& actual);

// "node 3 (conv2d_0)", or "the graph" for -1.
std::string node_label(const Graph& g, int node);

}  // namespace cvm::graph
