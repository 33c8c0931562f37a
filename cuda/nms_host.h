// cuda-host's runs of the vision steps that are not one item per thread: the warp steps
// (get_valid_counts' ballot placement and NMS's greedy pass, their 32 lanes emulated phase by
// phase with the primitives between, cuda/warp_device.h) and NMS's segmented sort (the device
// runner calls CUB; here std::stable_sort, which orders alike: by descending score, ties in
// input order).
#pragma once

#include "cuda/step_device.h"

namespace cvm::cuda {

// Runs step if it is one of those kinds and returns true; false for any other kind.
bool run_vision_host(const Step& step, const Views& v, const StepOutputs& o);

}  // namespace cvm::cuda
