// Reference kernels of the transform_index family: strided_slice (alias slice), take, cvm_lut,
// slice_like, where, pad (docs/ops/transform_index.md). Naive loops: every output element is
// found by unravelling its index and reading the one input element the contract's formula names.
// Every validity rule is checked before the output is allocated.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

// ---------------------------------------------------------------- strided_slice

struct AxisSlice {
  int64_t begin = 0;   // first index read, after normalising and clamping
  int64_t stride = 1;  // never 0
  int64_t size = 1;    // elements taken along the axis
};

// One axis of the slice. Entries are int64 and may be INT64_MIN/MAX: adding n_i to a negative
// entry cannot overflow, and every later step works on clamped values in [-1, n_i].
AxisSlice plan_slice_axis(int axis, int64_t n, const Tuple& begin, const Tuple& end,
                          const Tuple& stride) {
  const auto k = static_cast<size_t>(axis);
  const int64_t s = k < stride.size() ? stride[k] : 1;
  verify_rule(s != 0, "stride_zero", "stride of axis ", axis, " is 0");
  int64_t b = k < begin.size() ? begin[k] : 0;
  int64_t e = k < end.size() ? end[k] : n;
  if (b < 0) b += n;
  if (e < 0) e += n;
  const int64_t lo = s > 0 ? 0 : -1;
  const int64_t hi = s > 0 ? n : n - 1;
  b = std::clamp(b, lo, hi);
  e = std::clamp(e, lo, hi);
  verify_rule(s > 0 ? b < e : e < b, "empty_slice", "axis ", axis, " slice is empty: begin ", b,
              ", end ", e, " (after normalising and clamping), stride ", s);
  // ceil(|e - b| / |s|) with |s| taken as unsigned: |INT64_MIN| does not fit int64.
  const auto interval = static_cast<uint64_t>(s > 0 ? e - b : b - e);  // in [1, n]
  const uint64_t magnitude = s > 0 ? static_cast<uint64_t>(s) : 0 - static_cast<uint64_t>(s);
  AxisSlice plan;
  plan.begin = b;
  plan.stride = s;
  plan.size = static_cast<int64_t>(1 + (interval - 1) / magnitude);
  return plan;
}

std::vector<Tensor> strided_slice(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride = ctx.attrs.tuple("stride");
  const auto n = static_cast<size_t>(x.ndim());
  verify_rule(begin.size() <= n, "begin_longer_than_ndim", "begin has ", begin.size(),
              " entries, more than the ", n, " axes");
  verify_rule(end.size() <= n, "end_longer_than_ndim", "end has ", end.size(),
              " entries, more than the ", n, " axes");
  verify_rule(stride.size() <= n, "stride_longer_than_ndim", "stride has ", stride.size(),
              " entries, more than the ", n, " axes");
  std::vector<AxisSlice> plan;
  Shape out_shape;
  for (int i = 0; i < x.ndim(); ++i) {
    plan.push_back(plan_slice_axis(i, x.dim(i), begin, end, stride));
    out_shape.push_back(plan.back().size);
  }
  Tensor y = make_output(out_shape, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index d = unravel(o, out_shape);
    Index source(n);
    // d < size, so |stride * d| < |e - b| whenever d > 0: no overflow.
    for (size_t i = 0; i < n; ++i) source[i] = plan[i].begin + plan[i].stride * d[i];
    y.set(o, x.get(ravel(source, x.shape())));
  }
  return {y};
}

// ---------------------------------------------------------------- take, cvm_lut

int64_t clamp_index(int64_t index, int64_t extent) {
  return std::clamp<int64_t>(index, 0, extent - 1);
}

// take with axis None: Y = flatten(data)[clamp(index, 0, |data| - 1)], shape of indices.
Tensor take_flat(const Tensor& data, const Tensor& indices, int precision) {
  Tensor y = make_output(indices.shape(), precision);
  for (int64_t i = 0; i < indices.size(); ++i) {
    y.set(i, data.get(clamp_index(indices.get(i), data.size())));
  }
  return y;
}

std::vector<Tensor> take(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  const std::optional<int64_t> axis = ctx.attrs.opt_int("axis");
  if (!axis) return {take_flat(x, indices, x.precision())};
  const int a = normalize_axis(*axis, x.ndim(), "axis", "axis_out_of_range");
  const int m = indices.ndim();
  Shape out_shape(x.shape().begin(), x.shape().begin() + a);
  out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
  out_shape.insert(out_shape.end(), x.shape().begin() + a + 1, x.shape().end());
  // make_output checks ndim (N + M - 1 <= 6) and the element limits before allocating.
  Tensor y = make_output(out_shape, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index d = unravel(o, out_shape);
    const Index index_pos(d.begin() + a, d.begin() + a + m);
    Index source(d.begin(), d.begin() + a);
    source.push_back(clamp_index(indices.get(ravel(index_pos, indices.shape())), x.dim(a)));
    source.insert(source.end(), d.begin() + a + m, d.end());
    y.set(o, x.get(ravel(source, x.shape())));
  }
  return {y};
}

std::vector<Tensor> cvm_lut(const OpContext& ctx) {
  const Tensor& indices = ctx.inputs[0];
  const Tensor& table = ctx.inputs[1];
  const int64_t in_dim = ctx.attrs.i("in_dim");
  verify_rule(in_dim == table.size(), "in_dim_mismatch", "in_dim ", in_dim,
              " differs from the table's element count ", table.size());
  return {take_flat(table, indices, table.precision())};
}

// ---------------------------------------------------------------- slice_like

std::vector<Tensor> slice_like(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& like = ctx.inputs[1];
  const Tuple& axes = ctx.attrs.tuple("axis");
  const int n = x.ndim();
  const int m = like.ndim();
  Shape out_shape = x.shape();
  if (axes.empty()) {
    verify_rule(m == n, "ndim_mismatch_without_axis", "shape_like has ", m, " dims, data has ", n,
                " (equal without axis)");
    for (int j = 0; j < n; ++j) {
      verify_rule(like.dim(j) <= x.dim(j), "like_dim_larger", "shape_like dim ", j, " is ",
                  like.dim(j), ", larger than data's ", x.dim(j));
      out_shape[static_cast<size_t>(j)] = like.dim(j);
    }
  } else {
    const int limit = std::min(m, n);
    for (int64_t raw : axes) {
      // raw >= INT64_MIN and n <= 6: adding n cannot overflow.
      const int64_t a = raw < 0 ? raw + n : raw;
      verify_rule(a >= 0 && a < limit, "axis_out_of_range", "axis ", raw, " is outside [0, ", limit,
                  ") after adding ", n, " to a negative axis");
      const int j = static_cast<int>(a);
      verify_rule(like.dim(j) <= x.dim(j), "like_dim_larger", "shape_like dim ", j, " is ",
                  like.dim(j), ", larger than data's ", x.dim(j));
      out_shape[static_cast<size_t>(j)] = like.dim(j);  // a repeated axis sets the same dim
    }
  }
  Tensor y = make_output(out_shape, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    y.set(o, x.get(ravel(unravel(o, out_shape), x.shape())));  // the leading box of X
  }
  return {y};
}

// ---------------------------------------------------------------- where

std::vector<Tensor> where(const OpContext& ctx) {
  const Tensor& cond = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  const Tensor& y_in = ctx.inputs[2];
  verify_rule(x.shape() == y_in.shape(), "x_y_shape_mismatch", "x ", shape_str(x.shape()),
              " and y ", shape_str(y_in.shape()), " differ in shape");
  const bool by_rows = cond.shape() != x.shape();
  if (by_rows) {
    verify_rule(cond.ndim() == 1 && cond.dim(0) == x.dim(0), "cond_shape_mismatch", "condition ",
                shape_str(cond.shape()), " is neither x's shape ", shape_str(x.shape()), " nor (",
                x.dim(0), ",)");
  }
  Tensor y = make_output(x.shape(), std::max(x.precision(), y_in.precision()));
  for (int64_t i = 0; i < y.size(); ++i) {
    const int64_t c = by_rows ? cond.get(unravel(i, x.shape())[0]) : cond.get(i);
    y.set(i, c != 0 ? x.get(i) : y_in.get(i));
  }
  return {y};
}

// ---------------------------------------------------------------- pad

std::vector<Tensor> pad(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& width = ctx.attrs.tuple("pad_width");
  const int64_t value = ctx.attrs.i("constant_value");
  const auto n = static_cast<size_t>(x.ndim());
  verify_rule(width.size() == 2 * n, "pad_width_wrong_length", "pad_width has ", width.size(),
              " entries; needs 2 * ", n);
  for (int64_t w : width) check_range(w, 0, kMaxAttr, "pad_width entry", "pad_width_out_of_range");
  const int64_t max_value = std::numeric_limits<int32_t>::max();
  verify_rule(value >= -max_value && value <= max_value, "constant_value_out_of_range",
              "constant_value ", value, " is outside [-(2^31-1), 2^31-1]");
  // `mode` accepts only "constant" (the schema rejects anything else).
  const int value_precision = value == 0 ? 1 : bitlen(static_cast<uint64_t>(std::llabs(value))) + 1;
  Shape out_shape;
  for (size_t i = 0; i < n; ++i) {
    out_shape.push_back(width[2 * i] + x.shape()[i] + width[2 * i + 1]);
  }
  checked_size(out_shape, "output");
  Tensor y = make_output(out_shape, std::max(x.precision(), value_precision));
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index d = unravel(o, out_shape);
    Index source(n);
    bool inside = true;
    for (size_t i = 0; i < n; ++i) {
      source[i] = d[i] - width[2 * i];
      inside = inside && source[i] >= 0 && source[i] < x.shape()[i];
    }
    y.set(o, inside ? x.get(ravel(source, x.shape())) : static_cast<int32_t>(value));
  }
  return {y};
}

}  // namespace

void add_transform_index(Backend& backend) {
  backend.add("strided_slice", kernel(strided_slice));
  backend.add("take", kernel(take));
  backend.add("cvm_lut", kernel(cvm_lut));
  backend.add("slice_like", kernel(slice_like));
  backend.add("where", kernel(where));
  backend.add("pad", kernel(pad));
}

}  // namespace cvm::ref
