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
  // For a generated invalid call: the one rule it breaks (a short tag), and its expected class.
  std::string rule;
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
