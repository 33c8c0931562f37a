// `cvmcheck graphs --jobs N` (harness/graph/graph_jobs.h): model k in job k mod N, so one job
// and three check the same models: the same counts and coverage, the same findings with the
// same first model and count; a summary reads back from its JSON whole.
#include <gtest/gtest.h>

#include "harness/graph/graph_jobs.h"
#include "registry/registry.h"
#include "support/jobs.h"
#include "support/planted_registry.h"
#include "support/temp_dir.h"

namespace cvm::graph {
namespace {

class GraphJobs : public testing::TempDirTest {
 protected:
  GraphJobs() : TempDirTest("cvmcheck-graph-jobs") {}
  GraphsOptions run_of(const std::string& name) const {
    GraphsOptions o;
    o.seconds = 600;  // bounded by the count
    o.max_graphs = 120;
    o.backends = {"optimized"};
    o.seed = 5;
    o.shrink_tries = 0;
    o.report_dir = (dir_ / name).string();
    return o;
  }
};

TEST_F(GraphJobs, ThreeJobsCheckTheModelsOfOne) {
  const Registry r = testing::with_planted_kernel("planted-clip-upper-bound-off-by-one", "optimized");
  const GraphsSummary one = run_graphs_jobs(r, run_of("one"), 1);
  const GraphsSummary three =
      run_graphs_jobs(r, run_of("three"), 3, [] { testing::one_thread(0); });
  EXPECT_EQ(three.graphs, 120);
  EXPECT_EQ(three.graphs, one.graphs);
  EXPECT_EQ(three.valid, one.valid);
  EXPECT_EQ(three.op_nodes, one.op_nodes);
  EXPECT_EQ(three.compared, one.compared);
  EXPECT_EQ(three.op_counts, one.op_counts);
  EXPECT_EQ(three.pairs, one.pairs);
  EXPECT_EQ(three.chained, one.chained);
  EXPECT_EQ(three.redrawn_constant, one.redrawn_constant);
  EXPECT_EQ(three.storage_plans, one.storage_plans);
  EXPECT_EQ(three.malformed.by_kind, one.malformed.by_kind);
  EXPECT_EQ(three.malformed.refused, one.malformed.refused);
  ASSERT_EQ(three.findings.size(), one.findings.size());
  ASSERT_FALSE(one.findings.empty());
  for (size_t k = 0; k < one.findings.size(); ++k) {
    EXPECT_EQ(three.findings[k].signature, one.findings[k].signature);
    EXPECT_EQ(three.findings[k].count, one.findings[k].count);
    EXPECT_EQ(three.findings[k].first_model, one.findings[k].first_model);
    EXPECT_EQ(three.findings[k].graph_seed, one.findings[k].graph_seed);
    EXPECT_FALSE(three.findings[k].repro.empty());
  }
  EXPECT_EQ(summary_json(summary_from_json(summary_json(three))), summary_json(three));
}

}  // namespace
}  // namespace cvm::graph
