// A `cvmcheck graphs` run in the findings store (harness/graph/graph_store.h): one signature
// everywhere, graph-level findings under "graph|<op>" so that a graphs run fixes only those and a
// campaign never does.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/findings/findings_store.h"
#include "harness/graph/graph_store.h"
#include "support/temp_dir.h"

namespace cvm::graph {
namespace {

GraphFinding finding(const std::string& signature, bool graph_level, const std::string& op,
                     int64_t count, const std::string& expected_by = "") {
  GraphFinding f;
  f.signature = signature;
  f.graph_level = graph_level;
  f.backend = "optimized";
  f.op = op;
  f.kind = "value";
  f.what = "node 3 (" + op + "_0) output 0 value at index 0: 1 vs 2 on the reference";
  f.count = count;
  f.expected_by = expected_by;
  return f;
}

GraphsSummary summary() {
  GraphsSummary s;
  s.seed = 7;
  s.graphs = 40;
  s.backends = {"optimized", "cuda-host"};
  s.compared = {{"optimized", 40}};
  s.op_counts = {{"relu", 12}, {"where", 3}};
  s.findings = {finding("where|optimized|value|output 0", false, "where", 2),
                finding("graph|relu|optimized|value", true, "relu", 3),
                finding("graph|relu|optimized|value", true, "relu", 1, "list:3: known")};
  return s;
}

TEST(GraphStore, NamesTheRunAndItsGraphLevelOperatorsApart) {
  const StoreRun run = graphs_store_run(summary(), StoreRun{});
  EXPECT_EQ(run.kind, "graphs");
  EXPECT_EQ(run.seed, 7u);
  EXPECT_EQ(run.calls, 40);
  EXPECT_EQ(run.backends, std::vector<std::string>{"optimized"});  // cuda-host compared nothing
  for (const char* op : {"graph|relu", "graph|where", "graph|graph"}) {
    EXPECT_NE(std::find(run.ops.begin(), run.ops.end(), op), run.ops.end()) << op;
  }
  EXPECT_EQ(std::find(run.ops.begin(), run.ops.end(), "where"), run.ops.end());
}

TEST(GraphStore, OneEntryPerSignatureUnexplainedWhenAnyModelIs) {
  const std::vector<StoreFinding> f = graphs_store_findings(summary());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].signature, "where|optimized|value|output 0");
  EXPECT_EQ(f[0].op, "where");
  EXPECT_EQ(f[1].signature, "graph|relu|optimized|value");
  EXPECT_EQ(f[1].op, "graph|relu");
  EXPECT_EQ(f[1].calls, 4);
  EXPECT_TRUE(f[1].expected_by.empty());
}

class GraphStoreFile : public testing::TempDirTest {
 protected:
  GraphStoreFile() : TempDirTest("cvmcheck-graph-store") {}
};

TEST_F(GraphStoreFile, AGraphsRunFixesOnlyGraphLevelFindings) {
  FindingsStore store = FindingsStore::open((dir_ / "s.sqlite").string());
  store.record(graphs_store_run(summary(), StoreRun{}), graphs_store_findings(summary()));
  // A campaign of where and relu on optimized that sees nothing fixes the single call's finding
  // only; a graphs run that sees nothing fixes the graph-level one only.
  StoreRun campaign;
  campaign.backends = {"optimized"};
  campaign.ops = {"where", "relu"};
  EXPECT_EQ(store.record(campaign, {}).fixed, std::vector<std::string>{"where|optimized|value|output 0"});
  GraphsSummary clean = summary();
  clean.findings.clear();
  EXPECT_EQ(store.record(graphs_store_run(clean, StoreRun{}), {}).fixed,
            std::vector<std::string>{"graph|relu|optimized|value"});
}

}  // namespace
}  // namespace cvm::graph
