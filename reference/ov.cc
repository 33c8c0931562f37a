// Reference kernel of the ov family: ov_strided_slice (OpenVINO StridedSlice-1, contract:
// docs/ops/ov.md). Naive: the attributes are turned into a slice plan (one entry per input axis:
// a fixed index, or the explicit list of input indices an output axis walks), every rule is
// verified while planning, and each output element is then gathered by unravel/ravel.
#include <algorithm>
#include <array>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

// The five masks, in the order their attribute names are listed here.
enum Mask { kBeginMask, kEndMask, kNewAxisMask, kShrinkAxisMask, kEllipsisMask, kMaskCount };
constexpr std::array<const char*, kMaskCount> kMaskNames = {
    "begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"};

// How one input axis is read.
struct AxisRead {
  bool fixed = false;             // shrunk: always `index`
  int64_t index = 0;
  size_t out_axis = 0;            // otherwise: output axis `out_axis` walks `indices`
  std::vector<int64_t> indices;
};

struct SlicePlan {
  std::vector<AxisRead> reads;  // per input axis
  Shape out_shape;
};

// Mask bit i (0 beyond the mask's length: shorter masks are padded with zeros).
bool bit(const Tuple& mask, size_t i) { return i < mask.size() && mask[i] == 1; }

// The input indices of an ordinary begin:end:stride slice of an axis of size n, numpy's rules.
// Every intermediate stays far from the int64 limits: negative entries only get + n (n <= 2^24)
// and are clamped before any other arithmetic.
std::vector<int64_t> slice_indices(int64_t begin, int64_t end, int64_t stride, bool begin_masked,
                                   bool end_masked, int64_t n, size_t step) {
  const bool reverse = stride < 0;
  int64_t b = begin;
  if (begin_masked) {
    b = reverse ? n - 1 : 0;
  } else {
    if (b < 0) b += n;
    b = std::clamp<int64_t>(b, 0, reverse ? n - 1 : n);
  }
  int64_t e = end;
  if (end_masked) {
    e = reverse ? -1 : n;
  } else {
    if (e < 0) e += n;
    e = std::clamp<int64_t>(e, reverse ? -1 : 0, n);
  }
  const int64_t span = reverse ? b - e : e - b;  // in [-(n+1), n+1]
  verify_rule(span > 0, "empty_slice", "slice step ", step, " (", begin, ":", end, ":", stride,
              ") is empty on an axis of size ", n, " (clamped to ", b, ":", e,
              "); zero-size dims do not exist");
  // |stride| as unsigned: stride may be INT64_MIN.
  const uint64_t magnitude = reverse ? uint64_t{0} - static_cast<uint64_t>(stride)
                                     : static_cast<uint64_t>(stride);
  const auto count = static_cast<int64_t>(static_cast<uint64_t>(span - 1) / magnitude + 1);
  std::vector<int64_t> indices;
  // d * |stride| <= span - 1 < n for every d < count, so b + stride * d cannot overflow.
  for (int64_t d = 0; d < count; ++d) indices.push_back(b + stride * d);
  return indices;
}

SlicePlan plan_slice(const OpContext& ctx) {
  const Shape& shape = ctx.inputs[0].shape();
  const size_t rank = shape.size();
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride_attr = ctx.attrs.tuple("stride");
  std::array<Tuple, kMaskCount> masks;
  for (int k = 0; k < kMaskCount; ++k) masks[k] = ctx.attrs.tuple(kMaskNames[k]);

  const size_t m = begin.size();
  verify_rule(end.size() == m, "begin_end_length_mismatch", "begin has ", m,
              " entries but end has ", end.size());
  // An empty stride (the default) means all ones.
  verify_rule(stride_attr.empty() || stride_attr.size() == m, "stride_length_mismatch",
              "stride has ", stride_attr.size(), " entries; it must be empty or have ", m,
              " (as many as begin)");
  const Tuple stride = stride_attr.empty() ? Tuple(m, 1) : stride_attr;
  for (size_t i = 0; i < m; ++i) verify_rule(stride[i] != 0, "stride_zero", "stride ", i, " is 0");

  // Every mask entry, also beyond m (where it is otherwise ignored), must be 0 or 1.
  for (int k = 0; k < kMaskCount; ++k) {
    for (size_t i = 0; i < masks[k].size(); ++i) {
      verify_rule(masks[k][i] == 0 || masks[k][i] == 1, "mask_value_not_0_or_1", kMaskNames[k],
                  " entry ", i, " is ", masks[k][i], "; masks hold only 0 and 1");
    }
  }
  size_t ellipsis_count = 0, new_axis_count = 0;
  for (size_t i = 0; i < m; ++i) {
    const bool is_new = bit(masks[kNewAxisMask], i);
    const bool is_shrink = bit(masks[kShrinkAxisMask], i);
    const bool is_ellipsis = bit(masks[kEllipsisMask], i);
    verify_rule(int{is_new} + int{is_shrink} + int{is_ellipsis} <= 1, "two_masks_at_one_step",
                "step ", i,
                " sets more than one of new_axis_mask, shrink_axis_mask, ellipsis_mask");
    verify_rule(!is_shrink || (!bit(masks[kBeginMask], i) && !bit(masks[kEndMask], i)),
                "two_masks_at_one_step", "step ", i,
                " sets shrink_axis_mask together with begin_mask or end_mask");
    ellipsis_count += is_ellipsis ? 1 : 0;
    new_axis_count += is_new ? 1 : 0;
  }
  verify_rule(ellipsis_count <= 1, "more_than_one_ellipsis", "ellipsis_mask sets ", ellipsis_count,
              " bits; at most one allowed");
  // Steps that consume one input axis each: everything but new axes and the ellipsis.
  const size_t real_count = m - new_axis_count - ellipsis_count;
  verify_rule(real_count <= rank, "more_steps_than_input_axes", real_count,
              " slice steps consume input axes but the input has only ", rank, " axes");
  const size_t ellipsis_size = rank - real_count;

  SlicePlan plan;
  plan.reads.resize(rank);
  size_t in_axis = 0;
  auto keep_full_axes = [&](size_t count) {
    for (size_t k = 0; k < count; ++k, ++in_axis) {
      AxisRead& read = plan.reads[in_axis];
      read.out_axis = plan.out_shape.size();
      for (int64_t j = 0; j < shape[in_axis]; ++j) read.indices.push_back(j);
      plan.out_shape.push_back(shape[in_axis]);
    }
  };
  for (size_t i = 0; i < m; ++i) {
    if (bit(masks[kNewAxisMask], i)) {
      plan.out_shape.push_back(1);
    } else if (bit(masks[kEllipsisMask], i)) {
      keep_full_axes(ellipsis_size);
    } else if (bit(masks[kShrinkAxisMask], i)) {
      const int64_t n = shape[in_axis];
      verify_rule(begin[i] >= -n && begin[i] < n, "shrink_index_out_of_range", "shrink index ",
                  begin[i], " at step ", i, " is outside [", -n, ", ", n, ")");
      plan.reads[in_axis].fixed = true;
      plan.reads[in_axis].index = begin[i] < 0 ? begin[i] + n : begin[i];
      ++in_axis;
    } else {
      AxisRead& read = plan.reads[in_axis];
      read.out_axis = plan.out_shape.size();
      read.indices = slice_indices(begin[i], end[i], stride[i], bit(masks[kBeginMask], i),
                                   bit(masks[kEndMask], i), shape[in_axis], i);
      plan.out_shape.push_back(static_cast<int64_t>(read.indices.size()));
      ++in_axis;
    }
  }
  // Without an explicit ellipsis there is an implicit one after the last step.
  if (ellipsis_count == 0) keep_full_axes(ellipsis_size);
  check(in_axis == rank, "slice plan consumed ", in_axis, " of ", rank, " input axes");
  return plan;
}

std::vector<Tensor> ov_strided_slice(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const SlicePlan plan = plan_slice(ctx);
  // A 0-d result (every axis shrunk) or one above 6 dims breaks the tensor limits.
  const int64_t out_size = checked_size(plan.out_shape, "output");
  Tensor y = make_output(plan.out_shape, x.precision());
  Index in_index(plan.reads.size(), 0);
  for (int64_t o = 0; o < out_size; ++o) {
    const Index out_index = unravel(o, plan.out_shape);
    for (size_t a = 0; a < plan.reads.size(); ++a) {
      const AxisRead& read = plan.reads[a];
      in_index[a] = read.fixed ? read.index
                               : read.indices[static_cast<size_t>(out_index[read.out_axis])];
    }
    y.set(o, x.get(ravel(in_index, x.shape())));
  }
  return {y};
}

}  // namespace

void add_ov(Backend& backend) { backend.add("ov_strided_slice", kernel(ov_strided_slice)); }

}  // namespace cvm::ref
