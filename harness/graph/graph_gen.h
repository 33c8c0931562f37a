// Random valid models, NNSmith's way (docs/graphs.md, "The generator"): one operator node
// inserted at a time, its first input chosen among the live entries by rank and precision, its
// attributes and other inputs drawn for them (graph_gen_ops.h), the insertion kept only when the
// production inference (infer/) accepts it. Where a node wants at most 8 bits and its input has
// more, a requantization is inserted first, as MRT does (cvm_right_shift or cvm_clip). The
// natural chains of real models (conv2d, bias, requantization, relu, pooling; flatten, dense;
// get_valid_counts then non_max_suppression) are weighted up. A model is a function of its seed.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "cvmcheck/registry.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_storage.h"

namespace cvm::graph {

struct GenOptions {
  int nodes = 10;                // operator nodes to insert (1 to about 30)
  std::set<std::string> ops;     // the operators allowed; empty: every one the generator knows
  int64_t max_elements = 4096;   // per entry: keeps a model cheap to run
  // The storage plan; nullopt: drawn per model (a third each), from a stream of its own so that
  // the plan drawn changes nothing else of the model.
  std::optional<StoragePlan> storage;
  // The post-processing (Graph::postprocess) is drawn from the same stream as the plan, after it:
  // none, argmax, or detection where the heads can be packed row by row.
  // A model whose every head is constant (all its values equal, on the reference) is drawn again
  // from a derived seed, at most kMaxConstantRedraws times.
  bool redraw_constant = true;
};

inline constexpr int kMaxConstantRedraws = 4;

struct GeneratedModel {
  Graph graph;
  ModelInputs inputs;
  uint64_t seed = 0;
  int drafts = 0;   // insertions tried
  int refused = 0;  // of them, refused by the production inference or the size bound
  StoragePlan storage = StoragePlan::kOnePerEntry;
  int redrawn = 0;  // models drawn again because their outputs were all constant
};

GeneratedModel generate_model(const Registry& registry, uint64_t seed, const GenOptions& options);

// Every head of the reference's run of `m` holds at least two values, all equal (a head of one
// value says nothing); false when the reference refuses the model.
bool outputs_constant(const Registry& registry, const GeneratedModel& m);

// The operators the generator can insert.
std::set<std::string> generator_ops();

}  // namespace cvm::graph
