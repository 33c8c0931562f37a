// Small helpers for tests that call operators directly.
#pragma once

#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "ops/schema.h"

namespace cvm::testing {

// Runs `op` on `backend` (default: the reference) with attributes given as JSON text.
Outcome call(const std::string& op, const std::string& attrs_json,
             const std::vector<ExampleTensor>& inputs, const std::string& backend = "reference");

// "ok" / "logic_error: message" / "runtime_error: message", for assertion messages.
std::string describe(const Outcome& outcome);

}  // namespace cvm::testing
