#include "harness/graph/graph_repro.h"

#include <fstream>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_signature.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm::graph {

std::string model_signature(const Registry& registry, const std::string& backend, const Model& model,
                            const ExpectationSet& expectations) {
  const GraphRun expected = run_graph(registry, kReferenceBackend, model.graph, model.inputs);
  const GraphRun actual = run_graph(registry, backend, model.graph, model.inputs);
  if (actual.skipped) return "";
  const std::optional<GraphDifference> d = diff_runs(model.graph, expected, actual);
  if (!d) return "";
  return classify_difference(registry, model.graph, expected, actual, backend, *d, expectations).signature;
}

ShrunkModel shrink_finding(const Registry& registry, const std::string& backend,
                           const std::string& signature, const Model& model,
                           const GraphRun& expected, const GraphDifference& d,
                           const ExpectationSet& expectations, int max_tries) {
  const ModelPredicate still_fails = [&](const Model& candidate) {
    return model_signature(registry, backend, candidate, expectations) == signature;
  };
  return shrink_model(model, d.node, expected.entries, still_fails, max_tries);
}

std::string graph_replay_line(const std::string& dir, const std::string& backend) {
  return "cvmcheck run " + dir + " " + backend_cli_args(backend);
}

void write_graph_repro(const std::string& dir, const Model& model, nlohmann::json finding,
                       const std::string& backend) {
  write_graph_folder(dir, model.graph, model.inputs);
  finding["replay"] = graph_replay_line(dir, backend);
  std::ofstream out(dir + "/finding.json");
  out << finding.dump(2) << "\n";
  if (!out) fail_runtime("cannot write ", dir, "/finding.json");
}

}  // namespace cvm::graph
