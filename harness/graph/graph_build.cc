#include "harness/graph/graph_build.h"

#include <algorithm>

namespace cvm::graph {
namespace {

void add_entry(Graph& g, const Shape& shape, int precision) {
  g.storage_id.push_back(static_cast<int64_t>(g.storage_id.size()));
  g.shape.push_back(shape);
  g.precision.push_back(precision);
  g.dltype.emplace_back("int32");
}

}  // namespace

GraphBuilder::GraphBuilder(std::string version) { g_.version = std::move(version); }

EntryRef GraphBuilder::add_variable(const std::string& name, const Shape& shape, int precision) {
  Node n;
  n.op_type = "null";
  n.name = name;
  g_.nodes.push_back(n);
  g_.op_attrs.emplace_back("{}");
  add_entry(g_, shape, precision);
  return EntryRef{static_cast<uint32_t>(g_.nodes.size() - 1), 0, 0};
}

uint32_t GraphBuilder::add_op(const std::string& op, const std::string& attrs_json,
                              const std::vector<EntryRef>& inputs,
                              const std::vector<Shape>& output_shapes,
                              const std::vector<int>& output_precisions) {
  const auto it = std::find(op_names_.begin(), op_names_.end(), op);
  size_t k = static_cast<size_t>(it - op_names_.begin());
  if (it == op_names_.end()) {
    op_names_.push_back(op);
    op_counts_.push_back(0);
  }
  Node n;
  n.op_type = "cvm_op";
  n.name = op + "_" + std::to_string(op_counts_[k]++);
  n.inputs = inputs;
  // The compiler writes these four from a sorted map.
  n.attrs = {{"flatten_data", "0"},
             {"func_name", op},
             {"num_inputs", std::to_string(inputs.size())},
             {"num_outputs", std::to_string(output_shapes.size())}};
  g_.nodes.push_back(n);
  g_.op_attrs.push_back(attrs_json);
  for (size_t j = 0; j < output_shapes.size(); ++j) {
    add_entry(g_, output_shapes[j], j < output_precisions.size() ? output_precisions[j] : -1);
  }
  return static_cast<uint32_t>(g_.nodes.size() - 1);
}

Graph GraphBuilder::finish(const std::vector<EntryRef>& heads, StoragePlan plan) const {
  Graph g = g_;
  g.heads = heads;
  g.node_row_ptr = row_ptr_of(g);
  g.arg_nodes = arg_nodes_of(g);
  plan_storage(g, plan);
  return g;
}

}  // namespace cvm::graph
