// The production inference (infer/) of one operator node, as a model's load phase needs it: its
// outputs' shapes and precisions from its inputs' shapes and precisions alone, before any value
// exists. The infer/ functions take tensors; they get zero-valued placeholders of the inputs'
// shapes and precisions (zero fits every precision, and no rule of infer/ looks at a value for
// anything but its range).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cvmcheck/registry.h"

namespace cvm::graph {

struct EntrySpec {
  Shape shape;
  int precision = 0;
};

// LogicError (rule qualified with the operator, as run_op does) when the node is invalid: an
// unknown operator, bad attributes, a wrong input count, or any rule of infer/.
std::vector<EntrySpec> infer_node(const Registry& registry, const std::string& op,
                                  const nlohmann::json& attrs, const std::vector<EntrySpec>& inputs);

}  // namespace cvm::graph
