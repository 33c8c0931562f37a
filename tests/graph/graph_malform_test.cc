// The malformed-model mode: every way of breaking a model applies to some generated model, and
// every malformed model is refused as a logic_error by our loader, on the reference and on a
// production backend; `cvmcheck graphs` counts them in graphs.json.
#include <gtest/gtest.h>

#include <map>

#include "cvmcheck/case_seed.h"
#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_malform.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

TEST(GraphMalform, EveryKindIsRefusedAsALogicError) {
  std::map<std::string, int> applied;
  for (uint64_t k = 0; k < 12; ++k) {
    GenOptions o;
    o.nodes = 6;
    const GeneratedModel m = generate_model(registry(), case_seed(41, k), o);
    if (run_graph(registry(), "reference", m.graph, m.inputs).kind != OutcomeKind::kOk) continue;
    for (const std::string& kind : malformations()) {
      GeneratedModel bad = m;
      if (!malform_model_as(bad, kind, k)) continue;
      ++applied[kind];
      for (const char* backend : {"reference", "optimized"}) {
        const GraphRun r = run_graph(registry(), backend, bad.graph, bad.inputs);
        EXPECT_EQ(r.kind, OutcomeKind::kLogicError) << kind << " on " << backend << ", model " << k << ": " << r.message;
      }
    }
  }
  for (const std::string& kind : malformations()) EXPECT_GE(applied[kind], 1) << kind;
}

TEST(GraphMalform, CampaignCountsItsMalformedModels) {
  GraphsOptions o;
  o.seconds = 600;
  o.max_graphs = 40;
  o.backends = {"optimized"};
  o.seed = 3;
  const GraphsSummary s = run_graphs(registry(), o);
  EXPECT_EQ(s.malformed.drawn, 40 / kMalformedEvery);
  EXPECT_EQ(s.malformed.refused, s.malformed.drawn);
  EXPECT_TRUE(s.malformed.disagreements.empty()) << graphs_report(s)["malformed"].dump();
  EXPECT_TRUE(s.findings.empty());
  const nlohmann::json j = graphs_report(s);
  EXPECT_EQ(j["malformed"]["drawn"], s.malformed.drawn);
  EXPECT_TRUE(j.contains("redrawn_constant"));
  EXPECT_EQ(j["storage_plans"].size(), 3u);
}

}  // namespace
}  // namespace cvm::graph
