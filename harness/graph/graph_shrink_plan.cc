#include "harness/graph/graph_shrink_plan.h"

#include <algorithm>
#include <map>

namespace cvm::graph {
namespace {

uint32_t outputs_of(const std::vector<uint32_t>& row_ptr, size_t n) {
  return row_ptr[n + 1] - row_ptr[n];
}

bool existing_output(const std::vector<uint32_t>& row_ptr, const EntryRef& e, size_t before) {
  return e.node < before && e.index < outputs_of(row_ptr, e.node);
}

// The model under construction: the original's entries moved to their new places.
struct ModelWriter {
  const Graph& g;
  Model out;
  std::map<uint32_t, EntryRef> moved;  // original entry -> its new place
  int64_t fresh_storage = 0;

  void add_entry(int64_t storage, const Shape& shape, int64_t precision, const std::string& dltype) {
    out.graph.storage_id.push_back(storage);
    out.graph.shape.push_back(shape);
    out.graph.precision.push_back(precision);
    if (!g.dltype.empty()) out.graph.dltype.push_back(dltype);
  }
  uint32_t add_node(Node n, const std::string& op_attrs) {
    out.graph.nodes.push_back(std::move(n));
    out.graph.op_attrs.push_back(op_attrs);
    return static_cast<uint32_t>(out.graph.nodes.size() - 1);
  }
  std::string dltype_of(uint32_t eid) const {
    return eid < g.dltype.size() ? g.dltype[eid] : std::string("int32");
  }
};

void copy_variable(const Model& m, uint32_t n, uint32_t eid, ModelWriter& w) {
  const Node& src = m.graph.nodes[n];
  const uint32_t at = w.add_node(src, m.graph.op_attrs[n]);
  w.add_entry(m.graph.storage_id[eid], m.graph.shape[eid], m.graph.precision[eid], w.dltype_of(eid));
  w.moved[eid] = EntryRef{at, 0, 0};
  if (src.name == kDataName) {
    w.out.inputs.data = m.inputs.data;
    return;
  }
  for (const NamedTensor& p : m.inputs.params) {
    if (p.first == src.name) w.out.inputs.params.push_back(p);
  }
}

// A frozen node: one parameter per output, holding its recorded value, in a storage of its own.
bool freeze_node(const Graph& g, uint32_t n, uint32_t first, uint32_t outputs,
                 const std::vector<std::optional<Tensor>>& recorded, ModelWriter& w) {
  for (uint32_t j = 0; j < outputs; ++j) {
    const uint32_t eid = first + j;
    if (eid >= recorded.size() || !recorded[eid]) return false;
    const Tensor& value = *recorded[eid];
    Node v;
    v.name = g.nodes[n].name + "_frozen" + (outputs > 1 ? "_" + std::to_string(j) : std::string());
    const uint32_t at = w.add_node(v, "{}");
    w.add_entry(w.fresh_storage++, value.shape(), value.precision(), "int32");
    w.moved[eid] = EntryRef{at, 0, 0};
    w.out.inputs.params.emplace_back(v.name, value);
  }
  return true;
}

bool copy_op(const Graph& g, const ShrinkPlan& p, const std::vector<uint32_t>& row_ptr, uint32_t n,
             ModelWriter& w) {
  Node c = g.nodes[n];
  c.inputs.clear();
  for (const EntryRef& in : g.nodes[n].inputs) {
    const EntryRef r = resolve_entry(p, in);
    const auto it = w.moved.find(row_ptr[r.node] + r.index);
    if (it == w.moved.end()) return false;
    c.inputs.push_back(EntryRef{it->second.node, it->second.index, in.version});
  }
  const uint32_t at = w.add_node(std::move(c), g.op_attrs[n]);
  for (uint32_t j = 0; j < outputs_of(row_ptr, n); ++j) {
    const uint32_t eid = row_ptr[n] + j;
    w.add_entry(g.storage_id[eid], g.shape[eid], g.precision[eid], w.dltype_of(eid));
    w.moved[eid] = EntryRef{at, j, 0};
  }
  return true;
}

}  // namespace

int op_node_count(const Graph& g) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(),
                                        [](const Node& n) { return !n.is_variable(); }));
}

bool shrinkable(const Graph& g, int node) {
  if (node < 0 || static_cast<size_t>(node) >= g.nodes.size()) return false;
  if (g.nodes[static_cast<size_t>(node)].is_variable()) return false;
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  const size_t entries = row_ptr.back();
  if (g.op_attrs.size() != g.nodes.size() || g.storage_id.size() < entries ||
      g.shape.size() < entries || g.precision.size() < entries) {
    return false;
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (const EntryRef& e : g.nodes[n].inputs) {
      if (!existing_output(row_ptr, e, n)) return false;
    }
  }
  for (const EntryRef& h : g.heads) {
    if (!existing_output(row_ptr, h, g.nodes.size())) return false;
  }
  return true;
}

ShrinkPlan initial_plan(const Graph& g, int node) {
  const size_t count = g.nodes.size();
  ShrinkPlan p;
  p.kept.assign(count, 1);
  p.frozen.assign(count, 0);
  p.roots.assign(count, 1);
  p.bypass.assign(count, std::nullopt);
  for (const Node& n : g.nodes) {
    for (const EntryRef& e : n.inputs) p.roots[e.node] = 0;
  }
  p.roots[static_cast<size_t>(node)] = 1;
  return p;
}

EntryRef resolve_entry(const ShrinkPlan& p, EntryRef e) {
  // A bypass names an input of its node, an earlier node: the walk ends.
  while (e.node < p.bypass.size() && p.bypass[e.node]) e = *p.bypass[e.node];
  return e;
}

void prune(const Graph& g, ShrinkPlan& p, int node) {
  std::vector<char> live(g.nodes.size(), 0);
  std::vector<uint32_t> stack;
  const auto mark = [&](uint32_t n) {
    if (p.kept[n] && !p.bypass[n] && !live[n]) {
      live[n] = 1;
      stack.push_back(n);
    }
  };
  mark(static_cast<uint32_t>(node));
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    if (p.roots[n]) mark(n);
  }
  if (!p.target_heads) {
    for (const EntryRef& h : g.heads) mark(resolve_entry(p, h).node);
  }
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    if (p.frozen[n] || g.nodes[n].is_variable()) continue;
    for (const EntryRef& in : g.nodes[n].inputs) mark(resolve_entry(p, in).node);
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) p.kept[n] = live[n];
}

std::optional<PlannedModel> build_model(const Model& original, const ShrinkPlan& p, int node,
                                        const std::vector<std::optional<Tensor>>& recorded) {
  const Graph& g = original.graph;
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  ModelWriter w{g, {}, {}, 0};
  for (uint32_t e = 0; e < row_ptr.back(); ++e) w.fresh_storage = std::max(w.fresh_storage, g.storage_id[e] + 1);
  Graph& h = w.out.graph;
  h.version = g.version;
  h.postprocess = g.postprocess;
  h.device_index = g.device_index;
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    if (!p.kept[n] || p.bypass[n]) continue;
    bool made = true;
    if (g.nodes[n].is_variable()) {
      copy_variable(original, n, row_ptr[n], w);
    } else if (p.frozen[n]) {
      made = freeze_node(g, n, row_ptr[n], outputs_of(row_ptr, n), recorded, w);
    } else {
      made = copy_op(g, p, row_ptr, n, w);
    }
    if (!made) return std::nullopt;
  }
  const auto place = [&](const EntryRef& e) { return w.moved.find(row_ptr[e.node] + e.index); };
  const uint32_t target = static_cast<uint32_t>(node);
  if (p.target_heads) {
    for (uint32_t j = 0; j < outputs_of(row_ptr, target); ++j) {
      const auto it = place(EntryRef{target, j, 0});
      if (it == w.moved.end()) return std::nullopt;
      h.heads.push_back(it->second);
    }
  } else {
    for (const EntryRef& head : g.heads) {
      const auto it = place(resolve_entry(p, head));
      if (it == w.moved.end()) return std::nullopt;
      h.heads.push_back(EntryRef{it->second.node, it->second.index, head.version});
    }
  }
  if (!g.node_row_ptr.empty()) h.node_row_ptr = row_ptr_of(h);
  h.arg_nodes = arg_nodes_of(h);
  const auto at = place(EntryRef{target, 0, 0});
  if (at == w.moved.end() || p.frozen[target]) return std::nullopt;
  return PlannedModel{std::move(w.out), static_cast<int>(at->second.node)};
}

}  // namespace cvm::graph
