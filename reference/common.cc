#include "common.h"

namespace cvm::ref {
namespace {

// True when some element lies outside [-a, a]. One plain pass per dtype that the compiler
// vectorizes: the checks run on every input and output of every call the harness makes, so they
// are kept fast; only on a failure do the loops below find and name the first offender.
template <typename T>
bool any_outside(const T* data, int64_t n, int64_t a) {
  T lo = 0, hi = 0;  // a min/max reduction in the element type, which the compiler vectorizes
  for (int64_t i = 0; i < n; ++i) {
    lo = data[i] < lo ? data[i] : lo;
    hi = data[i] > hi ? data[i] : hi;
  }
  return int64_t{lo} < -a || int64_t{hi} > a;
}

bool any_outside(const Tensor& x, int64_t a) {
  return x.dtype() == DType::kInt8 ? any_outside(x.i8(), x.size(), a)
                                   : any_outside(x.i32(), x.size(), a);
}

}  // namespace

void check_inputs(const OpContext& ctx) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& x = ctx.inputs[k];
    const int p = x.precision();
    verify_rule(p >= kMinPrecision && p <= kMaxPrecision, rules::kPrecisionRange, "input ", k,
                " precision ", p, " is outside [1, 32]");
    verify_rule(x.dtype() != DType::kInt8 || p <= 8, rules::kInt8Precision, "input ", k,
                " is int8 with precision ", p, " > 8");
    const int64_t a = alpha(p);
    if (!any_outside(x, a)) continue;
    for (int64_t i = 0; i < x.size(); ++i) {
      const int64_t v = x.get(i);
      verify_rule(v >= -a && v <= a, rules::kValueRange, "input ", k, " value ", v, " at ", i,
                  " exceeds precision ", p, " (|v| <= ", a, ")");
    }
  }
}

Tensor make_output(const Shape& shape, int precision) {
  verify_rule(precision >= kMinPrecision && precision <= kMaxPrecision, rules::kOutputPrecision,
              "inferred output precision ", precision, " is outside [1, 32]");
  validate_shape(shape, "output");
  return Tensor::zeros(DType::kInt32, shape, precision);
}

void self_check(const std::vector<Tensor>& outputs) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& y = outputs[k];
    check(y.dtype() == DType::kInt32, "output ", k, " is not int32");
    const int64_t a = alpha(y.precision());
    if (!any_outside(y, a)) continue;
    for (int64_t i = 0; i < y.size(); ++i) {
      const int64_t v = y.get(i);
      check(v >= -a && v <= a, "output ", k, " value ", v, " at ", i,
            " does not fit its inferred precision ", y.precision());
    }
  }
}

Kernel kernel(std::vector<Tensor> (*compute)(const OpContext&)) {
  return [compute](const OpContext& ctx) {
    check_inputs(ctx);
    std::vector<Tensor> outputs = compute(ctx);
    self_check(outputs);
    return outputs;
  };
}

int normalize_axis(int64_t axis, int n, const std::string& what, std::string_view rule) {
  verify_rule(axis >= -n && axis < n, rule, what, " ", axis, " is outside [", -n, ", ", n, ")");
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

void check_range(int64_t value, int64_t lo, int64_t hi, const std::string& what,
                 std::string_view rule) {
  verify_rule(value >= lo && value < hi, rule, what, " ", value, " is outside [", lo, ", ", hi,
              ")");
}

Index unravel(int64_t flat, const Shape& shape) {
  Index index(shape.size(), 0);
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

int64_t ravel(const Index& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
  return flat;
}

int64_t checked_size(const Shape& shape, const std::string& what) {
  validate_shape(shape, what);
  return shape_size(shape);
}

void check_input_count(const OpContext& ctx, size_t count, std::string_view rule) {
  verify_rule(ctx.inputs.size() == count, rule, "needs ", count, " inputs here, got ",
              ctx.inputs.size());
}

}  // namespace cvm::ref
