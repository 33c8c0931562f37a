// Running models: the load checks (blaming the node they refuse), the production load phase
// against the reference's, every entry recorded, and the diff naming the first differing node.
#include <gtest/gtest.h>

#include "harness/graph/graph_build.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

// data (1, 1, 2, 2) -> conv2d with a 1x1 weight of 2 -> relu -> cvm_right_shift.
struct Model {
  Graph g;
  ModelInputs inputs;
};

Model small_model() {
  GraphBuilder b;
  const EntryRef data = b.add_variable("data", {1, 1, 2, 2}, 8);
  const EntryRef w = b.add_variable("param_1", {1, 1, 1, 1}, 8);
  const uint32_t conv = b.add_op("conv2d", R"j({"channels": "1", "kernel_size": "(1, 1)", "use_bias": "False"})j",
                                 {data, w}, {{1, 1, 2, 2}}, {17});
  const uint32_t relu = b.add_op("relu", "{}", {{conv, 0, 0}}, {{1, 1, 2, 2}}, {17});
  const uint32_t shift = b.add_op("cvm_right_shift", R"({"precision": "8", "shift_bit": "1"})",
                                  {{relu, 0, 0}}, {{1, 1, 2, 2}}, {8});
  Model m{b.finish({{shift, 0, 0}}), {}};
  m.inputs.data = Tensor::from_values({1, 1, 2, 2}, {1, -2, 3, 127}, 8);
  m.inputs.params = {{"param_1", Tensor::from_values({1, 1, 1, 1}, {2}, 8)}};
  return m;
}

TEST(GraphRun, RecordsEveryEntryOnEachBackend) {
  const Model m = small_model();
  for (const char* backend : {"reference", "optimized"}) {
    const GraphRun r = run_graph(registry(), backend, m.g, m.inputs);
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
    const GraphRun r = run_graph(registry(), backend, m.g, m.inputs);
    EXPECT_EQ(r.kind, OutcomeKind::kLogicError) << why << " on " << backend;
    EXPECT_EQ(r.node, node) << why << " on " << backend << ": " << r.message;
  }
}

TEST(GraphRun, RefusesWhatTheLoaderRefuses) {
  Model m = small_model();
  m.g.shape[3] = {1, 1, 2, 3};
  expect_refused(m, 3, "relu's declared shape");
  m = small_model();
  m.g.storage_id[2] = 1;  // conv2d's output in its weight's storage
  expect_refused(m, 2, "conv2d sharing its input's storage");
  m = small_model();
  m.g.storage_id[3] = 2;  // relu may run in place
  EXPECT_EQ(run_graph(registry(), "reference", m.g, m.inputs).kind, OutcomeKind::kOk);
  m = small_model();
  m.g.version = "cvm_2.0.0";
  expect_refused(m, -1, "version");
  m = small_model();
  m.g.node_row_ptr[2] = 7;
  expect_refused(m, -1, "node_row_ptr");
  m.g.version = kVersion110;  // recomputes it
  EXPECT_EQ(run_graph(registry(), "optimized", m.g, m.inputs).kind, OutcomeKind::kOk);
  m = small_model();
  m.g.precision[1] = -1;
  expect_refused(m, 1, "a parameter without a precision");
  m = small_model();
  m.g.op_attrs[4] = R"({"precision": "8"})";
  expect_refused(m, 4, "a missing attribute");
  m = small_model();
  m.g.nodes[3].inputs[0].node = 4;
  expect_refused(m, 3, "an input after its node");
}

TEST(GraphRun, ChecksParametersAndClampsTheData) {
  Model m = small_model();
  m.inputs.params[0].second = Tensor::from_values({1, 1, 1, 1}, {128}, 9);
  expect_refused(m, 1, "a parameter outside its precision");
  m = small_model();
  m.inputs.params.clear();
  expect_refused(m, 1, "a missing parameter");
  m = small_model();
  m.inputs.params.push_back({"param_9", Tensor::from_values({1}, {0}, 8)});
  expect_refused(m, -1, "an unknown parameter");
  m = small_model();
  m.inputs.data = Tensor::from_values({1, 1, 2, 2}, {1000, -1000, 0, 1}, 12);
  const GraphRun r = run_graph(registry(), "reference", m.g, m.inputs);
  ASSERT_EQ(r.kind, OutcomeKind::kOk) << r.message;
  EXPECT_EQ(r.entries[0]->values(), (std::vector<int32_t>{127, -127, 0, 1}));
}

TEST(GraphDiff, NamesTheFirstDifferingNode) {
  const Model m = small_model();
  const GraphRun expected = run_graph(registry(), "reference", m.g, m.inputs);
  GraphRun actual = expected;
  EXPECT_FALSE(diff_runs(m.g, expected, actual));
  actual.entries[4]->set(1, 5);
  actual.entries[3]->set(0, 5);
  auto d = diff_runs(m.g, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 3);
  EXPECT_EQ(d->kind, "value");
  actual = expected;
  actual.entries[2]->set_precision(16);
  d = diff_runs(m.g, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 2);
  EXPECT_EQ(d->kind, "precision");
  actual = expected;
  actual.kind = OutcomeKind::kRuntimeError;
  actual.node = 3;
  d = diff_runs(m.g, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, 3);
  EXPECT_EQ(d->kind, "outcome");
}

}  // namespace
}  // namespace cvm::graph
