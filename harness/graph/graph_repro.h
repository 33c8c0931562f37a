// A model's finding made small and saved (docs/graphs.md, "Shrinking" and "Replaying"): the
// model shrunk while it still shows the finding's signature on its backend, then written as a
// graph folder (graph.json, params, data.npy) with finding.json, whose replay line is
// `cvmcheck run DIR --backend NAME`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"
#include "harness/findings/expectations.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_shrink.h"

namespace cvm::graph {

// The signature `backend`'s run of `model` shows against the reference's (graph_signature.h);
// "" when the runs agree or `backend` skips the model.
std::string model_signature(const Registry& registry, const std::string& backend, const Model& model,
                            const ExpectationSet& expectations);

// `model`, whose first difference on `backend` is `d` (the reference's run: `expected`), shrunk
// while model_signature stays `signature`, in at most `max_tries` tries.
ShrunkModel shrink_finding(const Registry& registry, const std::string& backend,
                           const std::string& signature, const Model& model,
                           const GraphRun& expected, const GraphDifference& d,
                           const ExpectationSet& expectations, int max_tries);

// "cvmcheck run DIR --backend NAME", with the backend's definition where one made it
// (exec_backend.h, backend_cli_args)
std::string graph_replay_line(const std::string& dir, const std::string& backend);

// Writes `model` as a graph folder `dir` with `finding` (its replay line added) as finding.json.
// RuntimeError when a file cannot be written.
void write_graph_repro(const std::string& dir, const Model& model, nlohmann::json finding,
                       const std::string& backend);

}  // namespace cvm::graph
