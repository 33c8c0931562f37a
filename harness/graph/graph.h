// A model in the original CVM runtime's own file format (docs/graphs.md): the graph as its JSON
// holds it (nodes, arg_nodes, node_row_ptr, heads, and per entry storage_id, shape, precision,
// dltype, op_attrs), field for field, so that a malformed model can be held and written as well
// as a valid one. Checking it (what the original's loader refuses) is graph_load.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/tensor.h"

namespace cvm::graph {

inline constexpr const char* kVersion100 = "cvm_1.0.0";
inline constexpr const char* kVersion110 = "cvm_1.1.0";
// The name of the one variable node that takes the model's input (the others are parameters).
inline constexpr const char* kDataName = "data";

// One output of one node: `[node_id, index, version]` in the file.
struct EntryRef {
  uint32_t node = 0;
  uint32_t index = 0;
  uint32_t version = 0;
  bool operator==(const EntryRef& o) const {
    return node == o.node && index == o.index && version == o.version;
  }
};

// A node: a variable ("null": the input `data` or a parameter) or an operator ("cvm_op").
struct Node {
  std::string op_type = "null";
  std::string name;
  std::vector<EntryRef> inputs;
  // The node's own "attrs" object, as written (string values): for an operator func_name,
  // num_inputs, num_outputs, flatten_data; empty for a variable.
  std::vector<std::pair<std::string, std::string>> attrs;
  std::optional<int64_t> precision;  // the node-level "precision" key, which the loader ignores

  bool is_variable() const { return op_type == "null"; }
  // The operator as the runtime looks it up: func_name less one trailing "_<digits>".
  std::string operator_name() const;
  std::string attr(const std::string& key) const;  // "" when absent
};

struct Graph {
  std::string version = kVersion100;
  std::vector<Node> nodes;
  std::vector<uint32_t> arg_nodes;
  std::vector<uint32_t> node_row_ptr;  // empty: not written (the loader accepts its absence)
  std::vector<EntryRef> heads;
  std::optional<std::string> postprocess;  // "argmax", "detection"; absent: none

  // Per entry (node_row_ptr order).
  std::vector<int64_t> storage_id;
  std::vector<Shape> shape;
  std::vector<int64_t> precision;
  std::vector<std::string> dltype;
  std::optional<std::vector<int64_t>> device_index;  // the loader requires it absent or empty
  // Per node: the operator's attribute object as a JSON text ("{}" for a variable).
  std::vector<std::string> op_attrs;

  bool operator==(const Graph& o) const;
};

// The number of outputs of an operator of the CVM set (get_valid_counts has two).
uint32_t output_count(const std::string& op);

// node_row_ptr and arg_nodes as the nodes define them (each operator's output count from
// output_count), the values the loader of version cvm_1.0.0 requires.
std::vector<uint32_t> row_ptr_of(const Graph& g);
std::vector<uint32_t> arg_nodes_of(const Graph& g);

// The flat entry index of `e` under row_ptr (no bounds check: the caller checked).
inline uint32_t entry_index(const std::vector<uint32_t>& row_ptr, const EntryRef& e) {
  return row_ptr[e.node] + e.index;
}

}  // namespace cvm::graph
