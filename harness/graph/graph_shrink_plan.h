// What a shrink step keeps of the original model (graph_shrink.h), and the model it makes: which
// nodes stay, which operator nodes are frozen into parameters, which are bypassed, and which are
// kept however little consumes them. The plan refers to the original graph's nodes throughout,
// so every step is a change of the plan and the model is rebuilt from the original each time.
#pragma once

#include <optional>
#include <vector>

#include "harness/graph/graph_shrink.h"

namespace cvm::graph {

struct ShrinkPlan {
  std::vector<char> kept;    // per node of the original graph
  std::vector<char> frozen;  // per operator node: its outputs become parameters
  std::vector<char> roots;   // per node: kept while it is kept, consumed or not
  // Per node: its (single) output replaced, for its consumers, by this entry of the original.
  std::vector<std::optional<EntryRef>> bypass;
  bool target_heads = false;  // the heads are the failing node's outputs (else the model's own)
  bool operator==(const ShrinkPlan& o) const {
    return kept == o.kept && frozen == o.frozen && roots == o.roots && bypass == o.bypass &&
           target_heads == o.target_heads;
  }
};

// Whether the graph's structure is one the plan can follow: op_attrs and the per-entry lists
// long enough, every input an earlier node's existing output, every head an existing output.
bool shrinkable(const Graph& g, int node);

// Everything kept; the roots are the failing node and the nodes nothing consumes.
ShrinkPlan initial_plan(const Graph& g, int node);

// `e` with the bypassed nodes followed to the entry that replaces it.
EntryRef resolve_entry(const ShrinkPlan& p, EntryRef e);

// Keeps only what the roots, the failing node and (without target_heads) the heads need.
void prune(const Graph& g, ShrinkPlan& p, int node);

// The model the plan makes, with the failing node's new index; nullopt when it cannot be made
// (an entry to freeze has no recorded value, an input that is no longer kept).
struct PlannedModel {
  Model model;
  int node = -1;
};
std::optional<PlannedModel> build_model(const Model& original, const ShrinkPlan& p, int node,
                                        const std::vector<std::optional<Tensor>>& recorded);

}  // namespace cvm::graph
