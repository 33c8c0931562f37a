// Production inference of the elementwise and broadcast families.
#pragma once

#include "infer/common.h"

namespace cvm::infer {

// cvm_clip, cvm_right_shift, cvm_left_shift: the `precision` attribute, in [1, 32].
int precision_attr(const OpContext& ctx);
// cvm_right_shift, cvm_left_shift: `shift_bit` in [1, 32]; left shift also needs p0 + s <= 32.
int shift_attr(const OpContext& ctx, bool left);

struct ClipBounds {
  int64_t lo = 0, hi = 0;
  int precision = 0;
};
// clip: a_min < a_max, each within +-(2^31 - 1); precision bitlen(max|bound| + 1) + 1 <= 32.
ClipBounds infer_clip(const OpContext& ctx);

// elemwise_add/sub: identical shapes; precision max(p0, p1) + 1.
OutputSpec infer_elemwise_binary(const OpContext& ctx);

struct BroadcastInference {
  OutputSpec output;
  Shape a_shape, b_shape;  // both right-aligned to the output's ndim
};
// broadcast_*: no attributes, numpy broadcasting, precision per operator.
BroadcastInference infer_broadcast(const OpContext& ctx, const std::string& op);

}  // namespace cvm::infer
