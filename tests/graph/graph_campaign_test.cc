// `cvmcheck graphs` finds planted bugs in a production backend, names the first differing node,
// saves a graph folder that replays the finding, and reports its coverage.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"
#include "support/planted_registry.h"
#include "support/temp_dir.h"

namespace cvm::graph {
namespace {

GraphsOptions short_run(const std::string& report_dir = "") {
  GraphsOptions o;
  o.seconds = 600;  // bounded by the count: the same models on any machine
  o.max_graphs = 150;
  o.backends = {"optimized"};
  o.seed = 5;
  o.report_dir = report_dir;
  return o;
}

class GraphsRunDir : public testing::TempDirTest {
 protected:
  GraphsRunDir() : TempDirTest("cvmcheck-graphs") {}
};

TEST_F(GraphsRunDir, FindsAPlantedValueBugAndSavesAReplayableModel) {
  const Registry r = testing::with_planted_kernel("planted-clip-upper-bound-off-by-one", "optimized");
  const GraphsSummary s = run_graphs(r, short_run(dir_.string()));
  ASSERT_EQ(s.findings.size(), 1u) << graphs_report(s).dump(2);
  const GraphFinding& f = s.findings[0];
  EXPECT_EQ(f.signature, "graph|cvm_clip|optimized|value");
  ASSERT_FALSE(f.repro.empty());
  const ModelFiles m = read_graph_folder(f.repro);
  EXPECT_EQ(m.graph.nodes[static_cast<size_t>(f.node)].operator_name(), "cvm_clip");
  const auto d = diff_runs(m.graph, run_graph(r, "reference", m.graph, m.inputs),
                           run_graph(r, "optimized", m.graph, m.inputs));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, f.node);
}

TEST(GraphsRun, FindsAPlantedPrecisionBugAtItsNode) {
  const Registry r = testing::with_planted_kernel("planted-broadcast-add-precision-too-small", "optimized");
  const GraphsSummary s = run_graphs(r, short_run());
  ASSERT_FALSE(s.findings.empty());
  for (const GraphFinding& f : s.findings) EXPECT_EQ(f.op, "broadcast_add") << f.what;
}

TEST(GraphsRun, FindsNothingOnTheBuiltInBackendsAndReportsCoverage) {
  GraphsOptions o = short_run();
  o.max_graphs = 60;
  o.backends = {};
  const GraphsSummary s = run_graphs(registry(), o);
  const nlohmann::json j = graphs_report(s);
  EXPECT_TRUE(s.findings.empty()) << j["findings"].dump(2);
  EXPECT_EQ(s.graphs, 60);
  EXPECT_GE(j["valid_share"].get<double>(), 0.9);
  EXPECT_GT(s.op_counts.size(), 25u);
  EXPECT_GT(s.pairs.size(), 50u);
  EXPECT_EQ(s.compared.at("optimized"), 60);
}

}  // namespace
}  // namespace cvm::graph
