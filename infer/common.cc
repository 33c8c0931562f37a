#include "infer/common.h"

#include <algorithm>

namespace cvm::infer {
namespace {

// Below this many elements a tensor's value pass stays on one thread: waking the pool costs
// more than the pass (the optimized kernels use the same threshold, opt::threads_for).
constexpr int64_t kTeamMinElements = int64_t{1} << 16;

template <typename T>
void min_max(const T* data, int64_t n, int team, int64_t& lo, int64_t& hi) {
  T mn = n > 0 ? data[0] : T{0}, mx = mn;
  if (team > 1 && n >= kTeamMinElements) {
#pragma omp parallel for simd num_threads(team) schedule(static) reduction(min : mn) \
    reduction(max : mx)
    for (int64_t i = 0; i < n; ++i) {
      mn = std::min(mn, data[i]);
      mx = std::max(mx, data[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      mn = std::min(mn, data[i]);
      mx = std::max(mx, data[i]);
    }
  }
  lo = mn;
  hi = mx;
}

void check_storage(const Tensor& x, size_t k) {
  const int p = x.precision();
  if (p < kMinPrecision || p > kMaxPrecision) {
    fail_logic("input ", k, ": precision ", p, " not in [1, 32]");
  }
  if (x.dtype() == DType::kInt8 && p > 8) fail_logic("input ", k, ": int8 data with precision ", p);
}

}  // namespace

void validate_inputs(const OpContext& ctx, int team) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& x = ctx.inputs[k];
    check_storage(x, k);
    int64_t lo = 0, hi = 0;
    if (x.dtype() == DType::kInt8) {
      min_max(x.i8(), x.size(), team, lo, hi);
    } else {
      min_max(x.i32(), x.size(), team, lo, hi);
    }
    check_input_values(ctx, k, lo, hi);
  }
}

void validate_input_storage(const OpContext& ctx) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) check_storage(ctx.inputs[k], k);
}

void check_input_values(const OpContext& ctx, size_t k, int64_t lo, int64_t hi) {
  const int p = ctx.inputs[k].precision();
  const int64_t a = alpha(p);
  if (lo <= hi && (lo < -a || hi > a)) {
    fail_logic("input ", k, ": values in [", lo, ", ", hi, "] exceed precision ", p);
  }
}

void validate_output(const OutputSpec& spec) {
  if (spec.precision < kMinPrecision || spec.precision > kMaxPrecision) {
    fail_logic("output precision ", spec.precision, " not in [1, 32]");
  }
  validate_shape(spec.shape, "output");
}

Tensor allocate(const OutputSpec& spec) {
  validate_output(spec);
  return Tensor::uninitialized(DType::kInt32, spec.shape, spec.precision);
}

int axis_in(int64_t axis, int n, const char* what) {
  if (axis < -n || axis >= n) fail_logic(what, " ", axis, " not in [", -n, ", ", n, ")");
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

}  // namespace cvm::infer
