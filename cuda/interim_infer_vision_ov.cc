// INTERIM: see interim_infer_vision_ov.h (to be replaced by infer/vision.* and infer/ov.* after
// the merge).
#include "cuda/interim_infer_vision_ov.h"

#include <algorithm>
#include <array>

namespace cvm::cuda::interim {
namespace {

infer::OutputSpec validated(Shape shape, int precision) {
  infer::OutputSpec spec{std::move(shape), precision};
  infer::validate_output(spec);
  return spec;
}

void require_value(const OpContext& ctx, const char* name, int64_t only) {
  if (ctx.attrs.i(name) != only) fail_logic(name, " must be ", only);
}

}  // namespace

ValidCountsInference infer_get_valid_counts(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  if (x.ndim() != 3) fail_logic("X must be (B, N, K), got ", shape_str(x.shape()));
  if (x.dim(2) < 2 || x.dim(2) > 32) fail_logic("K = ", x.dim(2), " not in [2, 32]");
  ValidCountsInference v;
  v.params = {x.dim(0), x.dim(1), x.dim(2), ctx.attrs.i("score_threshold")};
  v.count = validated({x.dim(0)}, bitlen(static_cast<uint64_t>(x.dim(1) * x.dim(2) + 1)) + 1);
  v.boxes = validated(x.shape(), std::max(x.precision(), 2));
  return v;
}

NmsInference infer_non_max_suppression(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tensor& count = ctx.inputs[1];
  if (x.ndim() != 3 || x.dim(2) != kNmsRow)
    fail_logic("X must be (B, N, 6), got ", shape_str(x.shape()));
  if (count.ndim() != 1 || count.dim(0) != x.dim(0)) fail_logic("valid_count must be (B,)");
  if (x.precision() > 30) fail_logic("X's precision ", x.precision(), " exceeds 30");
  NmsInference n;
  n.params.batches = x.dim(0);
  n.params.rows = x.dim(1);
  n.params.iou_threshold = ctx.attrs.i("iou_threshold");
  if (n.params.iou_threshold <= 0) fail_logic("iou_threshold must be > 0");
  require_value(ctx, "coord_start", 2);
  require_value(ctx, "score_index", 1);
  require_value(ctx, "id_index", 0);
  if (ctx.attrs.b("return_indices")) fail_logic("return_indices must be false");
  if (!ctx.attrs.b("invalid_to_bottom")) fail_logic("invalid_to_bottom must be true");
  n.params.max_output_size = ctx.attrs.i("max_output_size");
  n.params.top_k = ctx.attrs.i("top_k");
  n.params.force_suppress = ctx.attrs.b("force_suppress") ? 1 : 0;
  n.output = validated(x.shape(), std::max(x.precision(), 2));
  return n;
}

OvSliceInference infer_ov_strided_slice(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Shape& in = ctx.inputs[0].shape();
  const int rank = static_cast<int>(in.size());
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride_text = ctx.attrs.tuple("stride");
  const size_t m = begin.size();
  if (end.size() != m) fail_logic("begin and end differ in length");
  if (!stride_text.empty() && stride_text.size() != m)
    fail_logic("stride length differs from begin's");
  const Tuple stride = stride_text.empty() ? Tuple(m, 1) : stride_text;
  constexpr std::array<const char*, 5> kNames = {"begin_mask", "end_mask", "new_axis_mask",
                                                 "shrink_axis_mask", "ellipsis_mask"};
  std::array<std::vector<bool>, 5> bits;
  for (size_t k = 0; k < kNames.size(); ++k) {
    const Tuple& mask = ctx.attrs.tuple(kNames[k]);
    for (int64_t b : mask) {
      if (b != 0 && b != 1) fail_logic(kNames[k], " holds ", b, "; only 0 and 1");
    }
    bits[k].assign(m, false);
    for (size_t i = 0; i < std::min(m, mask.size()); ++i) bits[k][i] = mask[i] == 1;
  }
  const auto& [begin_mask, end_mask, new_axis, shrink, ellipsis] = bits;
  size_t ellipses = 0, new_axes = 0;
  for (size_t i = 0; i < m; ++i) {
    if (stride[i] == 0) fail_logic("stride ", i, " is 0");
    if (int{new_axis[i]} + int{shrink[i]} + int{ellipsis[i]} > 1) {
      fail_logic("step ", i, " sets two of new_axis, shrink_axis, ellipsis");
    }
    if (shrink[i] && (begin_mask[i] || end_mask[i]))
      fail_logic("step ", i, " shrinks a masked range");
    ellipses += ellipsis[i] ? 1 : 0;
    new_axes += new_axis[i] ? 1 : 0;
  }
  if (ellipses > 1) fail_logic("more than one ellipsis");
  const size_t consuming = m - new_axes - ellipses;
  if (consuming > static_cast<size_t>(rank)) fail_logic(consuming, " steps for ", rank, " axes");
  const size_t ellipsis_axes = static_cast<size_t>(rank) - consuming;

  OvSliceInference s;
  s.fixed_index.assign(static_cast<size_t>(rank), -1);
  Shape shape;
  int axis = 0;  // next input axis
  auto full_axes = [&](size_t count) {
    for (size_t k = 0; k < count; ++k, ++axis) {
      s.axes.push_back({axis, 0, 1});
      shape.push_back(in[static_cast<size_t>(axis)]);
    }
  };
  for (size_t i = 0; i < m; ++i) {
    if (new_axis[i]) {
      s.axes.push_back({-1, 0, 1});
      shape.push_back(1);
      continue;
    }
    if (ellipsis[i]) {
      full_axes(ellipsis_axes);
      continue;
    }
    const int64_t n = in[static_cast<size_t>(axis)];
    if (shrink[i]) {
      if (begin[i] < -n || begin[i] >= n) fail_logic("shrink index ", begin[i], " out of range");
      s.fixed_index[static_cast<size_t>(axis++)] = begin[i] < 0 ? begin[i] + n : begin[i];
      continue;
    }
    const bool reverse = stride[i] < 0;
    int64_t b = begin[i], e = end[i];
    if (begin_mask[i]) {
      b = reverse ? n - 1 : 0;
    } else {
      if (b < 0) b += n;
      b = std::clamp<int64_t>(b, 0, reverse ? n - 1 : n);
    }
    if (end_mask[i]) {
      e = reverse ? -1 : n;
    } else {
      if (e < 0) e += n;
      e = std::clamp<int64_t>(e, reverse ? -1 : 0, n);
    }
    const int64_t span = reverse ? b - e : e - b;
    if (span <= 0) fail_logic("step ", i, " gives an empty range (zero-size dims do not exist)");
    const uint64_t magnitude =
        reverse ? 0 - static_cast<uint64_t>(stride[i]) : static_cast<uint64_t>(stride[i]);
    const auto size = static_cast<int64_t>(static_cast<uint64_t>(span - 1) / magnitude + 1);
    s.axes.push_back({axis++, b, size == 1 ? 1 : stride[i]});  // a lone step's stride is unused
    shape.push_back(size);
  }
  if (ellipses == 0) full_axes(ellipsis_axes);
  check(axis == rank, "ov_strided_slice plan consumed ", axis, " of ", rank, " axes");
  s.output = validated(shape, ctx.inputs[0].precision());
  return s;
}

}  // namespace cvm::cuda::interim
