// Reference kernels of the elementwise family: abs, cvm_precision, elemwise_add, elemwise_sub,
// negative, clip, cvm_clip, cvm_right_shift, cvm_left_shift. One loop per operator over the flat
// elements, each a transcription of the contract's formula in int64 (no intermediate can
// overflow: inputs are below 2^31 in magnitude and shifts are at most 32 bits).
#include <algorithm>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

// Largest magnitude clip's bounds may have: [-(2^31 - 1), 2^31 - 1].
constexpr int64_t kClipBound = (int64_t{1} << 31) - 1;

// floor(n / d) for d > 0 (C++ division truncates toward zero instead).
int64_t floor_div(int64_t n, int64_t d) {
  int64_t q = n / d;
  if (n % d != 0 && n < 0) --q;
  return q;
}

int64_t clamp_to_precision(int64_t v, int precision) {
  return std::clamp(v, -alpha(precision), alpha(precision));
}

// The output has the input's shape; `value(x)` maps each element (already within int32 range).
template <typename F>
Tensor map_elements(const Tensor& x, int precision, F value) {
  Tensor y = make_output(x.shape(), precision);
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t v = value(int64_t{x.get(i)});
    check(v >= INT32_MIN && v <= INT32_MAX, "value ", v, " overflows int32");
    y.set(i, static_cast<int32_t>(v));
  }
  return y;
}

// The `precision` attribute of cvm_clip and the shifts: in [1, 32] (the seeds' [1, 33)).
int precision_attr(const OpContext& ctx) {
  const int64_t precision = ctx.attrs.i("precision");
  check_range(precision, 1, 33, "precision", "precision_attr_outside_1_32");
  return static_cast<int>(precision);
}

int shift_bit_attr(const OpContext& ctx) {
  const int64_t shift_bit = ctx.attrs.i("shift_bit");
  check_range(shift_bit, 1, 33, "shift_bit", "shift_bit_outside_1_32");
  return static_cast<int>(shift_bit);
}

std::vector<Tensor> abs(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  return {map_elements(x, x.precision(), [](int64_t v) { return v >= 0 ? v : -v; })};
}

std::vector<Tensor> negative(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  return {map_elements(x, x.precision(), [](int64_t v) { return -v; })};
}

// Bits of |x|, and 1 for 0 (= ceil(log2(|x| + 1)) for x != 0). At most 31 for valid inputs.
std::vector<Tensor> cvm_precision(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  return {map_elements(x, 6, [](int64_t v) {
    const auto magnitude = static_cast<uint64_t>(v >= 0 ? v : -v);
    return int64_t{v == 0 ? 1 : bitlen(magnitude)};
  })};
}

template <bool kSubtract>
std::vector<Tensor> elemwise(const OpContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  verify_rule(a.shape() == b.shape(), "shapes_differ", "input shapes ", shape_str(a.shape()),
              " and ", shape_str(b.shape()), " differ");
  const int precision = std::max(a.precision(), b.precision()) + 1;
  verify_rule(precision <= kMaxPrecision, rules::kOutputPrecision, "output precision ", precision,
              " exceeds 32");
  Tensor y = make_output(a.shape(), precision);
  for (int64_t i = 0; i < a.size(); ++i) {
    const int64_t x0 = a.get(i);
    const int64_t x1 = b.get(i);
    const int64_t v = kSubtract ? x0 - x1 : x0 + x1;
    check(v >= INT32_MIN && v <= INT32_MAX, "value ", v, " overflows int32");
    y.set(i, static_cast<int32_t>(v));
  }
  return {y};
}

std::vector<Tensor> clip(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int64_t a_min = ctx.attrs.i("a_min");
  const int64_t a_max = ctx.attrs.i("a_max");
  verify_rule(a_min >= -kClipBound && a_min <= kClipBound, "a_min_below_range", "a_min ", a_min,
              " is outside [", -kClipBound, ", ", kClipBound, "]");
  // a_max parses as an int32, so it can only break this as INT32_MIN, below every valid a_min:
  // the call breaks a_min < a_max, whose rule it is named after.
  verify_rule(a_max >= -kClipBound && a_max <= kClipBound, "a_min_not_below_a_max", "a_max ", a_max,
              " is outside [", -kClipBound, ", ", kClipBound, "]");
  verify_rule(a_min < a_max, "a_min_not_below_a_max", "a_min ", a_min, " must be below a_max ",
              a_max);
  const int64_t range = std::max(a_min >= 0 ? a_min : -a_min, a_max >= 0 ? a_max : -a_max);
  const int precision = bitlen(static_cast<uint64_t>(range + 1)) + 1;
  verify_rule(precision <= kMaxPrecision, rules::kOutputPrecision, "output precision ", precision,
              " from bounds [", a_min, ", ", a_max, "] exceeds 32");
  return {map_elements(x, precision,
                       [=](int64_t v) { return std::min(std::max(v, a_min), a_max); })};
}

std::vector<Tensor> cvm_clip(const OpContext& ctx) {
  const int precision = precision_attr(ctx);  // is_sign is accepted and ignored
  return {map_elements(ctx.inputs[0], precision,
                       [=](int64_t v) { return clamp_to_precision(v, precision); })};
}

std::vector<Tensor> cvm_right_shift(const OpContext& ctx) {
  const int precision = precision_attr(ctx);
  const int shift_bit = shift_bit_attr(ctx);
  const int64_t half_step = int64_t{1} << (shift_bit - 1);  // 2^(s-1), at most 2^31
  return {map_elements(ctx.inputs[0], precision, [=](int64_t v) {
    const int64_t rounded = floor_div(floor_div(v, half_step) + 1, 2);
    return clamp_to_precision(rounded, precision);
  })};
}

std::vector<Tensor> cvm_left_shift(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int precision = precision_attr(ctx);
  const int shift_bit = shift_bit_attr(ctx);
  verify_rule(x.precision() + shift_bit <= kMaxPrecision, "shift_past_32_bits", "input precision ",
              x.precision(), " + shift_bit ", shift_bit, " exceeds 32");
  const int64_t factor = int64_t{1} << shift_bit;
  return {map_elements(x, precision, [=](int64_t v) {
    // |v| <= 2^(p0-1) - 1 with p0 + s <= 32: the product stays below 2^31.
    return clamp_to_precision(v * factor, precision);
  })};
}

}  // namespace

void add_elementwise(Backend& backend) {
  backend.add("abs", kernel(abs));
  backend.add("cvm_precision", kernel(cvm_precision));
  backend.add("elemwise_add", kernel(elemwise<false>));
  backend.add("elemwise_sub", kernel(elemwise<true>));
  backend.add("negative", kernel(negative));
  backend.add("clip", kernel(clip));
  backend.add("cvm_clip", kernel(cvm_clip));
  backend.add("cvm_right_shift", kernel(cvm_right_shift));
  backend.add("cvm_left_shift", kernel(cvm_left_shift));
}

}  // namespace cvm::ref
