// INTERIM: see interim_infer_transform.h (to be replaced by infer/transform_shape.* and
// infer/transform_index.* after the merge).
#include "cuda/interim_infer_transform.h"

#include <algorithm>
#include <limits>

namespace cvm::cuda::interim {
namespace {

infer::OutputSpec validated(Shape shape, int precision) {
  infer::OutputSpec spec{std::move(shape), precision};
  infer::validate_output(spec);
  return spec;
}

void in_range(int64_t value, int64_t lo, int64_t hi, const char* what) {
  if (value < lo || value >= hi) fail_logic(what, " ", value, " not in [", lo, ", ", hi, ")");
}

// reshape: the output shape from the codes, walking the input dims with a cursor as the
// original runtime does (a literal, 0 and -1 advance it by one, -3 by two, -4 by one, -2 to the
// end); the -1 stays at its output position and is inferred last.
Shape reshape_target(const Shape& in, const Tuple& codes) {
  if (codes.empty()) fail_logic("shape is empty");
  const size_t n = in.size();
  size_t cursor = 0;
  Shape out;
  std::optional<size_t> unknown;
  for (size_t c = 0; c < codes.size(); ++c) {
    const int64_t code = codes[c];
    if (code > 0) {
      if (code > kMaxDim) fail_logic("shape entry ", code, " exceeds 2^24");
      out.push_back(code);
      ++cursor;
    } else if (code == 0) {
      if (cursor >= n) fail_logic("shape code 0 (entry ", c, ") has no input dim to copy");
      out.push_back(in[cursor++]);
    } else if (code == -1) {
      if (unknown) fail_logic("shape has more than one -1");
      unknown = out.size();
      out.push_back(1);
      ++cursor;
    } else if (code == -2) {
      for (; cursor < n; ++cursor) out.push_back(in[cursor]);
    } else if (code == -3) {
      if (cursor + 1 >= n) fail_logic("shape code -3 (entry ", c, ") needs two input dims");
      out.push_back(in[cursor] * in[cursor + 1]);
      cursor += 2;
    } else if (code == -4) {
      if (c + 2 >= codes.size()) fail_logic("shape code -4 (entry ", c, ") needs two entries");
      if (cursor >= n) fail_logic("shape code -4 (entry ", c, ") has no input dim to split");
      const int64_t whole = in[cursor++];
      int64_t first = codes[c + 1], second = codes[c + 2];
      c += 2;
      for (int64_t part : {first, second}) {
        if (part != -1 && (part < 1 || part > kMaxDim))
          fail_logic("-4 split entry ", part, " is invalid");
      }
      if (first == -1 && second == -1) fail_logic("a -4 split infers both parts");
      if (first == -1) {
        if (whole % second != 0) fail_logic("split ", second, " does not divide ", whole);
        first = whole / second;
      } else if (second == -1) {
        if (whole % first != 0) fail_logic("split ", first, " does not divide ", whole);
        second = whole / first;
      }
      if (first * second != whole) fail_logic("split ", first, " x ", second, " is not ", whole);
      out.push_back(first);
      out.push_back(second);
    } else {
      fail_logic("shape code ", code, " is below -4");
    }
  }
  const int64_t total = shape_size(in);
  int64_t product = 1;
  for (int64_t d : out) {
    product *= d;  // each d in [1, 2^30] and product <= total <= 2^30 before: no overflow
    if (product > total) fail_logic("shape product exceeds the input size ", total);
  }
  if (unknown) {
    if (total % product != 0) fail_logic("no -1 value gives the input size ", total);
    out[*unknown] = total / product;
  } else if (product != total) {
    fail_logic("shape product ", product, " differs from the input size ", total);
  }
  return out;
}

}  // namespace

RepeatInference infer_repeat(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  RepeatInference r;
  r.repeats = ctx.attrs.i("repeats");
  if (r.repeats < 1) fail_logic("repeats ", r.repeats, " must be >= 1");
  r.axis = infer::axis_in(ctx.attrs.i("axis"), x.ndim(), "axis");
  Shape shape = x.shape();
  shape[static_cast<size_t>(r.axis)] *= r.repeats;  // <= 2^24 * 2^31
  r.output = validated(shape, x.precision());
  return r;
}

infer::OutputSpec infer_tile(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tuple& reps = ctx.attrs.tuple("reps");
  if (reps.empty()) fail_logic("reps is empty");
  for (int64_t r : reps) in_range(r, 1, kMaxAttr, "reps entry");
  const size_t n = x.shape().size(), k = std::max(n, reps.size());
  if (k > static_cast<size_t>(kMaxNdim)) fail_logic("tile output would have ", k, " dims");
  Shape shape(k, 1);
  for (size_t j = 0; j < k; ++j) {
    if (j >= k - n) shape[j] = x.shape()[j - (k - n)];
    if (j >= k - reps.size()) shape[j] *= reps[j - (k - reps.size())];
  }
  return validated(shape, x.precision());
}

infer::OutputSpec infer_flatten(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  return validated({x.dim(0), x.size() / x.dim(0)}, x.precision());
}

infer::OutputSpec infer_expand_dims(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const int64_t n = x.ndim(), axis = ctx.attrs.i("axis"), count = ctx.attrs.i("num_newaxis");
  if (axis < -n - 1 || axis > n) fail_logic("axis ", axis, " not in [", -n - 1, ", ", n, "]");
  in_range(count, 1, kMaxAttr, "num_newaxis");
  if (n + count > kMaxNdim) fail_logic("expand_dims output would have ", n + count, " dims");
  const auto at = static_cast<size_t>(axis < 0 ? axis + n + 1 : axis);
  Shape shape = x.shape();
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(at), static_cast<size_t>(count), 1);
  return validated(shape, x.precision());
}

infer::OutputSpec infer_reshape(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  return validated(reshape_target(x.shape(), ctx.attrs.tuple("shape")), x.precision());
}

infer::OutputSpec infer_squeeze(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tuple& axes = ctx.attrs.tuple("axis");
  std::vector<bool> drop(static_cast<size_t>(x.ndim()), axes.empty());
  for (int i = 0; axes.empty() && i < x.ndim(); ++i) drop[static_cast<size_t>(i)] = x.dim(i) == 1;
  for (int64_t a : axes) {
    const int axis = infer::axis_in(a, x.ndim(), "axis");
    if (x.dim(axis) != 1) fail_logic("axis ", a, " has size ", x.dim(axis), ", not 1");
    drop[static_cast<size_t>(axis)] = true;
  }
  Shape shape;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!drop[static_cast<size_t>(i)]) shape.push_back(x.dim(i));
  }
  if (shape.empty()) shape = {1};
  return validated(shape, x.precision());
}

TransposeInference infer_transpose(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& given = ctx.attrs.tuple("axes");
  TransposeInference t;
  if (given.empty()) {
    for (int i = n - 1; i >= 0; --i) t.axes.push_back(i);
  } else {
    if (given.size() != static_cast<size_t>(n)) fail_logic("axes needs ", n, " entries");
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int64_t a : given) {
      const int axis = infer::axis_in(a, n, "axes entry");
      if (seen[static_cast<size_t>(axis)]) fail_logic("axes repeats axis ", axis);
      seen[static_cast<size_t>(axis)] = true;
      t.axes.push_back(axis);
    }
  }
  Shape shape;
  for (int a : t.axes) shape.push_back(x.dim(a));
  t.output = validated(shape, x.precision());
  return t;
}

ConcatInference infer_concatenate(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  if (ctx.inputs.empty()) fail_logic("concatenate needs at least one input");
  const Tensor& first = ctx.inputs[0];
  ConcatInference c;
  for (const Tensor& t : ctx.inputs) {
    if (t.ndim() != first.ndim()) fail_logic("inputs differ in ndim");
  }
  c.axis = infer::axis_in(ctx.attrs.i("axis"), first.ndim(), "axis");
  Shape shape = first.shape();
  shape[static_cast<size_t>(c.axis)] = 0;
  int precision = 1;
  for (const Tensor& t : ctx.inputs) {
    for (int j = 0; j < first.ndim(); ++j) {
      if (j != c.axis && t.dim(j) != first.dim(j)) fail_logic("inputs differ in dim ", j);
    }
    shape[static_cast<size_t>(c.axis)] += t.dim(c.axis);
    precision = std::max(precision, t.precision());
  }
  c.output = validated(shape, precision);
  return c;
}

SliceInference infer_strided_slice(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride = ctx.attrs.tuple("stride");
  const auto n = static_cast<size_t>(x.ndim());
  if (begin.size() > n || end.size() > n || stride.size() > n) {
    fail_logic("begin/end/stride have more entries than the ", n, " axes");
  }
  SliceInference s;
  Shape shape;
  for (size_t i = 0; i < n; ++i) {
    const int64_t dim = x.shape()[i];
    const int64_t step = i < stride.size() ? stride[i] : 1;
    if (step == 0) fail_logic("stride of axis ", i, " is 0");
    int64_t b = i < begin.size() ? begin[i] : 0, e = i < end.size() ? end[i] : dim;
    if (b < 0) b += dim;  // b >= INT64_MIN: + dim cannot overflow
    if (e < 0) e += dim;
    const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    b = std::clamp(b, lo, hi);
    e = std::clamp(e, lo, hi);
    const int64_t span = step > 0 ? e - b : b - e;
    if (span <= 0) fail_logic("axis ", i, " slice is empty");
    const uint64_t magnitude =
        step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
    shape.push_back(static_cast<int64_t>(static_cast<uint64_t>(span - 1) / magnitude + 1));
    s.begin.push_back(b);
    // A step beyond the span is only ever multiplied by 0; keep it small for the plan.
    s.stride.push_back(shape.back() == 1 ? 1 : step);
  }
  s.output = validated(shape, x.precision());
  return s;
}

TakeInference infer_take(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  TakeInference t;
  const std::optional<int64_t> axis = ctx.attrs.opt_int("axis");
  if (!axis) {
    t.output = validated(indices.shape(), x.precision());
    return t;
  }
  t.axis = infer::axis_in(*axis, x.ndim(), "axis");
  const auto a = static_cast<std::ptrdiff_t>(*t.axis);
  Shape shape(x.shape().begin(), x.shape().begin() + a);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + a + 1, x.shape().end());
  t.output = validated(shape, x.precision());
  return t;
}

infer::OutputSpec infer_cvm_lut(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& table = ctx.inputs[1];
  const int64_t in_dim = ctx.attrs.i("in_dim");
  if (in_dim != table.size())
    fail_logic("in_dim ", in_dim, " is not the table size ", table.size());
  return validated(ctx.inputs[0].shape(), table.precision());
}

infer::OutputSpec infer_slice_like(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tensor& like = ctx.inputs[1];
  const Tuple& axes = ctx.attrs.tuple("axis");
  Shape shape = x.shape();
  auto take_dim = [&](int j) {
    if (like.dim(j) > x.dim(j)) fail_logic("shape_like dim ", j, " exceeds data's");
    shape[static_cast<size_t>(j)] = like.dim(j);
  };
  if (axes.empty()) {
    if (like.ndim() != x.ndim()) fail_logic("shape_like and data differ in ndim");
    for (int j = 0; j < x.ndim(); ++j) take_dim(j);
  }
  const int64_t limit = std::min(x.ndim(), like.ndim());
  for (int64_t raw : axes) {
    const int64_t a = raw < 0 ? raw + x.ndim() : raw;
    if (a < 0 || a >= limit) fail_logic("axis ", raw, " not in [0, ", limit, ")");
    take_dim(static_cast<int>(a));
  }
  return validated(shape, x.precision());
}

WhereInference infer_where(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& cond = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  const Tensor& y = ctx.inputs[2];
  if (x.shape() != y.shape()) fail_logic("x and y differ in shape");
  WhereInference w;
  w.by_rows = cond.shape() != x.shape();
  if (w.by_rows && (cond.ndim() != 1 || cond.dim(0) != x.dim(0))) {
    fail_logic("condition ", shape_str(cond.shape()), " is neither x's shape nor (n0,)");
  }
  w.output = validated(x.shape(), std::max(x.precision(), y.precision()));
  return w;
}

PadInference infer_pad(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tuple& width = ctx.attrs.tuple("pad_width");
  const int64_t value = ctx.attrs.i("constant_value");
  if (width.size() != 2 * static_cast<size_t>(x.ndim())) fail_logic("pad_width needs 2N entries");
  for (int64_t w : width) in_range(w, 0, kMaxAttr, "pad_width entry");
  constexpr int64_t kLargest = std::numeric_limits<int32_t>::max();
  if (value < -kLargest || value > kLargest) fail_logic("constant_value ", value, " out of range");
  PadInference p;
  p.value = static_cast<int32_t>(value);
  Shape shape;
  for (int i = 0; i < x.ndim(); ++i) {
    p.before.push_back(width[2 * static_cast<size_t>(i)]);
    shape.push_back(p.before.back() + x.dim(i) + width[2 * static_cast<size_t>(i) + 1]);
  }
  const int value_bits =
      value == 0 ? 1 : bitlen(static_cast<uint64_t>(value < 0 ? -value : value)) + 1;
  p.output = validated(shape, std::max(x.precision(), value_bits));
  return p;
}

}  // namespace cvm::cuda::interim
