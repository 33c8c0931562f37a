// The cvm-runtime worker's whole models (the `G` message of the worker protocol,
// /docs/backend-protocol.md): a graph JSON, a params blob and the data input, run by the original
// twice in the same process:
//   - as a model, through its C API: CVMAPILoadModel then CVMAPIInference, whose packed output
//     (heads in order, int8 or int32 by the heads' precision, after the post-processing) is the
//     reply's packed bytes;
//   - entry by entry, through the runtime's own classes below the C API (model_probe.h): the same
//     load split into its phases, so that a failure names the node it blames, then each node's
//     executor run alone and every entry read right after the node that wrote it, with the
//     precision the loader inferred for it.
#pragma once

#include "cvmcheck_worker.hpp"

namespace cvm_runtime_worker {

// device_type: kDLFORMAL, kDLCPU or kDLGPU. Never throws for a failure of the original: every
// exception of its becomes the reply's outcome (std::logic_error -> logic_error, any other ->
// runtime_error, as its C API classes them).
cvmcheck_worker::ModelReply run_model(const cvmcheck_worker::GraphRequest& request,
                                      int device_type);

}  // namespace cvm_runtime_worker
