#include "support/call.h"

#include <nlohmann/json.hpp>

#include "registry/registry.h"

namespace cvm::testing {

Outcome call(const std::string& op, const std::string& attrs_json,
             const std::vector<ExampleTensor>& inputs, const std::string& backend) {
  std::vector<Tensor> tensors;
  for (const ExampleTensor& input : inputs) tensors.push_back(to_tensor(input));
  return run_op_outcome(registry(), backend, op, parse_attrs_json(attrs_json), tensors);
}

std::string describe(const Outcome& outcome) {
  std::string text = outcome_name(outcome.kind);
  if (!outcome.message.empty()) text += ": " + outcome.message;
  return text;
}

}  // namespace cvm::testing
