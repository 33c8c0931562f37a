#include "infer/transform_shape.h"

#include <algorithm>

namespace cvm::infer {
namespace {

// Spec with the input's precision, validated (limits, precision) before it is returned.
OutputSpec spec_of(Shape shape, int precision) {
  OutputSpec spec{std::move(shape), precision};
  validate_output(spec);
  return spec;
}

}  // namespace

RepeatInference infer_repeat(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int64_t repeats = ctx.attrs.i("repeats");  // int32 text
  if (repeats < 1) fail_rule("repeats_below_1", "repeats ", repeats, " must be at least 1");
  RepeatInference inf;
  inf.axis = axis_in(ctx.attrs.i("axis"), x.ndim(), "axis", "axis_out_of_range");
  inf.repeats = repeats;
  Shape shape = x.shape();
  // At most 2^24 * (2^31 - 1): exact in int64; the limits are checked by spec_of.
  shape[static_cast<size_t>(inf.axis)] *= repeats;
  inf.output = spec_of(std::move(shape), x.precision());
  return inf;
}

TileInference infer_tile(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& reps = ctx.attrs.tuple("reps");
  if (reps.empty()) fail_rule("reps_empty", "reps is empty");
  for (int64_t r : reps) {
    if (r < 1) fail_rule("reps_below_1", "reps entry ", r, " not in [1, 4096)");
    if (r >= kMaxAttr) fail_rule("reps_at_or_above_4096", "reps entry ", r, " not in [1, 4096)");
  }
  const size_t rank = std::max(reps.size(), x.shape().size());
  if (rank > static_cast<size_t>(kMaxNdim)) {
    fail_rule(rules::kTensorLimits, "tile output would have ", rank, " dims");
  }
  TileInference inf;
  inf.source.assign(rank - x.shape().size(), 1);
  inf.source.insert(inf.source.end(), x.shape().begin(), x.shape().end());
  Shape shape = inf.source;
  const size_t reps_offset = rank - reps.size();
  for (size_t j = reps_offset; j < rank; ++j) shape[j] *= reps[j - reps_offset];  // < 2^36
  inf.output = spec_of(std::move(shape), x.precision());
  return inf;
}

ConcatInference infer_concatenate(const OpContext& ctx) {
  const std::vector<Tensor>& in = ctx.inputs;
  if (in.empty()) fail_rule(rules::kInputCount, "concatenate needs at least one input");
  const Shape& first = in[0].shape();
  ConcatInference inf;
  inf.axis =
      axis_in(ctx.attrs.i("axis"), static_cast<int>(first.size()), "axis", "axis_out_of_range");
  const auto axis = static_cast<size_t>(inf.axis);
  Shape shape = first;
  shape[axis] = 0;
  int precision = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const Shape& s = in[k].shape();
    if (s.size() != first.size()) {
      fail_rule("ndim_mismatch", "input ", k, " ", shape_str(s), " and input 0 ", shape_str(first),
                " differ in ndim");
    }
    for (size_t j = 0; j < s.size(); ++j) {
      if (j != axis && s[j] != first[j]) {
        fail_rule("other_dim_mismatch", "input ", k, " ", shape_str(s), " differs from input 0 ",
                  shape_str(first), " off the axis");
      }
    }
    shape[axis] += s[axis];  // each <= 2^24; inputs are few enough for int64
    precision = std::max(precision, in[k].precision());
  }
  inf.output = spec_of(std::move(shape), precision);
  return inf;
}

OutputSpec infer_flatten(const OpContext& ctx) {
  const Shape& s = ctx.inputs[0].shape();
  int64_t tail = 1;
  for (size_t j = 1; j < s.size(); ++j) tail *= s[j];  // <= 2^30: a valid input's size
  return spec_of({s[0], tail}, ctx.inputs[0].precision());
}

OutputSpec infer_expand_dims(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int64_t n = x.ndim();
  const int64_t axis = ctx.attrs.i("axis");  // int32 text: no overflow below
  const int64_t count = ctx.attrs.i("num_newaxis");
  if (axis < -(n + 1) || axis > n) {
    fail_rule("axis_out_of_range", "axis ", axis, " not in [", -(n + 1), ", ", n, "]");
  }
  if (count < 1) fail_rule("num_newaxis_below_1", "num_newaxis ", count, " not in [1, 4096)");
  if (count >= kMaxAttr) {
    fail_rule("num_newaxis_at_or_above_4096", "num_newaxis ", count, " not in [1, 4096)");
  }
  if (n + count > kMaxNdim) {
    fail_rule(rules::kTensorLimits, "expand_dims output would have ", n + count, " dims");
  }
  const int64_t position = axis >= 0 ? axis : axis + n + 1;
  Shape shape = x.shape();
  shape.insert(shape.begin() + position, static_cast<size_t>(count), int64_t{1});
  return spec_of(std::move(shape), x.precision());
}

namespace {

// The reshape code list, read left to right against a cursor over the input dims.
class ReshapeReader {
 public:
  ReshapeReader(const Shape& in, const Tuple& codes) : in_(in), codes_(codes) {}

  Shape read() {
    if (codes_.empty()) fail_rule("shape_empty", "shape is empty");
    for (next_ = 0; next_ < codes_.size();) step(codes_[next_++]);
    resolve();
    return out_;
  }

 private:
  int64_t input_dim(const char* code, const char* rule) {
    if (cursor_ >= in_.size()) fail_rule(rule, "shape code ", code, " has no input dim left");
    return in_[cursor_++];
  }

  void step(int64_t code) {
    if (code > 0) {
      if (code > kMaxDim) fail_rule("literal_over_dim_limit", "shape entry ", code, " above 2^24");
      out_.push_back(code);
      ++cursor_;
    } else if (code == 0) {
      out_.push_back(input_dim("0", "zero_past_input_dims"));
    } else if (code == -1) {
      if (inferred_ >= 0) fail_rule("two_inferred", "shape has more than one -1");
      inferred_ = static_cast<int64_t>(out_.size());
      out_.push_back(1);  // resolved last
      ++cursor_;
    } else if (code == -2) {
      for (; cursor_ < in_.size(); ++cursor_) out_.push_back(in_[cursor_]);
    } else if (code == -3) {
      if (cursor_ >= in_.size()) {
        fail_rule("merge_past_input_dims", "shape code -3 has no input dim");
      }
      if (cursor_ + 2 > in_.size()) {
        fail_rule("merge_with_one_dim_left", "shape code -3 needs two input dims");
      }
      out_.push_back(in_[cursor_] * in_[cursor_ + 1]);  // <= size(X)
      cursor_ += 2;
    } else if (code == -4) {
      split();
    } else {
      fail_rule("code_below_minus_4", "shape code ", code, " below -4");
    }
  }

  // -4 d1 d2: one input dim split in two; at most one part -1.
  void split() {
    if (next_ + 2 > codes_.size()) {
      fail_rule("split_missing_entries", "shape code -4 needs two entries after it");
    }
    int64_t part[2] = {codes_[next_], codes_[next_ + 1]};
    next_ += 2;
    const int64_t whole = input_dim("-4", "split_past_input_dims");
    for (int64_t p : part) {
      if (p != -1 && (p < 1 || p > kMaxDim)) {
        fail_rule("split_part_out_of_range", "-4 part ", p, " is not -1 or a dim");
      }
    }
    if (part[0] == -1 && part[1] == -1) fail_rule("split_both_inferred", "-4 parts are both -1");
    for (int k = 0; k < 2; ++k) {
      if (part[k] != -1) continue;
      const int64_t given = part[1 - k];
      if (whole % given != 0) {
        fail_rule("split_not_dividing", "-4 part ", given, " does not divide ", whole);
      }
      part[k] = whole / given;
    }
    if (part[0] * part[1] != whole) {  // both <= 2^24: exact
      fail_rule("split_not_dividing", "-4 parts ", part[0], " x ", part[1], " are not ", whole);
    }
    out_.push_back(part[0]);
    out_.push_back(part[1]);
  }

  // Every dim is >= 1, so the running product can only grow: stopping at the first partial
  // product above size(X) keeps it below 2^30 * 2^24.
  void resolve() {
    int64_t size = 1;
    for (int64_t d : in_) size *= d;
    int64_t product = 1;
    for (int64_t d : out_) {
      product *= d;
      if (product > size) {
        fail_rule("product_mismatch", "shape product exceeds the input size ", size);
      }
    }
    if (inferred_ < 0) {
      if (product != size) {
        fail_rule("product_mismatch", "shape product ", product, " is not the input size ", size);
      }
      return;
    }
    if (size % product != 0) {
      fail_rule("product_mismatch", "no -1 value gives the input size ", size);
    }
    out_[static_cast<size_t>(inferred_)] = size / product;
  }

  const Shape& in_;
  const Tuple& codes_;
  Shape out_;
  size_t next_ = 0;
  size_t cursor_ = 0;  // may pass the end: literals and -1 advance it without reading
  int64_t inferred_ = -1;
};

}  // namespace

OutputSpec infer_reshape(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  return spec_of(ReshapeReader(x.shape(), ctx.attrs.tuple("shape")).read(), x.precision());
}

OutputSpec infer_squeeze(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tuple& listed = ctx.attrs.tuple("axis");
  std::vector<char> drop(x.shape().size(), 0);
  for (size_t j = 0; j < drop.size(); ++j) drop[j] = listed.empty() && x.shape()[j] == 1;
  for (int64_t a : listed) {
    const int j = axis_in(a, x.ndim(), "axis", "axis_out_of_range");
    if (x.dim(j) != 1) fail_rule("axis_not_size_1", "axis ", a, " has size ", x.dim(j), ", not 1");
    drop[static_cast<size_t>(j)] = 1;
  }
  Shape shape;
  for (size_t j = 0; j < drop.size(); ++j) {
    if (drop[j] == 0) shape.push_back(x.shape()[j]);
  }
  if (shape.empty()) shape.push_back(1);
  return spec_of(std::move(shape), x.precision());
}

TransposeInference infer_transpose(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& given = ctx.attrs.tuple("axes");
  TransposeInference inf;
  if (given.empty()) {
    for (int i = n - 1; i >= 0; --i) inf.axes.push_back(i);
  } else {
    if (given.size() != static_cast<size_t>(n)) {
      fail_rule("axes_wrong_length", "axes has ", given.size(), " entries for ", n, " input dims");
    }
    unsigned used = 0;  // one bit per input axis
    for (int64_t a : given) {
      const int j = axis_in(a, n, "axes entry", "axes_out_of_range");
      if ((used >> j) & 1U) fail_rule("axes_duplicate", "axes names axis ", j, " twice");
      used |= 1U << j;
      inf.axes.push_back(j);
    }
  }
  Shape shape;
  for (int j : inf.axes) shape.push_back(x.dim(j));
  inf.output = spec_of(std::move(shape), x.precision());
  return inf;
}

}  // namespace cvm::infer
