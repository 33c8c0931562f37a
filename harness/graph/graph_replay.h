// A saved model replayed (docs/graphs.md, "Replaying"): `cvmcheck run DIR` on a graph folder,
// and `cvmcheck graphs --replay DIR`, its alias. The model runs on the reference and on each
// backend; each run's outcome, and each backend's first difference with its signature.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"
#include "harness/graph/graph_shrink.h"

namespace cvm::graph {

struct GraphReplay {
  nlohmann::json report;  // {"reference": {...}, "<backend>": {...}, ...}
  bool differs = false;   // some backend differs from the reference
  bool skipped = false;   // some backend skipped the model (nothing compared: never a pass)
};

GraphReplay replay_model(const Registry& registry, const Model& model,
                         const std::vector<std::string>& backends);

// Whether `dir` holds a graph folder (a graph.json).
bool is_graph_folder(const std::string& dir);

}  // namespace cvm::graph
