// Helpers shared by the reference kernels. The reference validates its own inputs and
// attributes here and in each kernel file, independently of any production inference code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "cvmcheck/rules.h"
#include "cvmcheck/tensor.h"

namespace cvm::ref {

using Index = std::vector<int64_t>;

// Contract 1.1 for every input: precision in [1, 32], int8 only with precision <= 8, every
// value within +-alpha(p). LogicError naming the input otherwise.
void check_inputs(const OpContext& ctx);

// An int32 output: the inferred precision must be in [1, 32] and the shape within the limits
// (LogicError), checked before allocating.
Tensor make_output(const Shape& shape, int precision);

// Contract 1.1 self-check after computing: every output value fits its precision.
// RuntimeError otherwise (our precision rule or kernel is wrong).
void self_check(const std::vector<Tensor>& outputs);

// A reference kernel: check_inputs, compute, self_check.
Kernel kernel(std::vector<Tensor> (*compute)(const OpContext&));

// Every LogicError below names its rule: a bare name ("axis_out_of_range") that run_op qualifies
// with the operator's name, or a global id (cvmcheck/rules.h). The name is the one the
// operator's generator record gives the rule (harness/gen/<family>_gen.cc).

// axis in [-n, n) -> [0, n); LogicError breaking `rule` otherwise.
int normalize_axis(int64_t axis, int n, const std::string& what, std::string_view rule);

// value in [lo, hi) (half-open, as the contract writes attribute ranges); LogicError breaking
// `rule` otherwise.
void check_range(int64_t value, int64_t lo, int64_t hi, const std::string& what,
                 std::string_view rule);

// Row-major flat index <-> multi-index.
Index unravel(int64_t flat, const Shape& shape);
int64_t ravel(const Index& index, const Shape& shape);

// Element count after checking the limits: for shapes computed from attributes, which may be
// anything (LogicError breaking global.tensor_limits when out of limits).
int64_t checked_size(const Shape& shape, const std::string& what);

// Requires exactly `count` inputs (for operators whose count depends on attributes).
void check_input_count(const OpContext& ctx, size_t count, std::string_view rule);

}  // namespace cvm::ref
