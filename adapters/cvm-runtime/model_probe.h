// A model run entry by entry by the original's own graph runtime (its CvmRuntime class, below the
// C API): the load of `cvm.runtime.create` split into its phases (the JSON reader, the graph
// checks, shape/type/precision inference, storage), parameters and data set, then each node's
// executor alone, every entry read right after the node that wrote it.
//
// The original names no node in most of its errors; the probe finds the node it blames by running
// the runtime's own code again on a part of the model: an operator's attributes on a copy of each
// node, inference on ever longer prefixes of the node list, parameters one by one. The node blamed
// is the first whose part fails with the very message of the whole (-1 where none does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model_runner.h"

namespace cvm_runtime_worker {

struct ProbeResult {
  bool failed = false;
  bool logic = false;  // the failure is a std::logic_error (else a runtime_error)
  std::string what;    // the original's message, as its exception has it
  int32_t node = -1;
  std::vector<std::optional<cvmcheck_worker::Tensor>> entries;  // in entry order
};

ProbeResult probe_model(const cvmcheck_worker::GraphRequest& request, int device_type);

}  // namespace cvm_runtime_worker
