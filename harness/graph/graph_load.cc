#include "harness/graph/graph_load.h"

#include <algorithm>
#include <set>

#include "cvmcheck/precision.h"
#include "harness/graph/graph_storage.h"

namespace cvm::graph {
namespace {

template <typename... Parts>
[[noreturn]] void refuse(int node, const Parts&... parts) {
  throw LoadError(concat(parts...), node);
}

void check_names(const Graph& g) {
  std::set<std::string> names;
  for (uint32_t nid : g.arg_nodes) {
    if (nid >= g.nodes.size()) refuse(-1, "arg_nodes names node ", nid, " of ", g.nodes.size());
    if (!names.insert(g.nodes[nid].name).second) {
      refuse(static_cast<int>(nid), "node name ", g.nodes[nid].name, " duplicated in graph");
    }
  }
}

// The operator, its attributes and its input count (the loader's LoadOpAndAttrs).
LoadedOp resolve(const Graph& g, uint32_t nid, const Registry& registry) {
  const Node& n = g.nodes[nid];
  const int at = static_cast<int>(nid);
  LoadedOp op;
  op.node = nid;
  op.op = n.operator_name();
  const OpInfo* info = registry.find_op(op.op);
  if (info == nullptr) refuse(at, "node ", n.name, ": unknown operator '", op.op, "'");
  try {
    op.attrs = parse_attrs_json(g.op_attrs[nid]);
    parse_attrs(info->attrs, op.attrs);
  } catch (const LogicError& e) {
    throw LoadError(concat("node ", n.name, ": ", e.what()), at, e.rule());
  }
  const auto count = static_cast<int64_t>(n.inputs.size());
  if (count < info->min_inputs || (info->max_inputs != OpInfo::kUnbounded && count > info->max_inputs)) {
    refuse(at, "node ", n.name, ": ", count, " inputs for operator ", op.op);
  }
  op.outputs = output_count(op.op);
  return op;
}

void check_storage(const Graph& g, const LoadedGraph& l) {
  if (g.storage_id.size() != l.entries) refuse(-1, "storage_id has ", g.storage_id.size(), " entries, not ", l.entries);
  for (int64_t sid : g.storage_id) {
    if (sid < 0) refuse(-1, "storage id ", sid, " below 0");
  }
  for (const LoadedOp& op : l.ops) {
    if (loader_allows_in_place(op.op)) continue;
    for (uint32_t j = 0; j < op.outputs; ++j) {
      for (uint32_t in : op.inputs) {
        if (g.storage_id[op.first_output + j] == g.storage_id[in]) {
          refuse(static_cast<int>(op.node), "operator ", op.op, " shares storage ",
                 g.storage_id[in], " between an input and its output");
        }
      }
    }
  }
}

void check_shapes_and_precisions(const Graph& g, const LoadedGraph& l) {
  if (g.shape.size() != l.entries) refuse(-1, "shape has ", g.shape.size(), " entries, not ", l.entries);
  for (const Shape& s : g.shape) {
    if (s.empty() || s.size() > static_cast<size_t>(kMaxNdim)) refuse(-1, "a shape of ", s.size(), " dims");
    int64_t size = 1;
    for (int64_t d : s) {
      if (d <= 0 || d > kMaxDim) refuse(-1, "a dimension of ", d);
      size *= d;
      if (size > kMaxElements) refuse(-1, "a shape of more than 2^30 elements");
    }
  }
  if (g.precision.size() != l.entries) refuse(-1, "precision has ", g.precision.size(), " entries, not ", l.entries);
  for (int64_t p : g.precision) {
    if (p != -1 && (p < kMinPrecision || p > kMaxPrecision)) refuse(-1, "precision ", p);
  }
  if (g.device_index && !g.device_index->empty()) refuse(-1, "device_index must be empty");
}

void check_version(const Graph& g, const LoadedGraph& l) {
  if (g.version == kVersion110) return;  // node_row_ptr and arg_nodes are recomputed
  if (g.version != kVersion100) refuse(-1, "graph version ", g.version, " not supported");
  if (g.dltype.size() != l.entries) refuse(-1, "dltype has ", g.dltype.size(), " entries, not ", l.entries);
  for (const std::string& t : g.dltype) {
    if (t != "int32") refuse(-1, "dltype ", t, " not supported");
  }
  if (g.node_row_ptr != l.row_ptr) refuse(-1, "node_row_ptr differs from the nodes'");
  if (g.arg_nodes != l.variables) refuse(-1, "arg_nodes differs from the variable nodes");
}

// Inputs before their node, each naming an existing output; heads likewise.
void check_order(const Graph& g, LoadedGraph& l) {
  auto entry = [&](const EntryRef& e, uint32_t before, int at) {
    if (e.node >= before) refuse(at, "the graph does not follow the topological order");
    if (e.index >= l.row_ptr[e.node + 1] - l.row_ptr[e.node]) refuse(at, "an entry's output index ", e.index);
    return entry_index(l.row_ptr, e);
  };
  for (LoadedOp& op : l.ops) {
    for (const EntryRef& e : g.nodes[op.node].inputs) op.inputs.push_back(entry(e, op.node, static_cast<int>(op.node)));
  }
  for (const EntryRef& e : g.heads) l.heads.push_back(entry(e, static_cast<uint32_t>(g.nodes.size()), -1));
  if (l.heads.empty()) refuse(-1, "no heads");
}

// After the precision list's size is checked.
void check_variable_precisions(const Graph& g, const LoadedGraph& l) {
  for (uint32_t nid : l.variables) {
    if (g.precision[l.row_ptr[nid]] == -1) {
      refuse(static_cast<int>(nid), "variable node ", g.nodes[nid].name, "'s precision has not been set");
    }
  }
}

}  // namespace

LoadedGraph check_graph(const Graph& g, const Registry& registry) {
  check_names(g);
  if (g.op_attrs.size() != g.nodes.size()) refuse(-1, "op_attrs has ", g.op_attrs.size(), " entries for ", g.nodes.size(), " nodes");
  LoadedGraph l;
  l.row_ptr.push_back(0);
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    uint32_t outputs = 1;
    if (g.nodes[nid].is_variable()) {
      l.variables.push_back(nid);
    } else {
      l.ops.push_back(resolve(g, nid, registry));
      l.ops.back().first_output = l.row_ptr.back();
      outputs = l.ops.back().outputs;
    }
    l.row_ptr.push_back(l.row_ptr.back() + outputs);
  }
  l.entries = l.row_ptr.back();
  check_order(g, l);  // before any per-entry lookup through an input (the loader's is later)
  check_storage(g, l);
  check_shapes_and_precisions(g, l);
  check_version(g, l);
  check_variable_precisions(g, l);
  return l;
}

std::vector<std::optional<Tensor>> bind_inputs(const Graph& g, const LoadedGraph& l,
                                               const ModelInputs& inputs) {
  std::vector<std::optional<Tensor>> bound(l.entries);
  auto bind = [&](const std::string& name, const Tensor& t) {
    const auto it = std::find_if(l.variables.begin(), l.variables.end(),
                                 [&](uint32_t nid) { return g.nodes[nid].name == name; });
    if (it == l.variables.end()) refuse(-1, "cannot find `", name, "` among the inputs");
    const int at = static_cast<int>(*it);
    const uint32_t eid = l.row_ptr[*it];
    if (t.shape() != g.shape[eid]) refuse(at, "input ", name, " has shape ", shape_str(t.shape()), ", the graph says ", shape_str(g.shape[eid]));
    const int p = static_cast<int>(g.precision[eid]);
    const bool is_data = name == kDataName;
    std::vector<int32_t> values = t.values();
    for (size_t i = 0; i < values.size(); ++i) {
      if (!is_data && !fits_precision(values[i], p)) {
        refuse(at, "parameter ", name, " at index ", i, " value ", values[i], " exceeds precision ", p);
      }
      values[i] = static_cast<int32_t>(std::clamp<int64_t>(values[i], -alpha(p), alpha(p)));
    }
    // int8 storage stays int8 where the precision allows it (the runtime widens every input;
    // the values are the same).
    const DType dtype = t.dtype() == DType::kInt8 && p <= 8 ? DType::kInt8 : DType::kInt32;
    bound[eid] = Tensor::from_values(t.shape(), values, p, dtype);
  };
  for (const NamedTensor& p : inputs.params) bind(p.first, p.second);
  if (inputs.data) bind(kDataName, *inputs.data);
  for (uint32_t nid : l.variables) {
    if (!bound[l.row_ptr[nid]]) refuse(static_cast<int>(nid), "input ", g.nodes[nid].name, " has not been loaded");
  }
  return bound;
}

}  // namespace cvm::graph
