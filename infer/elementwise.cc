#include "infer/elementwise.h"

#include <algorithm>

namespace cvm::infer {

int precision_attr(const OpContext& ctx) {
  const int64_t p = ctx.attrs.i("precision");
  if (p < 1 || p > 32) {
    fail_rule("precision_attr_outside_1_32", "precision attribute ", p, " not in [1, 32]");
  }
  return static_cast<int>(p);
}

int shift_attr(const OpContext& ctx, bool left) {
  const int64_t s = ctx.attrs.i("shift_bit");
  if (s < 1 || s > 32) fail_rule("shift_bit_outside_1_32", "shift_bit ", s, " not in [1, 32]");
  if (left && ctx.inputs[0].precision() + s > 32) {
    fail_rule("shift_past_32_bits", "input precision ", ctx.inputs[0].precision(), " + shift_bit ",
              s, " exceeds 32");
  }
  return static_cast<int>(s);
}

ClipBounds infer_clip(const OpContext& ctx) {
  constexpr int64_t kBound = (int64_t{1} << 31) - 1;
  ClipBounds c{ctx.attrs.i("a_min"), ctx.attrs.i("a_max"), 0};
  if (c.lo < -kBound || c.lo > kBound) {
    fail_rule("a_min_below_range", "clip bounds [", c.lo, ", ", c.hi, "] exceed +-(2^31 - 1)");
  }
  // a_max out of range is INT32_MIN, below every valid a_min: named as the reference names it.
  if (c.hi < -kBound || c.hi > kBound) {
    fail_rule("a_min_not_below_a_max", "clip bounds [", c.lo, ", ", c.hi, "] exceed +-(2^31 - 1)");
  }
  if (c.lo >= c.hi) {
    fail_rule("a_min_not_below_a_max", "a_min ", c.lo, " is not below a_max ", c.hi);
  }
  const int64_t magnitude = std::max(c.lo < 0 ? -c.lo : c.lo, c.hi < 0 ? -c.hi : c.hi);
  c.precision = bitlen(static_cast<uint64_t>(magnitude + 1)) + 1;
  if (c.precision > 32) {
    fail_rule(rules::kOutputPrecision, "clip output precision ", c.precision, " exceeds 32");
  }
  return c;
}

OutputSpec infer_elemwise_binary(const OpContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  if (a.shape() != b.shape()) {
    fail_rule("shapes_differ", "shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()),
              " differ");
  }
  OutputSpec out{a.shape(), std::max(a.precision(), b.precision()) + 1};
  validate_output(out);
  return out;
}

BroadcastInference infer_broadcast(const OpContext& ctx, const std::string& op) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const size_t n = std::max(a.shape().size(), b.shape().size());
  BroadcastInference inf;
  inf.a_shape.assign(n - a.shape().size(), 1);
  inf.a_shape.insert(inf.a_shape.end(), a.shape().begin(), a.shape().end());
  inf.b_shape.assign(n - b.shape().size(), 1);
  inf.b_shape.insert(inf.b_shape.end(), b.shape().begin(), b.shape().end());
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = inf.a_shape[i], y = inf.b_shape[i];
    if (x != y && x != 1 && y != 1) {
      fail_rule("shapes_not_broadcastable", "shapes ", shape_str(a.shape()), " and ",
                shape_str(b.shape()), " do not broadcast");
    }
    inf.output.shape.push_back(std::max(x, y));
  }
  const int p0 = a.precision(), p1 = b.precision();
  if (op == "broadcast_add" || op == "broadcast_sub") inf.output.precision = std::max(p0, p1) + 1;
  else if (op == "broadcast_mul") inf.output.precision = p0 + p1;
  else if (op == "broadcast_div") inf.output.precision = p0;
  else if (op == "broadcast_max") inf.output.precision = std::max(p0, p1);
  else inf.output.precision = std::max(p0, 2);  // broadcast_greater
  validate_output(inf.output);
  return inf;
}

}  // namespace cvm::infer
