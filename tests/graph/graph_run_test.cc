// Running models: the load checks (blaming the node they refuse), the production load phase
// against the reference's, every entry recorded, and the diff naming the first differing node.
#include <gtest/gtest.h>

#include "harness/graph/graph_build.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"
#include "support/graph_models.h"

namespace cvm::graph {
namespace {

TEST(GraphRun, RecordsEveryEntryOnEachBackend) {
  const Model m = testing::conv_relu_shift_model();
  for (const char* backend : {"reference", "optimized"}) {
    const GraphRun r = run_graph(registry(), backend, m.graph, m.inputs);
    ASSERT_EQ(r.kind, OutcomeKind::kOk) << backend << ": " << r.message;
    ASSERT_EQ(r.entries.size(), 5u);
    EXPECT_EQ(r.entries[2]->values(), (std::vector<int32_t>{2, -4, 6, 254})) << backend;
    EXPECT_EQ(r.entries[2]->precision(), 17) << backend;  // 8 + 8 + bitlen(1)
    EXPECT_EQ(r.entries[3]->values(), (std::vector<int32_t>{2, 0, 6, 254})) << backend;
    EXPECT_EQ(r.entries[4]->values(), (std::vector<int32_t>{1, 0, 3, 127})) << backend;
    EXPECT_EQ(r.entries[4]->precision(), 8) << backend;
  }
}

// Each refusal on both sides: the same class, blaming the same node.
void expect_refused(const Model& m, int node, const std::string& why) {
  for (const char* backend : {"reference", "optimized"}) {
    const GraphRun r = run_graph(registry(), backend, m.graph, m.inputs);
    EXPECT_EQ(r.kind, OutcomeKind::kLogicError) << why << " on " << backend;
    EXPECT_EQ(r.node, node) << why << " on " << backend << ": " << r.message;
  }
}

TEST(GraphRun, RefusesWhatTheLoaderRefuses) {
  Model m = testing::conv_relu_shift_model();
  m.graph.shape[3] = {1, 1, 2, 3};
  expect_refused(m, 3, "relu's declared shape");
  m = testing::conv_relu_shift_model();
  m.graph.storage_id[2] = 1;  // conv2d's output in its weight's storage
  expect_refused(m, 2, "conv2d sharing its input's storage");
  m = testing::conv_relu_shift_model();
  m.graph.storage_id[3] = 2;  // relu may run in place
  EXPECT_EQ(run_graph(registry(), "reference", m.graph, m.inputs).kind, OutcomeKind::kOk);
  m = testing::conv_relu_shift_model();
  m.graph.version = "cvm_2.0.0";
  expect_refused(m, -1, "version");
  m = testing::conv_relu_shift_model();
  m.graph.node_row_ptr[2] = 7;
  expect_refused(m, -1, "node_row_ptr");
  m.graph.version = kVersion110;  // recomputes it
  EXPECT_EQ(run_graph(registry(), "optimized", m.graph, m.inputs).kind, OutcomeKind::kOk);
  m = testing::conv_relu_shift_model();
  m.graph.precision[1] = -1;
  expect_refused(m, 1, "a parameter without a precision");
  m = testing::conv_relu_shift_model();
  m.graph.op_attrs[4] = R"({"precision": "8"})";
  expect_refused(m, 4, "a missing attribute");
  m = testing::conv_relu_shift_model();
  m.graph.nodes[3].inputs[0].node = 4;
  expect_refused(m, 3, "an input after its node");
}

TEST(GraphRun, ChecksParametersAndClampsTheData) {
  Model m = testing::conv_relu_shift_model();
  m.inputs.params[0].second = Tensor::from_values({1, 1, 1, 1}, {128}, 9);
  expect_refused(m, 1, "a parameter outside its precision");
  m = testing::conv_relu_shift_model();
  m.inputs.params.clear();
  expect_refused(m, 1, "a missing parameter");
  m = testing::conv_relu_shift_model();
  m.inputs.params.push_back({"param_9", Tensor::from_values({1}, {0}, 8)});
  expect_refused(m, -1, "an unknown parameter");
  m = testing::conv_relu_shift_model();
  m.inputs.data = Tensor::from_values({1, 1, 2, 2}, {1000, -1000, 0, 1}, 12);
  const GraphRun r = run_graph(registry(), "reference", m.graph, m.inputs);
  ASSERT_EQ(r.kind, OutcomeKind::kOk) << r.message;
  EXPECT_EQ(r.entries[0]->values(), (std::vector<int32_t>{127, -127, 0, 1}));
}

TEST(GraphDiff, NamesTheFirstDifferingNode) {
  const Model m = testing::conv_relu_shift_model();
  const GraphRun expected = run_graph(registry(), "reference", m.graph, m.inputs);
  GraphRun actual = expected;
  EXPECT_FALSE(diff_runs(m.graph, expected, actual));
  actual.entries[4]->set(1, 5);
  actual.entries[3]->set(0, 5);
  auto d = diff_runs(m.graph, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 3);
  EXPECT_EQ(d->kind, "value");
  actual = expected;
  actual.entries[2]->set_precision(16);
  d = diff_runs(m.graph, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 2);
  EXPECT_EQ(d->kind, "precision");
  actual = expected;
  actual.kind = OutcomeKind::kRuntimeError;
  actual.node = 3;
  d = diff_runs(m.graph, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 3);
  EXPECT_EQ(d->kind, "outcome");
}

}  // namespace
}  // namespace cvm::graph
