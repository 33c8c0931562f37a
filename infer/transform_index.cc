#include "infer/transform_index.h"

#include <algorithm>
#include <limits>

namespace cvm::infer {
namespace {

OutputSpec spec_of(Shape shape, int precision) {
  OutputSpec spec{std::move(shape), precision};
  validate_output(spec);
  return spec;
}

// One axis of extent n from its optional begin/end/stride entries. Every entry may be any
// int64: n (<= 2^24) is added only to negative entries, and the clamped values lie in [-1, n],
// so the subtractions below cannot overflow either.
SliceAxis slice_axis(size_t j, int64_t n, const Tuple& begin, const Tuple& end,
                     const Tuple& stride) {
  const int64_t step = j < stride.size() ? stride[j] : 1;
  if (step == 0) fail_rule("stride_zero", "stride of axis ", j, " is 0");
  auto place = [n, step](int64_t v) {
    if (v < 0) v += n;
    return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
  };
  const int64_t first = place(j < begin.size() ? begin[j] : 0);
  const int64_t last = place(j < end.size() ? end[j] : n);
  const int64_t span = step > 0 ? last - first : first - last;  // in [-n - 1, n + 1]
  if (span <= 0) {
    fail_rule("empty_slice", "axis ", j, " slice [", first, ", ", last, ") by ", step, " is empty");
  }
  // |step| as unsigned: -INT64_MIN does not fit int64. ceil(span / |step|).
  const uint64_t magnitude =
      step > 0 ? static_cast<uint64_t>(step) : uint64_t{0} - static_cast<uint64_t>(step);
  const uint64_t count = (static_cast<uint64_t>(span) - 1) / magnitude + 1;
  return {first, step, static_cast<int64_t>(count)};
}

}  // namespace

SliceInference infer_strided_slice(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride = ctx.attrs.tuple("stride");
  const size_t n = x.shape().size();
  const std::pair<const Tuple*, const char*> lists[] = {{&begin, "begin_longer_than_ndim"},
                                                        {&end, "end_longer_than_ndim"},
                                                        {&stride, "stride_longer_than_ndim"}};
  for (const auto& list : lists) {
    if (list.first->size() > n) {
      fail_rule(list.second, "begin/end/stride have ", begin.size(), "/", end.size(), "/",
                stride.size(), " entries for ", n, " axes");
    }
  }
  SliceInference inf;
  Shape shape;
  for (size_t j = 0; j < n; ++j) {
    inf.axes.push_back(slice_axis(j, x.shape()[j], begin, end, stride));
    shape.push_back(inf.axes.back().size);
  }
  inf.output = spec_of(std::move(shape), x.precision());
  return inf;
}

TakeInference infer_take(const OpContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  TakeInference inf;
  const std::optional<int64_t> axis = ctx.attrs.opt_int("axis");
  if (!axis.has_value()) {
    inf.output = spec_of(indices.shape(), data.precision());
    return inf;
  }
  const int a = axis_in(*axis, data.ndim(), "axis", "axis_out_of_range");
  inf.axis = a;
  const Shape& ds = data.shape();
  Shape shape(ds.begin(), ds.begin() + a);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), ds.begin() + a + 1, ds.end());
  // Up to 11 dims here; spec_of refuses more than 6 and more than 2^30 elements.
  inf.output = spec_of(std::move(shape), data.precision());
  return inf;
}

OutputSpec infer_cvm_lut(const OpContext& ctx) {
  const Tensor& indices = ctx.inputs[0];
  const Tensor& table = ctx.inputs[1];
  const int64_t in_dim = ctx.attrs.i("in_dim");
  if (in_dim != table.size()) {
    fail_rule("in_dim_mismatch", "in_dim ", in_dim, " is not the table's element count ",
              table.size());
  }
  return spec_of(indices.shape(), table.precision());
}

OutputSpec infer_slice_like(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Shape& like = ctx.inputs[1].shape();
  const Tuple& listed = ctx.attrs.tuple("axis");
  const int64_t n = x.ndim();
  const auto m = static_cast<int64_t>(like.size());
  Shape shape = x.shape();
  auto cut = [&](int64_t j) {
    const auto u = static_cast<size_t>(j);
    if (like[u] > x.shape()[u]) {
      fail_rule("like_dim_larger", "shape_like dim ", j, " (", like[u], ") exceeds data's ",
                x.shape()[u]);
    }
    shape[u] = like[u];
  };
  if (listed.empty()) {
    if (m != n) {
      fail_rule("ndim_mismatch_without_axis", "shape_like has ", m, " dims, data ", n,
                "; equal without axis");
    }
    for (int64_t j = 0; j < n; ++j) cut(j);
  } else {
    const int64_t bound = std::min(m, n);
    for (int64_t a : listed) {
      const int64_t j = a < 0 ? a + n : a;  // X's ndim, as in the original
      if (j < 0 || j >= bound) {
        fail_rule("axis_out_of_range", "axis ", a, " not in [0, ", bound, ") after wrapping");
      }
      cut(j);
    }
  }
  return spec_of(std::move(shape), x.precision());
}

WhereInference infer_where(const OpContext& ctx) {
  const Shape& cond = ctx.inputs[0].shape();
  const Tensor& x = ctx.inputs[1];
  const Tensor& y = ctx.inputs[2];
  if (x.shape() != y.shape()) {
    fail_rule("x_y_shape_mismatch", "x ", shape_str(x.shape()), " and y ", shape_str(y.shape()),
              " differ");
  }
  WhereInference inf;
  if (cond != x.shape()) {
    if (cond.size() != 1 || cond[0] != x.shape()[0]) {
      fail_rule("cond_shape_mismatch", "condition ", shape_str(cond),
                " is neither x's shape nor (n_0,)");
    }
    inf.by_rows = true;
  }
  inf.output = spec_of(x.shape(), std::max(x.precision(), y.precision()));
  return inf;
}

PadInference infer_pad(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& width = ctx.attrs.tuple("pad_width");
  const int64_t value = ctx.attrs.i("constant_value");  // int32 text
  if (ctx.attrs.str("mode") != "constant") {
    fail_rule(rules::kAttrMalformed, "mode must be constant");
  }
  const size_t n = x.shape().size();
  if (width.size() != 2 * n) {
    fail_rule("pad_width_wrong_length", "pad_width has ", width.size(), " entries, not ", 2 * n);
  }
  for (int64_t w : width) {
    if (w < 0 || w >= kMaxAttr) {
      fail_rule("pad_width_out_of_range", "pad_width entry ", w, " not in [0, 4096)");
    }
  }
  constexpr int64_t kLargest = std::numeric_limits<int32_t>::max();
  if (value < -kLargest || value > kLargest) {
    fail_rule("constant_value_out_of_range", "constant_value ", value, " outside +-(2^31 - 1)");
  }
  PadInference inf;
  Shape shape;
  for (size_t j = 0; j < n; ++j) {
    inf.before.push_back(width[2 * j]);
    inf.after.push_back(width[2 * j + 1]);
    shape.push_back(x.shape()[j] + width[2 * j] + width[2 * j + 1]);
  }
  inf.value = static_cast<int32_t>(value);
  const uint64_t magnitude = static_cast<uint64_t>(value < 0 ? -value : value);
  const int fill_precision = magnitude == 0 ? 1 : bitlen(magnitude) + 1;
  inf.output = spec_of(std::move(shape), std::max(x.precision(), fill_precision));
  return inf;
}

}  // namespace cvm::infer
