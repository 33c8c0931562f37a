#include "infer/common.h"

#include <algorithm>

namespace cvm::infer {
namespace {

template <typename T>
void min_max(const T* data, int64_t n, int64_t& lo, int64_t& hi) {
  T mn = n > 0 ? data[0] : T{0}, mx = mn;
  for (int64_t i = 0; i < n; ++i) {
    mn = std::min(mn, data[i]);
    mx = std::max(mx, data[i]);
  }
  lo = mn;
  hi = mx;
}

}  // namespace

void validate_inputs(const OpContext& ctx) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& x = ctx.inputs[k];
    const int p = x.precision();
    if (p < kMinPrecision || p > kMaxPrecision) fail_logic("input ", k, ": precision ", p, " not in [1, 32]");
    if (x.dtype() == DType::kInt8 && p > 8) fail_logic("input ", k, ": int8 data with precision ", p);
    int64_t lo = 0, hi = 0;
    if (x.dtype() == DType::kInt8) {
      min_max(x.i8(), x.size(), lo, hi);
    } else {
      min_max(x.i32(), x.size(), lo, hi);
    }
    const int64_t a = alpha(p);
    if (lo < -a || hi > a) {
      fail_logic("input ", k, ": values in [", lo, ", ", hi, "] exceed precision ", p);
    }
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
