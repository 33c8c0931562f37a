// Reference kernels of the transform_shape family: repeat, tile, flatten, concatenate,
// expand_dims, reshape, squeeze, transpose (docs/ops/transform_shape.md). Each kernel checks
// every validity rule with verify() before allocating, infers the output shape in int64 (every
// attribute entry is range-checked before it is multiplied), then walks every output element and
// reads the input element that the contract's index formula names.
#include <algorithm>
#include <optional>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

// Y[i] = X[i] under a new shape (flatten, expand_dims, reshape, squeeze): a row-major copy.
Tensor copy_with_shape(const Tensor& x, const Shape& shape) {
  Tensor y = make_output(shape, x.precision());
  check(y.size() == x.size(), "output ", shape_str(shape), " does not hold ", x.size(),
        " elements");
  for (int64_t i = 0; i < x.size(); ++i) y.set(i, x.get(i));
  return y;
}

std::vector<Tensor> repeat(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int64_t repeats = ctx.attrs.i("repeats");
  verify_rule(repeats >= 1, "repeats_below_1", "repeats ", repeats, " must be >= 1");
  const int axis = normalize_axis(ctx.attrs.i("axis"), x.ndim(), "axis", "axis_out_of_range");
  Shape out = x.shape();
  // n_axis <= 2^24 and repeats < 2^31: the product is exact in int64; make_output checks it.
  out[static_cast<size_t>(axis)] = x.dim(axis) * repeats;
  Tensor y = make_output(out, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    Index d = unravel(o, out);
    d[static_cast<size_t>(axis)] /= repeats;  // each element repeated in place
    y.set(o, x.get(ravel(d, x.shape())));
  }
  return {y};
}

std::vector<Tensor> tile(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& reps = ctx.attrs.tuple("reps");
  verify_rule(!reps.empty(), "reps_empty", "reps must not be empty");
  for (int64_t r : reps) {
    verify_rule(r >= 1, "reps_below_1", "reps entry ", r, " is below 1");
    verify_rule(r < kMaxAttr, "reps_at_or_above_4096", "reps entry ", r, " is above ",
                kMaxAttr - 1);
  }
  const size_t n = x.shape().size();
  const size_t m = reps.size();
  const size_t k = std::max(n, m);
  verify_rule(k <= static_cast<size_t>(kMaxNdim), rules::kTensorLimits, "output would have ", k,
              " dims; the limit is ", kMaxNdim);
  // Right-align the input shape (SX) and reps (SR), padding with leading 1s.
  Shape out(k);
  for (size_t j = 0; j < k; ++j) {
    const int64_t sx = j < k - n ? 1 : x.shape()[j - (k - n)];
    const int64_t sr = j < k - m ? 1 : reps[j - (k - m)];
    out[j] = sx * sr;  // <= 2^24 * 4095
  }
  Tensor y = make_output(out, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index kk = unravel(o, out);
    Index source(n);
    // Every input axis wraps, the last one included (formalization v2's [K-N, K-1) is a typo; docs/glossary.md).
    for (size_t i = 0; i < n; ++i) source[i] = kk[k - n + i] % x.shape()[i];
    y.set(o, x.get(ravel(source, x.shape())));
  }
  return {y};
}

std::vector<Tensor> flatten(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  int64_t rest = 1;  // at most size(X) <= 2^30
  for (int i = 1; i < x.ndim(); ++i) rest *= x.dim(i);
  return {copy_with_shape(x, {x.dim(0), rest})};
}

std::vector<Tensor> concatenate(const OpContext& ctx) {
  const std::vector<Tensor>& inputs = ctx.inputs;
  verify_rule(!inputs.empty(), rules::kInputCount, "needs at least one input");
  const Tensor& first = inputs[0];
  const int n = first.ndim();
  for (size_t k = 1; k < inputs.size(); ++k) {
    verify_rule(inputs[k].ndim() == n, "ndim_mismatch", "input ", k, " has ", inputs[k].ndim(),
                " dims, input 0 has ", n);
  }
  const int axis = normalize_axis(ctx.attrs.i("axis"), n, "axis", "axis_out_of_range");
  Shape out = first.shape();
  out[static_cast<size_t>(axis)] = 0;
  int precision = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    for (int j = 0; j < n; ++j) {
      verify_rule(j == axis || inputs[k].dim(j) == first.dim(j), "other_dim_mismatch", "input ", k,
                  " dim ", j, " is ", inputs[k].dim(j), ", input 0 has ", first.dim(j));
    }
    out[static_cast<size_t>(axis)] += inputs[k].dim(axis);  // each <= 2^24: no overflow
    precision = std::max(precision, inputs[k].precision());
  }
  Tensor y = make_output(out, precision);
  for (int64_t o = 0; o < y.size(); ++o) {
    Index d = unravel(o, out);
    // Find the input whose slab holds d[axis], then read it at the offset inside that slab.
    size_t k = 0;
    while (d[static_cast<size_t>(axis)] >= inputs[k].dim(axis)) {
      d[static_cast<size_t>(axis)] -= inputs[k].dim(axis);
      ++k;
    }
    y.set(o, inputs[k].get(ravel(d, inputs[k].shape())));
  }
  return {y};
}

std::vector<Tensor> expand_dims(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int64_t n = x.ndim();
  const int64_t axis = ctx.attrs.i("axis");
  verify_rule(axis >= -n - 1 && axis <= n, "axis_out_of_range", "axis ", axis, " is outside [",
              -n - 1, ", ", n, "]");
  const int64_t at = axis < 0 ? axis + n + 1 : axis;
  const int64_t count = ctx.attrs.i("num_newaxis");
  verify_rule(count >= 1, "num_newaxis_below_1", "num_newaxis ", count, " is below 1");
  verify_rule(count < kMaxAttr, "num_newaxis_at_or_above_4096", "num_newaxis ", count, " is above ",
              kMaxAttr - 1);
  verify_rule(n + count <= kMaxNdim, rules::kTensorLimits, "output would have ", n + count,
              " dims; the limit is ", kMaxNdim);
  Shape out(x.shape().begin(), x.shape().begin() + at);
  out.insert(out.end(), static_cast<size_t>(count), 1);
  out.insert(out.end(), x.shape().begin() + at, x.shape().end());
  return {copy_with_shape(x, out)};
}

// One -4 split entry: -1 (inferred) or a dim in [1, 2^24].
void check_split_entry(int64_t d) {
  verify_rule(d == -1 || (d >= 1 && d <= kMaxDim), "split_part_out_of_range",
              "a -4 split entry must be -1 or in [1, 2^24], got ", d);
}

// The output shape of reshape. A cursor walks the input dims as the original runtime's does: a
// literal, a -1 and a 0 advance it by one, -3 by two, -4 by one, -2 to the end. The -1 is
// recorded at its position in the output (also after -2/-3/-4 codes) and inferred last.
Shape reshape_shape(const Shape& in, const Tuple& codes) {
  verify_rule(!codes.empty(), "shape_empty", "shape must not be empty");
  const size_t n = in.size();
  Shape out;
  size_t src = 0;
  std::optional<size_t> inferred;
  for (size_t c = 0; c < codes.size(); ++c) {
    const int64_t code = codes[c];
    if (code > 0) {
      // Checked before any product is formed, so int64 never overflows below.
      verify_rule(code <= kMaxDim, "literal_over_dim_limit", "shape entry ", code,
                  " exceeds the dim limit 2^24");
      out.push_back(code);
      ++src;
    } else if (code == 0) {
      verify_rule(src < n, "zero_past_input_dims", "code 0 at entry ", c,
                  " has no input dim left to copy");
      out.push_back(in[src++]);
    } else if (code == -1) {
      verify_rule(!inferred.has_value(), "two_inferred", "more than one -1 in shape");
      inferred = out.size();
      out.push_back(1);  // placeholder, replaced below
      ++src;
    } else if (code == -2) {
      while (src < n) out.push_back(in[src++]);
    } else if (code == -3) {
      verify_rule(src < n, "merge_past_input_dims", "code -3 at entry ", c,
                  " has no input dim left");
      verify_rule(src + 1 < n, "merge_with_one_dim_left", "code -3 at entry ", c,
                  " needs two input dims left");
      out.push_back(in[src] * in[src + 1]);  // <= size(X) <= 2^30
      src += 2;
    } else if (code == -4) {
      verify_rule(c + 2 < codes.size(), "split_missing_entries", "code -4 at entry ", c,
                  " needs two entries after it");
      verify_rule(src < n, "split_past_input_dims", "code -4 at entry ", c,
                  " has no input dim left to split");
      const int64_t whole = in[src++];
      int64_t d1 = codes[++c];
      int64_t d2 = codes[++c];
      check_split_entry(d1);
      check_split_entry(d2);
      verify_rule(d1 != -1 || d2 != -1, "split_both_inferred",
                  "a -4 split cannot infer both parts");
      if (d1 == -1) {
        verify_rule(whole % d2 == 0, "split_not_dividing", "split part ", d2,
                    " does not divide input dim ", whole);
        d1 = whole / d2;
      }
      if (d2 == -1) {
        verify_rule(whole % d1 == 0, "split_not_dividing", "split part ", d1,
                    " does not divide input dim ", whole);
        d2 = whole / d1;
      }
      verify_rule(d1 * d2 == whole, "split_not_dividing", "split parts ", d1, " x ", d2,
                  " do not make input dim ", whole);
      out.push_back(d1);
      out.push_back(d2);
    } else {
      fail_rule("code_below_minus_4", "shape code ", code, " is below -4");
    }
  }
  // Every dim is in [1, 2^30], so the running product only grows; stopping once it passes the
  // input size keeps it below 2^60.
  const int64_t total = shape_size(in);
  int64_t known = 1;
  for (int64_t d : out) {
    known *= d;
    verify_rule(known <= total, "product_mismatch", "shape product exceeds the input size ", total);
  }
  if (inferred.has_value()) {
    verify_rule(total % known == 0, "product_mismatch",
                "no -1 value makes the shape product equal ", total);
    out[*inferred] = total / known;
  } else {
    verify_rule(known == total, "product_mismatch", "shape product ", known,
                " differs from the input size ", total);
  }
  return out;
}

std::vector<Tensor> reshape(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  return {copy_with_shape(x, reshape_shape(x.shape(), ctx.attrs.tuple("shape")))};
}

std::vector<Tensor> squeeze(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& axis = ctx.attrs.tuple("axis");
  std::vector<bool> dropped(static_cast<size_t>(n), false);
  if (axis.empty()) {
    for (int i = 0; i < n; ++i) dropped[static_cast<size_t>(i)] = x.dim(i) == 1;
  }
  for (int64_t a : axis) {
    const int i = normalize_axis(a, n, "axis", "axis_out_of_range");
    verify_rule(x.dim(i) == 1, "axis_not_size_1", "axis ", a, " has size ", x.dim(i), ", not 1");
    dropped[static_cast<size_t>(i)] = true;  // a duplicate names the same axis again
  }
  Shape out;
  for (int i = 0; i < n; ++i) {
    if (!dropped[static_cast<size_t>(i)]) out.push_back(x.dim(i));
  }
  if (out.empty()) out = {1};
  return {copy_with_shape(x, out)};
}

std::vector<Tensor> transpose(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& given = ctx.attrs.tuple("axes");
  std::vector<int> axes(static_cast<size_t>(n));
  if (given.empty()) {
    for (int i = 0; i < n; ++i) axes[static_cast<size_t>(i)] = n - 1 - i;
  } else {
    verify_rule(given.size() == static_cast<size_t>(n), "axes_wrong_length", "axes has ",
                given.size(), " entries; the input has ", n, " dims");
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int i = 0; i < n; ++i) {
      const int a =
          normalize_axis(given[static_cast<size_t>(i)], n, "axes entry", "axes_out_of_range");
      verify_rule(!seen[static_cast<size_t>(a)], "axes_duplicate", "axis ", a,
                  " appears twice in axes");
      seen[static_cast<size_t>(a)] = true;
      axes[static_cast<size_t>(i)] = a;
    }
  }
  Shape out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = x.dim(axes[static_cast<size_t>(i)]);
  Tensor y = make_output(out, x.precision());
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index d = unravel(o, out);
    Index source(static_cast<size_t>(n));
    // Output axis i is input axis axes[i].
    for (int i = 0; i < n; ++i) {
      source[static_cast<size_t>(axes[static_cast<size_t>(i)])] = d[static_cast<size_t>(i)];
    }
    y.set(o, x.get(ravel(source, x.shape())));
  }
  return {y};
}

}  // namespace

void add_transform_shape(Backend& backend) {
  backend.add("repeat", kernel(repeat));
  backend.add("tile", kernel(tile));
  backend.add("flatten", kernel(flatten));
  backend.add("concatenate", kernel(concatenate));
  backend.add("expand_dims", kernel(expand_dims));
  backend.add("reshape", kernel(reshape));
  backend.add("squeeze", kernel(squeeze));
  backend.add("transpose", kernel(transpose));
}

}  // namespace cvm::ref
