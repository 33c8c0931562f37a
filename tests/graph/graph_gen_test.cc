// The model generator: deterministic, valid (the reference runs nearly every model to the end),
// requantizing before conv2d and dense, models that survive their own file format, and the
// production backends agreeing with the reference on them.
#include <gtest/gtest.h>

#include "cvmcheck/case_seed.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_json.h"
#include "harness/graph/graph_params.h"
#include "harness/graph/graph_rng.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

TEST(GraphGen, IsAFunctionOfItsSeed) {
  for (uint64_t seed : {1ull, 2ull, 99ull}) {
    const GeneratedModel a = generate_model(registry(), seed, {});
    const GeneratedModel b = generate_model(registry(), seed, {});
    EXPECT_EQ(write_graph_json(a.graph), write_graph_json(b.graph));
    EXPECT_EQ(write_params(a.inputs.params), write_params(b.inputs.params));
    EXPECT_TRUE(a.inputs.data->identical(*b.inputs.data));
  }
  EXPECT_NE(write_graph_json(generate_model(registry(), 1, {}).graph),
            write_graph_json(generate_model(registry(), 2, {}).graph));
}

TEST(GraphGen, DrawsValidModelsOfTheAskedSize) {
  int valid = 0, full = 0;
  constexpr int kModels = 150;
  for (int k = 0; k < kModels; ++k) {
    GenOptions o;
    o.nodes = 1 + k % 30;
    const GeneratedModel m = generate_model(registry(), case_seed(7, static_cast<uint64_t>(k)), o);
    const size_t ops = m.graph.nodes.size() - m.inputs.params.size() - 1;
    full += ops == static_cast<size_t>(o.nodes);
    const GraphRun r = run_graph(registry(), "reference", m.graph, m.inputs);
    valid += r.kind == OutcomeKind::kOk;
    EXPECT_NE(r.kind, OutcomeKind::kRuntimeError) << k << ": " << r.message;
    EXPECT_TRUE(parse_graph_json(write_graph_json(m.graph)) == m.graph) << k;
  }
  EXPECT_GE(valid, kModels * 95 / 100);
  EXPECT_GE(full, kModels * 9 / 10);
}

TEST(GraphGen, FeedsConvolutionsAndDenseAtMostEightBits) {
  int seen = 0;
  for (uint64_t k = 0; k < 60; ++k) {
    GenOptions o;
    o.nodes = 12;
    const GeneratedModel m = generate_model(registry(), case_seed(11, k), o);
    const std::vector<uint32_t> row_ptr = row_ptr_of(m.graph);
    for (const Node& n : m.graph.nodes) {
      const std::string op = n.operator_name();
      if (op != "conv2d" && op != "dense") continue;
      ++seen;
      for (size_t i = 0; i < 2; ++i) EXPECT_LE(m.graph.precision[entry_index(row_ptr, n.inputs[i])], 8) << op;
    }
  }
  EXPECT_GT(seen, 10);
}

TEST(GraphGen, ProductionBackendsAgreeWithTheReference) {
  for (uint64_t k = 0; k < 40; ++k) {
    const GeneratedModel m = generate_model(registry(), case_seed(3, k), {});
    const GraphRun expected = run_graph(registry(), "reference", m.graph, m.inputs);
    for (const char* backend : {"optimized", "cuda-host"}) {
      const GraphRun actual = run_graph(registry(), backend, m.graph, m.inputs);
      const auto d = diff_runs(m.graph, expected, actual);
      EXPECT_FALSE(d) << backend << " seed " << m.seed << ": " << (d ? d->what : "");
    }
  }
}

}  // namespace
}  // namespace cvm::graph
