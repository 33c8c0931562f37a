// Loading a model as the original's loader does (docs/graphs.md, "Loading"): the graph's
// structure checked in the loader's order (op_attrs per node, each operator looked up and its
// input count checked, storage ids, in-place sharing, shapes within the limits, precisions,
// device_index, the version's rules for node_row_ptr, arg_nodes and dltype, topological order,
// heads), then the parameters set by name (shape and range checked) and the data input clamped
// to its precision. Every refusal is a LogicError naming the node it blames (or none).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/registry.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_params.h"

namespace cvm::graph {

// A refusal of the loader, blaming graph node `node` (-1: the graph as a whole).
class LoadError : public LogicError {
 public:
  LoadError(const std::string& what, int node, std::string rule = "graph.load")
      : LogicError(what, std::move(rule)), node_(node) {}
  int node() const { return node_; }

 private:
  int node_;
};

// One operator node, resolved.
struct LoadedOp {
  uint32_t node = 0;  // index in Graph::nodes
  std::string op;     // the operator name the runtime looks up
  nlohmann::json attrs;
  std::vector<uint32_t> inputs;  // entry indices
  uint32_t first_output = 0;
  uint32_t outputs = 1;
};

struct LoadedGraph {
  std::vector<uint32_t> row_ptr;    // as the nodes define it
  std::vector<uint32_t> variables;  // the variable nodes, in order
  std::vector<LoadedOp> ops;        // the operator nodes, in order
  std::vector<uint32_t> heads;      // entry indices
  uint32_t entries = 0;
};

// The structural checks, in the loader's order. LoadError.
LoadedGraph check_graph(const Graph& g, const Registry& registry);

// The model's inputs: the data tensor (the variable named `data`) and the parameters by name.
struct ModelInputs {
  std::optional<Tensor> data;
  std::vector<NamedTensor> params;
};

// Every variable entry's tensor, in entry order (nullopt for operator entries): each parameter
// by name (an unknown name, a missing parameter, a shape differing from the graph's, a value
// outside its declared precision: LoadError), the data clamped to its declared precision.
std::vector<std::optional<Tensor>> bind_inputs(const Graph& g, const LoadedGraph& loaded,
                                               const ModelInputs& inputs);

}  // namespace cvm::graph
