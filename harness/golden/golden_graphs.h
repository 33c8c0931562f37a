// Golden graphs (docs/golden-format.md, "Golden graphs"): a fixture set of whole models beside
// golden/, one folder per model with the model (graph.json, params, data.npy) and every entry's
// value as the reference computes it (entry_<k>.npy, its precision in model.json). Generated
// from fixed seeds (random models covering every operator the generator draws and the three
// storage plans, and hand-picked natural chains), no timestamps: a rerun gives the same bytes.
// Verified on a backend by running each model and naming the first node whose outputs differ.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/findings/expectations.h"

namespace cvm {

inline constexpr const char* kGoldenGraphsFormat = "cvmcheck-golden-graphs";
inline constexpr int kGoldenGraphsFormatVersion = 1;

struct GoldenGraphsOptions {
  std::string out = "golden-graphs";
  uint64_t seed = 20261202;    // fixed: changing it changes every model
  int nodes = 8;               // operator nodes per random model
  int64_t max_elements = 160;  // per entry: keeps the set a few hundred KiB
  int max_random = 24;         // random models at most
};

struct GoldenGraphsSummary {
  int64_t models = 0, files = 0, bytes = 0;
  std::map<std::string, int64_t> operators;      // nodes per operator over all models
  std::map<std::string, int64_t> storage_plans;  // models per plan
  std::set<std::string> missing;                 // generator operators no model holds
};

// Writes the set into options.out (new or empty). RuntimeError when the reference refuses a
// hand-picked model (a bug of ours).
GoldenGraphsSummary generate_golden_graphs(const Registry& registry, const GoldenGraphsOptions& options);

// `dir`'s MANIFEST.json names a golden graph set.
bool is_golden_graphs(const std::string& dir);

struct GoldenGraphResult {
  std::string name;
  std::string status;  // pass, fail, xfail, skipped, corrupt
  std::string detail;  // fail, xfail: the first differing node and what differs (and the entry)
};

struct GoldenGraphsResult {
  std::vector<GoldenGraphResult> models;
  bool ok() const;  // no fail, no corrupt
};

// A model that differs is "fail", or "xfail" where `xfail` explains its first difference as
// `cvmcheck graphs` judges one (the node's call against the per-call entries where it differs
// alone, else graph-level entries: harness/graph/graph_signature.h).
GoldenGraphsResult verify_golden_graphs(const Registry& registry, const std::string& dir,
                                        const std::string& backend,
                                        const ExpectationSet& xfail = ExpectationSet());

std::string golden_graphs_table(const GoldenGraphsResult& result, const std::string& backend);

}  // namespace cvm
