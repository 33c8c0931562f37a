// The malformed-model mode (docs/graphs.md, "Malformed models"): a valid generated model broken
// in one way aimed at the loader (node ids and output indices, the version, the per-entry
// attribute lists, shapes, precisions, storage, operator attributes, heads, names, missing or
// extra or wrong parameters). Every one must be refused as a logic_error by our loader (the
// reference side): a model the loader takes is a bug of ours, and the original's answer to the
// same bytes is what a graph night compares.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cvmcheck/registry.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_run.h"

namespace cvm::graph {

// The kinds of breakage, each a name for graphs.json.
const std::vector<std::string>& malformations();

// `m` broken in one way drawn from `seed` among those that apply to it; returns its name.
std::string malform_model(GeneratedModel& m, uint64_t seed);

// `m` broken in the named way; false when the kind does not apply to it (no parameter to drop,
// no operator that may not share its input's storage, ...).
bool malform_model_as(GeneratedModel& m, const std::string& kind, uint64_t seed);

// What `cvmcheck graphs` counts of the malformed models it draws (one per kMalformedEvery
// models, from the model's own seed: the valid models drawn are the same with or without).
inline constexpr int64_t kMalformedEvery = 8;
struct MalformedCounts {
  int64_t drawn = 0, refused = 0;  // refused: a logic_error on the reference
  std::map<std::string, int64_t> by_kind;
  std::vector<std::string> not_refused;  // "<kind> seed <hex>: <outcome>", the first 10
  // Per backend: the malformed models it ran to another outcome class than the reference's,
  // and the first one ("<kind> seed <hex>: <outcome> vs <outcome> on the reference").
  std::map<std::string, int64_t> disagreements;
  std::map<std::string, std::string> first_disagreement;
};

// A backend that answered a malformed model with another outcome class than the reference.
struct MalformedDisagreement {
  std::string backend, kind;  // kind: the malformation's name
  const GeneratedModel& model;  // the malformed copy
  const GraphRun& reference;
  const GraphRun& actual;
};

// Model k's malformed copy, when k is one of those, run on the reference and on each of
// `backends` (one that skips the model is not counted) and counted; each disagreement is handed
// to `on_disagreement` too (the caller records it as a finding), when given.
void check_malformed(const Registry& registry, const GeneratedModel& m, int64_t k,
                     const std::vector<std::string>& backends, MalformedCounts& counts,
                     const std::function<void(const MalformedDisagreement&)>& on_disagreement = nullptr);

nlohmann::json malformed_report(const MalformedCounts& counts);

}  // namespace cvm::graph
