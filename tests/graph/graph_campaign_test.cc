// `cvmcheck graphs` finds planted bugs in a production backend, names the first differing node,
// saves a graph folder that replays the finding, and reports its coverage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_repro.h"
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
  // The node differs as a single call too: the campaign's signature, not a graph-level one.
  EXPECT_FALSE(f.graph_level);
  EXPECT_EQ(f.signature.rfind("cvm_clip|optimized|value", 0), 0u) << f.signature;
  ASSERT_FALSE(f.repro.empty());
  // The saved model is the shrunk one: the clip alone, its input frozen into a parameter.
  EXPECT_EQ(f.nodes_saved, 1) << f.nodes_drawn;
  const ModelFiles m = read_graph_folder(f.repro);
  const Model model{m.graph, m.inputs};
  EXPECT_EQ(model_signature(r, "optimized", model, ExpectationSet()), f.signature);
  const auto j = nlohmann::json::parse(std::ifstream(f.repro + "/finding.json"));
  EXPECT_EQ(j["replay"], "cvmcheck run " + f.repro + " --backend optimized");
  const int node = j["node"];
  EXPECT_EQ(m.graph.nodes[static_cast<size_t>(node)].operator_name(), "cvm_clip");
  const auto d = diff_runs(m.graph, run_graph(r, "reference", m.graph, m.inputs),
                           run_graph(r, "optimized", m.graph, m.inputs));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node, node);
}

TEST(GraphsRun, AKnownDifferenceDoesNotCountAsUnexplained) {
  const Registry r = testing::with_planted_kernel("planted-clip-upper-bound-off-by-one", "optimized");
  GraphsOptions o = short_run();
  ExpectationEntry e;
  e.op_glob = "*";
  e.case_glob = "*";
  e.sig_glob = "cvm_clip|optimized|value*";
  e.reason = "planted for this test";
  e.source = "test:1";
  o.expectations.by_backend[""].add(e);
  const GraphsSummary s = run_graphs(r, o);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].expected_by, "test:1: planted for this test");
  EXPECT_EQ(unexplained_findings(s), 0);
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
