// Builds a well-formed graph node by node, as the original's compiler lays one out: variables
// named `data` and `param_<k>`, operator nodes named `<op>_<k>` with func_name, num_inputs,
// num_outputs and flatten_data, arg_nodes and node_row_ptr from the nodes, dltype int32
// everywhere, and the storage plan asked for (graph_storage.h; one storage per entry by default).
#pragma once

#include <string>
#include <vector>

#include "harness/graph/graph.h"
#include "harness/graph/graph_storage.h"

namespace cvm::graph {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string version = kVersion100);

  // A variable node; returns its entry. The first one named `data` is the model's input.
  EntryRef add_variable(const std::string& name, const Shape& shape, int precision);
  // An operator node with its attribute object (a JSON text), its inputs and each output's
  // shape and precision (the graph file declares them; the loader checks them).
  uint32_t add_op(const std::string& op, const std::string& attrs_json,
                  const std::vector<EntryRef>& inputs, const std::vector<Shape>& output_shapes,
                  const std::vector<int>& output_precisions);

  const Graph& graph() const { return g_; }
  // The graph with these heads (node_row_ptr and arg_nodes filled, storage planned).
  Graph finish(const std::vector<EntryRef>& heads, StoragePlan plan = StoragePlan::kOnePerEntry) const;

 private:
  Graph g_;
  std::vector<int> op_counts_;  // per operator name seen, for unique node names
  std::vector<std::string> op_names_;
};

}  // namespace cvm::graph
