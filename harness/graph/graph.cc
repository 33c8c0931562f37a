#include "harness/graph/graph.h"

namespace cvm::graph {
namespace {

bool same_node(const Node& a, const Node& b) {
  return a.op_type == b.op_type && a.name == b.name && a.inputs == b.inputs &&
         a.attrs == b.attrs && a.precision == b.precision;
}

}  // namespace

std::string Node::operator_name() const {
  const std::string func = attr("func_name");
  size_t i = func.size();
  while (i > 0 && func[i - 1] >= '0' && func[i - 1] <= '9') --i;
  if (i > 0 && func[i - 1] == '_') return func.substr(0, i - 1);
  return func;
}

std::string Node::attr(const std::string& key) const {
  std::string value;
  for (const auto& [k, v] : attrs) {
    if (k == key) value = v;  // the last one, as the runtime's reader keeps it
  }
  return value;
}

bool Graph::operator==(const Graph& o) const {
  if (nodes.size() != o.nodes.size()) return false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!same_node(nodes[i], o.nodes[i])) return false;
  }
  return version == o.version && arg_nodes == o.arg_nodes && node_row_ptr == o.node_row_ptr &&
         heads == o.heads && postprocess == o.postprocess && storage_id == o.storage_id &&
         shape == o.shape && precision == o.precision && dltype == o.dltype &&
         device_index == o.device_index && op_attrs == o.op_attrs;
}

uint32_t output_count(const std::string& op) {
  return op == "get_valid_counts" || op == "get_valid_count" ? 2 : 1;
}

std::vector<uint32_t> row_ptr_of(const Graph& g) {
  std::vector<uint32_t> row_ptr{0};
  for (const Node& n : g.nodes) {
    row_ptr.push_back(row_ptr.back() + (n.is_variable() ? 1 : output_count(n.operator_name())));
  }
  return row_ptr;
}

std::vector<uint32_t> arg_nodes_of(const Graph& g) {
  std::vector<uint32_t> args;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].is_variable()) args.push_back(i);
  }
  return args;
}

}  // namespace cvm::graph
