// Production inference: the shape, attribute and precision validation of the production path,
// shared by the optimized CPU and CUDA backends. Written separately from the reference's own
// checks (reference/), so that a mistake in one is caught by the differential harness instead
// of being copied into both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "cvmcheck/tensor.h"

namespace cvm::infer {

// Every input: precision in [1, 32], int8 only with p <= 8, values within +-alpha(p).
// One min/max pass per tensor (vectorizable), LogicError naming the input otherwise.
void validate_inputs(const OpContext& ctx);

// An output's shape and inferred precision, validated before any allocation.
struct OutputSpec {
  Shape shape;
  int precision = 0;
};

// LogicError unless precision is in [1, 32] and the shape is within the tensor limits.
void validate_output(const OutputSpec& spec);
// Allocates an int32 output after validate_output; contents unspecified (the kernel writes all).
Tensor allocate(const OutputSpec& spec);

// axis in [-n, n) -> [0, n); LogicError otherwise.
int axis_in(int64_t axis, int n, const char* what);

}  // namespace cvm::infer
