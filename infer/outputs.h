// Every operator's production output specs by name, in one table: what a backend built on infer/
// would allocate for a call, without running a kernel. The load phase of a whole model
// (harness/graph/) infers each node's entries from it before any node runs.
#pragma once

#include <string>
#include <vector>

#include "infer/common.h"

namespace cvm::infer {

// The inputs' validity, the operator's production inference and each output's limits, as the
// production kernels check them before they compute. A RuntimeError for an operator the table
// lacks (tests/completeness_test.cc keeps every listed operator in it).
std::vector<OutputSpec> output_specs(const OpContext& ctx);

// Whether the table has `op` (a canonical name).
bool has_output_specs(const std::string& op);

}  // namespace cvm::infer
