// One operator call as data: what generators produce, what the diff engine runs, what a repro
// case directory holds.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"

namespace cvm {

struct Call {
  std::string op;
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<Tensor> inputs;
  // For a generated invalid call: the one rule it breaks (the generator's name for it, e.g.
  // "axis_out_of_range"), that rule's id (docs/contract.md, "Rule ids": "sum.axis_out_of_range",
  // "global.value_range") and its expected class. A call with a rule_id is known to break that
  // rule alone, so the reference must raise it and a backend that reports an id must report it.
  std::string rule;
  std::string rule_id;
  std::optional<OutcomeKind> expected;
};

// Elements of all inputs together: the size a call (or a repro) is measured and bounded by.
int64_t input_elements(const Call& call);

// One line for logs and counterexamples: op, attributes, input shapes/precisions and, for small
// inputs, their values.
std::string describe_call(const Call& call, size_t max_values = 16);
std::ostream& operator<<(std::ostream& out, const Call& call);
// RapidCheck prints counterexamples through showValue (found by argument-dependent lookup).
void showValue(const Call& call, std::ostream& out);

}  // namespace cvm
