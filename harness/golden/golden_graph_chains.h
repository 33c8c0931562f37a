// The hand-picked models of the golden graphs (docs/golden-format.md, "Golden graphs"): the
// natural chains of real quantized models, built node by node with each node's shapes and
// precisions from the production inference and their values drawn from a fixed seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_storage.h"

namespace cvm {

struct GoldenChain {
  std::string name;  // the folder's name
  std::string note;  // what it is, for people
  graph::Graph graph;
  graph::ModelInputs inputs;
  graph::StoragePlan storage = graph::StoragePlan::kOnePerEntry;
};

// conv2d-bias-requant-relu-pool, relu-flatten-dense-requant and get_valid_counts-NMS, each a
// function of `seed`.
std::vector<GoldenChain> golden_chains(const Registry& registry, uint64_t seed);

}  // namespace cvm
