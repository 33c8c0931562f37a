// Shrinking a failing model (harness/graph/graph_shrink.h): with a synthetic predicate, within
// its bound of tries, and against an in-process fault that only a whole model shows (a backend
// corrupting one operator's output when its input comes straight from one producer), which is
// a graph-level finding shrunk to at most 3 operator nodes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_repro.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_shrink.h"
#include "harness/graph/graph_signature.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

// A node whose first input is the output of the node just before it, both operators: the pair
// the fault below needs. -1 when the model has none.
int chained_node(const Graph& g) {
  for (size_t k = 1; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.is_variable() || g.nodes[k - 1].is_variable() || n.inputs.empty()) continue;
    if (n.inputs[0].node == k - 1 && n.inputs[0].index == 0) return static_cast<int>(k);
  }
  return -1;
}

// A model of at least `min_ops` operator nodes with a chained node past its middle.
GeneratedModel model_with_chain(int min_ops, int& node) {
  GenOptions o;
  o.nodes = 16;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    GeneratedModel m = generate_model(registry(), seed, o);
    if (op_node_count(m.graph) < min_ops) continue;
    if (run_graph(registry(), kReferenceBackend, m.graph, m.inputs).kind != OutcomeKind::kOk) continue;
    node = chained_node(m.graph);
    if (node >= static_cast<int>(m.graph.nodes.size()) / 2) return m;
  }
  ADD_FAILURE() << "no model with a chained node";
  return {};
}

bool has_node_of(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes) {
    if (!n.is_variable() && n.operator_name() == op) return true;
  }
  return false;
}

TEST(GraphShrink, KeepsOnlyWhatASyntheticPredicateNeeds) {
  int node = -1;
  const GeneratedModel m = model_with_chain(10, node);
  ASSERT_GE(node, 0);
  const std::string op = m.graph.nodes[static_cast<size_t>(node)].operator_name();
  const GraphRun recorded = run_graph(registry(), kReferenceBackend, m.graph, m.inputs);
  int calls = 0;
  const ModelPredicate holds = [&](const Model& c) {
    ++calls;
    return has_node_of(c.graph, op) &&
           run_graph(registry(), kReferenceBackend, c.graph, c.inputs).kind == OutcomeKind::kOk;
  };
  const ShrunkModel s = shrink_model(Model{m.graph, m.inputs}, node, recorded.entries, holds, 100);
  EXPECT_GE(s.op_nodes_before, 10);
  EXPECT_EQ(s.op_nodes_after, 1);
  EXPECT_EQ(s.tries, calls);
  EXPECT_LE(s.tries, 100);
  ASSERT_GE(s.node, 0);
  EXPECT_EQ(s.model.graph.nodes[static_cast<size_t>(s.node)].operator_name(), op);
  // The failing node's outputs are the heads, its inputs parameters holding the recorded values.
  EXPECT_EQ(s.model.graph.heads[0].node, static_cast<uint32_t>(s.node));
  EXPECT_TRUE(holds(s.model));
}

// The operators of `node` and of everything it depends on.
std::set<std::string> ancestor_ops(const Graph& g, size_t node) {
  std::set<std::string> ops;
  std::vector<size_t> stack{node};
  std::set<size_t> seen;
  while (!stack.empty()) {
    const size_t n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || g.nodes[n].is_variable()) continue;
    ops.insert(g.nodes[n].operator_name());
    for (const EntryRef& e : g.nodes[n].inputs) stack.push_back(e.node);
  }
  return ops;
}

TEST(GraphShrink, KeepsANodeOutsideTheAncestorsWhereThePredicateNeedsIt) {
  // A failure that needs a node the failing node does not depend on (as a storage plan letting
  // one entry overwrite another would): the ancestors alone do not show it, the rest shrinks.
  GenOptions o;
  o.nodes = 16;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const GeneratedModel m = generate_model(registry(), seed, o);
    const GraphRun recorded = run_graph(registry(), kReferenceBackend, m.graph, m.inputs);
    if (recorded.kind != OutcomeKind::kOk || op_node_count(m.graph) < 10) continue;
    const size_t target = m.graph.heads[0].node;
    const std::set<std::string> needed_ops = ancestor_ops(m.graph, target);
    std::string other;
    for (size_t k = 0; k < target && other.empty(); ++k) {
      const Node& n = m.graph.nodes[k];
      if (!n.is_variable() && needed_ops.count(n.operator_name()) == 0) other = n.operator_name();
    }
    if (other.empty()) continue;
    const std::string op = m.graph.nodes[target].operator_name();
    const ModelPredicate holds = [&](const Model& c) {
      return has_node_of(c.graph, op) && has_node_of(c.graph, other) &&
             run_graph(registry(), kReferenceBackend, c.graph, c.inputs).kind == OutcomeKind::kOk;
    };
    const ShrunkModel s = shrink_model(Model{m.graph, m.inputs}, static_cast<int>(target),
                                       recorded.entries, holds, 200);
    EXPECT_EQ(s.op_nodes_after, 2) << "seed " << seed << ": " << op << " and " << other;
    EXPECT_TRUE(holds(s.model));
    return;
  }
  FAIL() << "no model with a node outside the last node's ancestors";
}

TEST(GraphShrink, StopsAtItsBoundOfTries) {
  int node = -1;
  const GeneratedModel m = model_with_chain(10, node);
  ASSERT_GE(node, 0);
  const GraphRun recorded = run_graph(registry(), kReferenceBackend, m.graph, m.inputs);
  int calls = 0;
  const ModelPredicate never = [&](const Model&) { return ++calls < 0; };
  const ShrunkModel none = shrink_model(Model{m.graph, m.inputs}, node, recorded.entries, never, 3);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(none.tries, 3);
  EXPECT_TRUE(none.model.graph == m.graph);
  const ShrunkModel zero = shrink_model(Model{m.graph, m.inputs}, node, recorded.entries, never, 0);
  EXPECT_EQ(zero.tries, 0);
  EXPECT_EQ(zero.op_nodes_after, zero.op_nodes_before);
}

TEST(GraphShrink, LeavesAModelItCannotFollowAsItIs) {
  int node = -1;
  const GeneratedModel m = model_with_chain(10, node);
  const ModelPredicate always = [](const Model&) { return true; };
  const ShrunkModel s = shrink_model(Model{m.graph, m.inputs}, 10000, {}, always, 50);
  EXPECT_EQ(s.tries, 0);
  EXPECT_TRUE(s.model.graph == m.graph);
}

// The optimized backend, every kernel wrapped: `consumer`'s output is off by one at index 0 when
// the call just before it on this backend was `producer` and produced this call's first input.
// A single call of `consumer` is right; the model is wrong.
Registry with_chain_fault(const std::string& producer, const std::string& consumer) {
  Registry r = registry();
  struct LastCall {
    std::string op;
    std::optional<Tensor> output;
  };
  auto last = std::make_shared<LastCall>();
  Backend fault = *r.find_backend("optimized");
  fault.name = "chain-fault";
  fault.variant_of.clear();
  for (auto& [op, kernel] : fault.kernels) {
    kernel = [last, op = op, inner = kernel, producer, consumer](const OpContext& ctx) {
      std::vector<Tensor> out = inner(ctx);
      const bool chained = last->op == producer && last->output && !ctx.inputs.empty() &&
                           ctx.inputs[0].shape() == last->output->shape() &&
                           ctx.inputs[0].values() == last->output->values();
      if (op == consumer && chained && !out.empty() && out[0].size() > 0) {
        std::vector<int32_t> v = out[0].values();
        v[0] = v[0] > 0 ? v[0] - 1 : v[0] + 1;
        out[0] = Tensor::from_values(out[0].shape(), v, out[0].precision(), out[0].dtype());
      }
      last->op = op;
      last->output = out.empty() ? std::nullopt : std::optional<Tensor>(out[0]);
      return out;
    };
  }
  r.add_backend(fault);
  return r;
}

TEST(GraphShrink, AFaultOnlyAModelShowsIsGraphLevelAndShrinksToAtMostThreeNodes) {
  int node = -1;
  const GeneratedModel m = model_with_chain(10, node);
  ASSERT_GE(node, 0);
  const std::string consumer = m.graph.nodes[static_cast<size_t>(node)].operator_name();
  const std::string producer = m.graph.nodes[static_cast<size_t>(node - 1)].operator_name();
  const Registry r = with_chain_fault(producer, consumer);
  const GraphRun expected = run_graph(r, kReferenceBackend, m.graph, m.inputs);
  const GraphRun actual = run_graph(r, "chain-fault", m.graph, m.inputs);
  const auto d = diff_runs(m.graph, expected, actual);
  ASSERT_TRUE(d) << producer << " -> " << consumer;
  const GraphSignature sig = classify_difference(r, m.graph, expected, actual, "chain-fault", *d, ExpectationSet());
  EXPECT_TRUE(sig.graph_level);
  EXPECT_EQ(sig.signature, "graph|" + sig.op + "|chain-fault|value");
  // A graph-level rule of its own: a sig: entry selects the graph-level signature.
  ExpectationSet known;
  ExpectationEntry e;
  e.op_glob = e.case_glob = "*";
  e.sig_glob = "graph|*|chain-fault|value";
  e.reason = "planted for this test";
  e.source = "test:1";
  known.by_backend[""].add(e);
  EXPECT_EQ(classify_difference(r, m.graph, expected, actual, "chain-fault", *d, known).expected_by,
            "test:1: planted for this test");
  const ShrunkModel s = shrink_finding(r, "chain-fault", sig.signature, Model{m.graph, m.inputs},
                                       expected, *d, ExpectationSet(), 200);
  EXPECT_GE(s.op_nodes_before, 10);
  EXPECT_LE(s.op_nodes_after, 3) << producer << " -> " << consumer;
  EXPECT_LE(s.tries, 200);
  EXPECT_EQ(model_signature(r, "chain-fault", s.model, ExpectationSet()), sig.signature);
}

// A hang (or crash) of the whole model blames no node: its case names every operator of the
// model, so an entry can say which operators a graph-level hang needs (the original's
// cvm_precision spinning on INT32_MIN that a where before it left in storage).
TEST(GraphSignature, AWholeGraphFailureIsListedByEveryOperatorOfTheModel) {
  GenOptions o;
  o.nodes = 8;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const GeneratedModel m = generate_model(registry(), seed, o);
    const GraphRun expected = run_graph(registry(), kReferenceBackend, m.graph, m.inputs);
    if (expected.kind != OutcomeKind::kOk) continue;
    // The last operator node's operator, found nowhere before it: named only by the whole model.
    std::string last;
    int uses = 0;
    for (const Node& n : m.graph.nodes) {
      if (n.is_variable()) continue;
      last = n.operator_name();
    }
    for (const Node& n : m.graph.nodes) uses += !n.is_variable() && n.operator_name() == last;
    if (uses != 1) continue;
    GraphRun hung;
    hung.kind = OutcomeKind::kRuntimeError;
    hung.failure = "hang";
    hung.message = "no reply within 10 s";
    const auto d = diff_runs(m.graph, expected, hung);
    ASSERT_TRUE(d);
    ASSERT_EQ(d->node, -1);
    // The entry as a list file says it.
    const std::string list = (std::filesystem::temp_directory_path() /
                              ("cvmcheck-whole-graph-" + std::to_string(::getpid()) + ".txt"))
                                 .string();
    std::ofstream(list) << "sig:graph|graph|*|hang&case=*," << last << ",*  planted for this test\n";
    ExpectationSet known;
    known.by_backend[""] = ExpectedFailures::read(list);
    std::filesystem::remove(list);
    const GraphSignature sig =
        classify_difference(registry(), m.graph, expected, hung, "worker", *d, known);
    EXPECT_TRUE(sig.graph_level);
    EXPECT_EQ(sig.signature, "graph|graph|worker|hang");
    EXPECT_EQ(sig.expected_by, list + ":1: planted for this test") << "seed " << seed << ", " << last;
    return;
  }
  FAIL() << "no model whose last operator is used once";
}

}  // namespace
}  // namespace cvm::graph
