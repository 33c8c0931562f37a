#include "harness/graph/graph_diff.h"

#include "cvmcheck/errors.h"

namespace cvm::graph {
namespace {

std::optional<GraphDifference> diff_entry(const Graph& g, int node, uint32_t j, const Tensor& e,
                                          const Tensor& a) {
  const std::string at = concat(node_label(g, node), " output ", j);
  if (e.shape() != a.shape()) {
    return GraphDifference{node, "shape", concat(at, " shape ", shape_str(a.shape()), " vs ", shape_str(e.shape()), " on the reference")};
  }
  if (e.precision() != a.precision()) {
    return GraphDifference{node, "precision", concat(at, " precision ", a.precision(), " vs ", e.precision(), " on the reference")};
  }
  for (int64_t i = 0; i < e.size(); ++i) {
    if (e.get(i) != a.get(i)) {
      return GraphDifference{node, "value", concat(at, " value at index ", i, ": ", a.get(i), " vs ", e.get(i), " on the reference")};
    }
  }
  return std::nullopt;
}

std::string outcome_text(const GraphRun& r) {
  return r.kind == OutcomeKind::kOk ? std::string("ok") : concat(outcome_name(r.kind), ": ", r.message);
}

GraphDifference outcome_difference(const Graph& g, int node, const GraphRun& e, const GraphRun& a) {
  return {node, "outcome",
          concat(node_label(g, node), ": ", outcome_text(a), " (blaming ", node_label(g, a.node),
                 ") vs ", outcome_text(e), " (blaming ", node_label(g, e.node), ") on the reference")};
}

// The first difference of two packed outputs: their element size, their length, then the first
// differing element.
std::optional<GraphDifference> diff_packed(const PackedOutput& e, const PackedOutput& a) {
  const auto differ = [](const std::string& what) {
    return GraphDifference{-1, "packed", concat("the packed output: ", what)};
  };
  if (e.type_size != a.type_size) {
    return differ(concat(a.type_size, "-byte elements vs ", e.type_size, " on the reference"));
  }
  if (e.bytes.size() != a.bytes.size()) {
    return differ(concat(a.bytes.size(), " bytes vs ", e.bytes.size(), " on the reference"));
  }
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    if (e.bytes[i] != a.bytes[i]) return differ(concat("element ", i / e.type_size, " differs"));
  }
  return std::nullopt;
}

}  // namespace

std::string node_label(const Graph& g, int node) {
  if (node < 0 || static_cast<size_t>(node) >= g.nodes.size()) return "the graph";
  return concat("node ", node, " (", g.nodes[static_cast<size_t>(node)].name, ")");
}

std::optional<GraphDifference> diff_runs(const Graph& g, const GraphRun& expected,
                                         const GraphRun& actual) {
  if (!actual.failure.empty()) {  // a worker that crashed, hung or broke the protocol
    return GraphDifference{-1, actual.failure, concat(actual.failure, ": ", actual.message)};
  }
  const bool e_failed = expected.kind != OutcomeKind::kOk;
  const bool a_failed = actual.kind != OutcomeKind::kOk;
  if ((e_failed && expected.node < 0) || (a_failed && actual.node < 0)) {
    if (expected.kind == actual.kind && expected.node == actual.node) return std::nullopt;
    return outcome_difference(g, -1, expected, actual);
  }
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const int node = static_cast<int>(n);
    const bool e_blames = e_failed && expected.node == node;
    const bool a_blames = a_failed && actual.node == node;
    if (e_blames || a_blames) {
      if (e_blames && a_blames && expected.kind == actual.kind) return std::nullopt;
      return outcome_difference(g, node, expected, actual);
    }
    for (uint32_t eid = row_ptr[n]; eid < row_ptr[n + 1]; ++eid) {
      if (eid >= expected.entries.size() || eid >= actual.entries.size()) continue;
      const auto& e = expected.entries[eid];
      const auto& a = actual.entries[eid];
      if (!e || !a) continue;  // one side stopped at its load phase: its blame comes later
      if (auto d = diff_entry(g, node, eid - row_ptr[n], *e, *a)) return d;
    }
  }
  if (expected.kind != actual.kind) return outcome_difference(g, -1, expected, actual);
  if (expected.packed && actual.packed) return diff_packed(*expected.packed, *actual.packed);
  return std::nullopt;
}

}  // namespace cvm::graph
