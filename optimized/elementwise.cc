// Optimized elementwise family: one contiguous pass per operator over int8 or int32 data,
// computed in int64 where the contract's arithmetic needs it (vectorizes on every ISA); threads
// split the flat range above the work threshold.
#include <algorithm>

#include "infer/elementwise.h"
#include "optimized/kernels.h"

namespace cvm::opt {
namespace {

// y[i] = f(x[i]) for every i, over int8 or int32 input.
template <typename F>
void map_unary(const Tensor& x, Tensor& y, F f) {
  const int64_t n = x.size();
  int32_t* out = y.i32();
  const int team = threads_for(n);
  if (x.dtype() == DType::kInt8) {
    const int8_t* in = x.i8();
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(f(int64_t{in[i]}));
  } else {
    const int32_t* in = x.i32();
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(f(int64_t{in[i]}));
  }
}

template <typename F>
std::vector<Tensor> unary(const OpContext& ctx, int precision, F f) {
  Tensor y = infer::allocate({ctx.inputs[0].shape(), precision});
  map_unary(ctx.inputs[0], y, f);
  return {y};
}

int64_t clamp_alpha(int64_t v, int p) { return std::clamp(v, -alpha(p), alpha(p)); }

std::vector<Tensor> abs_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  return unary(ctx, ctx.inputs[0].precision(), [](int64_t v) { return v < 0 ? -v : v; });
}

std::vector<Tensor> negative_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  return unary(ctx, ctx.inputs[0].precision(), [](int64_t v) { return -v; });
}

std::vector<Tensor> precision_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  return unary(ctx, 6, [](int64_t v) -> int64_t {
    const auto magnitude = static_cast<uint32_t>(v < 0 ? -v : v);
    return magnitude == 0 ? 1 : 32 - __builtin_clz(magnitude);
  });
}

std::vector<Tensor> clip_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const infer::ClipBounds c = infer::infer_clip(ctx);
  return unary(ctx, c.precision, [c](int64_t v) { return std::clamp(v, c.lo, c.hi); });
}

std::vector<Tensor> cvm_clip_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const int p = infer::precision_attr(ctx);
  return unary(ctx, p, [p](int64_t v) { return clamp_alpha(v, p); });
}

std::vector<Tensor> right_shift_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const int p = infer::precision_attr(ctx);
  const int s = infer::shift_attr(ctx, false);
  // floor(x / 2^(s-1)) is an arithmetic shift of the int64 value; then round half up.
  return unary(ctx, p, [p, s](int64_t v) { return clamp_alpha(((v >> (s - 1)) + 1) >> 1, p); });
}

std::vector<Tensor> left_shift_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const int p = infer::precision_attr(ctx);
  const int s = infer::shift_attr(ctx, true);
  const int64_t factor = int64_t{1} << s;
  return unary(ctx, p, [p, factor](int64_t v) { return clamp_alpha(v * factor, p); });
}

template <typename A, typename B, typename F>
void zip(const A* a, const B* b, int32_t* out, int64_t n, F f) {
  const int team = threads_for(n);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(f(int64_t{a[i]}, int64_t{b[i]}));
}

template <typename F>
void zip_any(const Tensor& a, const Tensor& b, Tensor& y, F f) {
  const int64_t n = y.size();
  const bool a8 = a.dtype() == DType::kInt8, b8 = b.dtype() == DType::kInt8;
  if (a8 && b8) zip(a.i8(), b.i8(), y.i32(), n, f);
  else if (a8) zip(a.i8(), b.i32(), y.i32(), n, f);
  else if (b8) zip(a.i32(), b.i8(), y.i32(), n, f);
  else zip(a.i32(), b.i32(), y.i32(), n, f);
}

template <bool kAdd>
std::vector<Tensor> elemwise_kernel(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  Tensor y = infer::allocate(infer::infer_elemwise_binary(ctx));
  zip_any(ctx.inputs[0], ctx.inputs[1], y,
          [](int64_t a, int64_t b) { return kAdd ? a + b : a - b; });
  return {y};
}

}  // namespace

void add_elementwise(Backend& backend) {
  backend.add("abs", abs_kernel);
  backend.add("negative", negative_kernel);
  backend.add("cvm_precision", precision_kernel);
  backend.add("clip", clip_kernel);
  backend.add("cvm_clip", cvm_clip_kernel);
  backend.add("cvm_right_shift", right_shift_kernel);
  backend.add("cvm_left_shift", left_shift_kernel);
  backend.add("elemwise_add", elemwise_kernel<true>);
  backend.add("elemwise_sub", elemwise_kernel<false>);
}

}  // namespace cvm::opt
