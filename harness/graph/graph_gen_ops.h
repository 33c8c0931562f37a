// The graph generator's operators: for each, what it takes as its first input (rank, precision)
// and a drafter that, given that input and the graph's live entries, draws its attributes and
// its other inputs (other live entries, or new parameters with their shapes and precisions).
// A draft is only a proposal: the generator keeps it when the production inference accepts it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/tensor.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_rng.h"

namespace cvm::graph {

// An entry of the graph under construction that a new node may take.
struct LiveEntry {
  EntryRef ref;
  Shape shape;
  int precision = 0;
  std::string producer;  // the operator that made it; "data" or "param" for a variable
};

// A new parameter: its shape and precision; its values are drawn when the draft is kept.
struct ParamDraft {
  Shape shape;
  int precision = 8;
  bool nonzero = false;  // no zero value (a divisor)
  int64_t lo = 0, hi = -1;  // lo <= hi: values drawn in [lo, hi] instead (indices, scores)
};

// One input of a draft: a live entry (its index in the live list) or a new parameter.
struct DraftInput {
  int live = -1;  // >= 0: live[live]
  ParamDraft param;
};

struct Draft {
  std::string op;
  std::vector<std::pair<std::string, std::string>> attrs;  // string values, in order
  std::vector<DraftInput> inputs;
};

using Drafter = std::optional<Draft> (*)(Rng& rng, int primary, const std::vector<LiveEntry>& live);

struct OpDrafter {
  std::string op;
  int rank = 0;           // the first input's rank; 0: any
  int max_precision = 32;  // the first input's largest precision (conv2d and dense: 8)
  Drafter draft;
};

// Every operator the generator can insert, in the registry's order.
const std::vector<OpDrafter>& op_drafters();
const OpDrafter* find_drafter(const std::string& op);

// Parts of the table, one per file (graph_gen_nn.cc, graph_gen_transform.cc).
void add_nn_and_elementwise_drafters(std::vector<OpDrafter>& table);
void add_transform_and_vision_drafters(std::vector<OpDrafter>& table);

// Helpers shared by the drafters.
std::string tuple_text(const std::vector<int64_t>& v);
DraftInput live_input(int index);
DraftInput param_input(Shape shape, int precision);

}  // namespace cvm::graph
