// Optimized elementwise family: one fused pass per operator over int8 or int32 data
// (optimized/fused_pass.h) that computes the output and checks the input values from the same
// loads. Each operator is an int32 formula without undefined behaviour for any int32 input
// (unsigned wrap-around where a valid input cannot overflow anyway), equal to the contract's
// int64 arithmetic on valid inputs; int32 lanes vectorize twice as wide as int64 ones.
#include <algorithm>

#include "infer/elementwise.h"
#include "optimized/fused_pass.h"
#include "optimized/kernels.h"

namespace cvm::opt {
namespace {

// Storage checks, inference and allocation come first (the caller did the first two); the
// value check follows the pass, which only then has seen every value.
template <typename F>
std::vector<Tensor> unary(const OpContext& ctx, int precision, F f) {
  const Tensor& x = ctx.inputs[0];
  Tensor y = infer::allocate({x.shape(), precision});
  const fused::Seen seen = x.dtype() == DType::kInt8
                               ? fused::unary(x.i8(), y.i32(), x.size(), f)
                               : fused::unary(x.i32(), y.i32(), x.size(), f);
  infer::check_input_values(ctx, 0, seen.lo, seen.hi);
  return results(std::move(y));
}

// |v| and -v through uint32: INT32_MIN (never valid) wraps instead of overflowing.
int32_t magnitude_bits(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  return static_cast<int32_t>(v < 0 ? 0u - u : u);
}

int32_t alpha32(int p) { return static_cast<int32_t>(alpha(p)); }

std::vector<Tensor> abs(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  return unary(ctx, ctx.inputs[0].precision(), [](int32_t v) { return magnitude_bits(v); });
}

std::vector<Tensor> negative(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  return unary(ctx, ctx.inputs[0].precision(),
               [](int32_t v) { return static_cast<int32_t>(0u - static_cast<uint32_t>(v)); });
}

std::vector<Tensor> cvm_precision(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  // bitlen(|v|), with 0 -> 1: or-ing in bit 0 gives 0 and 1 the same bit length, 1.
  return unary(ctx, 6, [](int32_t v) {
    const auto m = static_cast<uint32_t>(magnitude_bits(v)) | 1u;
    return 32 - __builtin_clz(m);
  });
}

std::vector<Tensor> clip(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  const infer::ClipBounds c = infer::infer_clip(ctx);
  // Bounds are within +-(2^31 - 1) (infer_clip).
  const auto lo = static_cast<int32_t>(c.lo), hi = static_cast<int32_t>(c.hi);
  return unary(ctx, c.precision, [lo, hi](int32_t v) { return std::clamp(v, lo, hi); });
}

std::vector<Tensor> cvm_clip(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  const int p = infer::precision_attr(ctx);
  const int32_t a = alpha32(p);
  return unary(ctx, p, [a](int32_t v) { return std::clamp(v, -a, a); });
}

std::vector<Tensor> cvm_right_shift(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  const int p = infer::precision_attr(ctx);
  const int s = infer::shift_attr(ctx, false);
  const int32_t a = alpha32(p);
  // floor(v / 2^(s-1)) is an arithmetic shift (s - 1 <= 31); round half up, floor((w + 1) / 2),
  // as (w >> 1) + (w & 1), which cannot overflow even for w = INT32_MAX.
  return unary(ctx, p, [a, s](int32_t v) {
    const int32_t w = v >> (s - 1);
    return std::clamp((w >> 1) + (w & 1), -a, a);
  });
}

std::vector<Tensor> cvm_left_shift(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  const int p = infer::precision_attr(ctx);
  const int s = infer::shift_attr(ctx, true);  // p0 + s <= 32 with p0 >= 1: s <= 31
  const int32_t a = alpha32(p);
  // clamp(v * 2^s, -a, a) without the product overflowing: beyond +-(a >> s) it clamps, as
  // ((a >> s) + 1) * 2^s > a; within, the product is at most a in magnitude.
  const int32_t m = a >> s;
  return unary(ctx, p, [a, s, m](int32_t v) {
    const auto product = static_cast<int32_t>(static_cast<uint32_t>(v) << s);
    return v > m ? a : v < -m ? -a : product;
  });
}

template <typename F>
void zip_any(const Tensor& a, const Tensor& b, Tensor& y, F f, std::array<fused::Seen, 2>& seen) {
  const int64_t n = y.size();
  const bool a8 = a.dtype() == DType::kInt8, b8 = b.dtype() == DType::kInt8;
  if (a8 && b8) seen = fused::binary(a.i8(), b.i8(), y.i32(), n, f);
  else if (a8) seen = fused::binary(a.i8(), b.i32(), y.i32(), n, f);
  else if (b8) seen = fused::binary(a.i32(), b.i8(), y.i32(), n, f);
  else seen = fused::binary(a.i32(), b.i32(), y.i32(), n, f);
}

template <bool kSubtract>
std::vector<Tensor> elemwise(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  Tensor y = infer::allocate(infer::infer_elemwise_binary(ctx));
  // The output precision max(p0, p1) + 1 <= 32 bounds valid operands by 2^30 - 1: the sum is
  // exact in int32; invalid ones wrap (uint32) instead of overflowing.
  std::array<fused::Seen, 2> seen;
  zip_any(ctx.inputs[0], ctx.inputs[1], y, [](int32_t a, int32_t b) {
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    return static_cast<int32_t>(kSubtract ? ua - ub : ua + ub);
  }, seen);
  for (size_t k = 0; k < 2; ++k) infer::check_input_values(ctx, k, seen[k].lo, seen[k].hi);
  return results(std::move(y));
}

}  // namespace

void add_elementwise(Backend& backend) {
  backend.add("abs", abs);
  backend.add("negative", negative);
  backend.add("cvm_precision", cvm_precision);
  backend.add("clip", clip);
  backend.add("cvm_clip", cvm_clip);
  backend.add("cvm_right_shift", cvm_right_shift);
  backend.add("cvm_left_shift", cvm_left_shift);
  backend.add("elemwise_add", elemwise<false>);
  backend.add("elemwise_sub", elemwise<true>);
}

}  // namespace cvm::opt
