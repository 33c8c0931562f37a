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
#include "cvmcheck/rules.h"
#include "cvmcheck/tensor.h"

namespace cvm::infer {

// Every input: precision in [1, 32], int8 only with p <= 8, values within +-alpha(p).
// One min/max pass per tensor (vectorizable), LogicError naming the input otherwise. With
// team > 1 a large tensor's pass is split over that many OpenMP threads (the optimized backend
// passes its thread count: on a 64 MiB input the single-threaded pass would cost as much as the
// operator itself); the CUDA host code keeps one.
void validate_inputs(const OpContext& ctx, int team = 1);

// The storage checks of validate_inputs alone (precision, int8 with p <= 8), for kernels that
// fold the value check into their own pass over the data and then call check_input_values.
void validate_input_storage(const OpContext& ctx);
// The value check of validate_inputs for input k, given the smallest and largest value the
// kernel saw in it (lo > hi: it has no values). LogicError with validate_inputs' message.
void check_input_values(const OpContext& ctx, size_t k, int64_t lo, int64_t hi);

// An output's shape and inferred precision, validated before any allocation.
struct OutputSpec {
  Shape shape;
  int precision = 0;
};

// LogicError unless precision is in [1, 32] and the shape is within the tensor limits.
void validate_output(const OutputSpec& spec);
// Allocates an int32 output after validate_output; contents unspecified (the kernel writes all).
Tensor allocate(const OutputSpec& spec);

// axis in [-n, n) -> [0, n); LogicError breaking `rule` otherwise. Every LogicError of infer/
// names its rule as the reference does (reference/common.h): a bare name that run_op qualifies
// with the operator's, or a global id (cvmcheck/rules.h).
int axis_in(int64_t axis, int n, const char* what, const char* rule);

}  // namespace cvm::infer
