#include "harness/graph/graph_replay.h"

#include <filesystem>

#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_signature.h"

namespace cvm::graph {
namespace {

nlohmann::json replayed_run(const Graph& g, const GraphRun& r) {
  nlohmann::json j = {{"outcome", outcome_name(r.kind)}};
  if (r.skipped) j["skipped"] = r.skip_reason;
  if (r.kind != OutcomeKind::kOk) {
    j["message"] = r.message;
    j["node"] = node_label(g, r.node);
  }
  return j;
}

}  // namespace

GraphReplay replay_model(const Registry& registry, const Model& model,
                         const std::vector<std::string>& backends) {
  GraphReplay replay;
  const Graph& g = model.graph;
  const GraphRun expected = run_graph(registry, kReferenceBackend, g, model.inputs);
  replay.report[kReferenceBackend] = replayed_run(g, expected);
  for (const std::string& b : backends) {
    if (b == kReferenceBackend) continue;
    const GraphRun actual = run_graph(registry, b, g, model.inputs);
    nlohmann::json j = replayed_run(g, actual);
    replay.skipped = replay.skipped || actual.skipped;
    if (!actual.skipped) {
      if (const auto d = diff_runs(g, expected, actual)) {
        const GraphSignature sig = classify_difference(registry, g, expected, actual, b, *d, ExpectationSet());
        j["difference"] = {{"node", node_label(g, d->node)}, {"kind", d->kind}, {"what", d->what},
                           {"signature", sig.signature}, {"graph_level", sig.graph_level}};
        replay.differs = true;
      }
    }
    replay.report[b] = j;
  }
  return replay;
}

bool is_graph_folder(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / "graph.json", ec);
}

}  // namespace cvm::graph
