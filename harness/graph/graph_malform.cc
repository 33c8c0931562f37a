#include "harness/graph/graph_malform.h"

#include <functional>
#include <utility>

#include <nlohmann/json.hpp>

#include "cvmcheck/case_seed.h"
#include "cvmcheck/precision.h"
#include "harness/graph/graph_rng.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_storage.h"

namespace cvm::graph {
namespace {

// Breaks `m` one way; false when the way does not apply to it.
using Breaker = std::function<bool(GeneratedModel& m, Rng& rng)>;

std::vector<uint32_t> op_nodes(const Graph& g) {
  std::vector<uint32_t> out;
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    if (!g.nodes[n].is_variable()) out.push_back(n);
  }
  return out;
}

// A random operator node; false when there is none.
bool pick_op(const Graph& g, Rng& rng, uint32_t& node) {
  const std::vector<uint32_t> ops = op_nodes(g);
  if (ops.empty()) return false;
  node = rng.pick(ops);
  return true;
}

size_t pick_entry(const Graph& g, Rng& rng) { return static_cast<size_t>(rng.below(g.shape.size())); }

bool set_func_name(Node& n, const std::string& name) {
  for (auto& [key, value] : n.attrs) {
    if (key == "func_name") value = name;
  }
  return true;
}

// An operator whose output may not share an input's storage, given its first input's storage.
bool share_storage(GeneratedModel& m, Rng& rng) {
  Graph& g = m.graph;
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  std::vector<uint32_t> candidates;
  for (uint32_t n : op_nodes(g)) {
    if (!loader_allows_in_place(g.nodes[n].operator_name()) && !g.nodes[n].inputs.empty()) candidates.push_back(n);
  }
  if (candidates.empty()) return false;
  const uint32_t n = rng.pick(candidates);
  g.storage_id[row_ptr[n]] = g.storage_id[entry_index(row_ptr, g.nodes[n].inputs[0])];
  return true;
}

bool param_out_of_range(GeneratedModel& m, Rng& rng) {
  if (m.inputs.params.empty()) return false;
  NamedTensor& p = m.inputs.params[static_cast<size_t>(rng.below(m.inputs.params.size()))];
  if (p.second.precision() >= 32) return false;
  std::vector<int32_t> v = p.second.values();
  v[static_cast<size_t>(rng.below(v.size()))] = static_cast<int32_t>(alpha(p.second.precision()) + 1);
  p.second = Tensor::from_values(p.second.shape(), v, 32);
  return true;
}

bool declared_shape(GeneratedModel& m, Rng& rng) {
  uint32_t n = 0;
  if (!pick_op(m.graph, rng, n)) return false;
  Shape& s = m.graph.shape[row_ptr_of(m.graph)[n]];
  s[static_cast<size_t>(rng.below(s.size()))] += 1;
  return true;
}

// Node ids, operators, their attributes, the version.
std::vector<std::pair<std::string, Breaker>> node_breakers() {
  return {
      {"input_not_earlier", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         if (!pick_op(m.graph, rng, n) || m.graph.nodes[n].inputs.empty()) return false;
         m.graph.nodes[n].inputs[0].node = n;
         return true;
       }},
      {"input_missing_output", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         if (!pick_op(m.graph, rng, n) || m.graph.nodes[n].inputs.empty()) return false;
         m.graph.nodes[n].inputs[0].index = 2;  // no operator has three outputs
         return true;
       }},
      {"input_count", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         if (!pick_op(m.graph, rng, n)) return false;
         m.graph.nodes[n].inputs.clear();
         return true;
       }},
      {"operator_unknown", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         return pick_op(m.graph, rng, n) && set_func_name(m.graph.nodes[n], "conv3d");
       }},
      {"op_attrs_count", [](GeneratedModel& m, Rng&) {
         m.graph.op_attrs.pop_back();
         return true;
       }},
      {"op_attrs_unknown_key", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         if (!pick_op(m.graph, rng, n)) return false;
         nlohmann::ordered_json j = nlohmann::ordered_json::parse(m.graph.op_attrs[n]);
         j["no_such_attribute"] = "1";
         m.graph.op_attrs[n] = j.dump();
         return true;
       }},
      {"op_attrs_not_json", [](GeneratedModel& m, Rng& rng) {
         uint32_t n = 0;
         if (!pick_op(m.graph, rng, n)) return false;
         m.graph.op_attrs[n] = "{";
         return true;
       }},
      {"version_unknown", [](GeneratedModel& m, Rng&) {
         m.graph.version = "cvm_1.2.0";
         return true;
       }},
  };
}

// The per-entry lists (storage, shapes, precisions, dltype), node_row_ptr, arg_nodes, heads.
std::vector<std::pair<std::string, Breaker>> entry_list_breakers() {
  return {
      {"storage_count", [](GeneratedModel& m, Rng&) {
         m.graph.storage_id.pop_back();
         return true;
       }},
      {"storage_negative", [](GeneratedModel& m, Rng& rng) {
         m.graph.storage_id[pick_entry(m.graph, rng)] = -1;
         return true;
       }},
      {"storage_shared", share_storage},
      {"shape_count", [](GeneratedModel& m, Rng&) {
         m.graph.shape.pop_back();
         return true;
       }},
      {"shape_zero_dim", [](GeneratedModel& m, Rng& rng) {
         m.graph.shape[pick_entry(m.graph, rng)][0] = 0;
         return true;
       }},
      {"shape_too_many_dims", [](GeneratedModel& m, Rng& rng) {
         m.graph.shape[pick_entry(m.graph, rng)] = Shape(static_cast<size_t>(kMaxNdim + 1), 1);
         return true;
       }},
      {"shape_declared_wrong", declared_shape},
      {"precision_count", [](GeneratedModel& m, Rng&) {
         m.graph.precision.pop_back();
         return true;
       }},
      {"precision_out_of_range", [](GeneratedModel& m, Rng& rng) {
         m.graph.precision[pick_entry(m.graph, rng)] = rng.chance(0.5) ? 0 : 33;
         return true;
       }},
      {"variable_precision_unset", [](GeneratedModel& m, Rng&) {
         m.graph.precision[0] = -1;  // the data variable
         return true;
       }},
      {"device_index_set", [](GeneratedModel& m, Rng&) {
         m.graph.device_index = std::vector<int64_t>(m.graph.shape.size(), 1);
         return true;
       }},
      {"dltype_not_int32", [](GeneratedModel& m, Rng& rng) {
         if (m.graph.version != kVersion100) return false;
         m.graph.dltype[pick_entry(m.graph, rng)] = "float32";
         return true;
       }},
      {"node_row_ptr_wrong", [](GeneratedModel& m, Rng&) {
         if (m.graph.version != kVersion100 || m.graph.node_row_ptr.size() < 2) return false;
         m.graph.node_row_ptr[1] += 1;
         return true;
       }},
      {"arg_nodes_wrong", [](GeneratedModel& m, Rng&) {
         if (m.graph.version != kVersion100) return false;
         m.graph.arg_nodes.pop_back();
         return true;
       }},
      {"heads_empty", [](GeneratedModel& m, Rng&) {
         m.graph.heads.clear();
         return true;
       }},
      {"head_missing_output", [](GeneratedModel& m, Rng&) {
         m.graph.heads[0].index = 2;
         return true;
       }},
  };
}

// Names and the inputs bound: data and parameters.
std::vector<std::pair<std::string, Breaker>> input_breakers() {
  return {
      {"name_duplicated", [](GeneratedModel& m, Rng& rng) {
         if (m.inputs.params.empty()) return false;
         const std::vector<uint32_t> args = m.graph.arg_nodes;
         m.graph.nodes[args[1 + static_cast<size_t>(rng.below(args.size() - 1))]].name = kDataName;
         return true;
       }},
      {"data_missing", [](GeneratedModel& m, Rng&) {
         m.inputs.data.reset();
         return true;
       }},
      {"param_missing", [](GeneratedModel& m, Rng& rng) {
         if (m.inputs.params.empty()) return false;
         m.inputs.params.erase(m.inputs.params.begin() + static_cast<long>(rng.below(m.inputs.params.size())));
         return true;
       }},
      {"param_extra", [](GeneratedModel& m, Rng&) {
         m.inputs.params.emplace_back("param_extra", Tensor::from_values({1}, {0}, 8));
         return true;
       }},
      {"param_shape", [](GeneratedModel& m, Rng& rng) {
         if (m.inputs.params.empty()) return false;
         NamedTensor& p = m.inputs.params[static_cast<size_t>(rng.below(m.inputs.params.size()))];
         p.second = Tensor::from_values({p.second.size() + 1}, std::vector<int32_t>(static_cast<size_t>(p.second.size() + 1), 0),
                                        p.second.precision());
         return true;
       }},
      {"param_out_of_range", param_out_of_range},
  };
}

const std::vector<std::pair<std::string, Breaker>>& breakers() {
  static const std::vector<std::pair<std::string, Breaker>> kBreakers = [] {
    std::vector<std::pair<std::string, Breaker>> all;
    for (auto part : {node_breakers(), entry_list_breakers(), input_breakers()}) {
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
  return kBreakers;
}

}  // namespace

const std::vector<std::string>& malformations() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& [name, breaker] : breakers()) names.push_back(name);
    return names;
  }();
  return kNames;
}

bool malform_model_as(GeneratedModel& m, const std::string& kind, uint64_t seed) {
  Rng rng(seed);
  for (const auto& [name, breaker] : breakers()) {
    if (name == kind) return breaker(m, rng);
  }
  return false;
}

std::string malform_model(GeneratedModel& m, uint64_t seed) {
  Rng rng(seed);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::string& kind = rng.pick(malformations());
    GeneratedModel broken = m;
    if (malform_model_as(broken, kind, rng.next())) {
      m = std::move(broken);
      return kind;
    }
  }
  m.graph.version = "cvm_1.2.0";  // applies to every model
  return "version_unknown";
}

void check_malformed(const Registry& registry, const GeneratedModel& m, int64_t k,
                     const std::vector<std::string>& backends, MalformedCounts& counts,
                     const std::function<void(const MalformedDisagreement&)>& on_disagreement) {
  if (k % kMalformedEvery != kMalformedEvery - 1) return;
  GeneratedModel bad = m;
  const std::string kind = malform_model(bad, Rng(m.seed ^ 0x3A1F0B6D2C9E4857ull).next());
  ++counts.drawn;
  ++counts.by_kind[kind];
  const GraphRun r = run_graph(registry, kReferenceBackend, bad.graph, bad.inputs);
  if (r.kind == OutcomeKind::kLogicError) {
    ++counts.refused;
  } else if (counts.not_refused.size() < 10) {
    counts.not_refused.push_back(concat(kind, " seed ", seed_hex(m.seed), ": ", outcome_name(r.kind), " ", r.message));
  }
  for (const std::string& backend : backends) {
    const GraphRun a = run_graph(registry, backend, bad.graph, bad.inputs);
    if (a.skipped || a.kind == r.kind) continue;
    if (on_disagreement) on_disagreement(MalformedDisagreement{backend, kind, bad, r, a});
    if (counts.disagreements[backend]++ == 0) {
      counts.first_disagreement[backend] = concat(kind, " seed ", seed_hex(m.seed), ": ", outcome_name(a.kind), " ",
                                                  a.message, " vs ", outcome_name(r.kind), " on the reference");
    }
  }
}

nlohmann::json malformed_report(const MalformedCounts& c) {
  return {{"drawn", c.drawn},
          {"refused", c.refused},
          {"by_kind", c.by_kind},
          {"not_refused", c.not_refused},
          {"disagreements", c.disagreements},
          {"first_disagreement", c.first_disagreement}};
}

}  // namespace cvm::graph
