// Generators of the transform_shape family: repeat, tile, flatten, concatenate, expand_dims,
// reshape, squeeze, transpose (docs/ops/transform_shape.md). Valid calls are built so that they
// are valid by construction (reshape codes are derived from the input shape); each invalid
// generator breaks one operator-specific rule of a call built the same way.
#include <algorithm>
#include <functional>
#include <limits>

#include "harness/gen/generators.h"
#include "harness/gen/path_aim.h"

namespace cvm {
namespace {

using gen::kInt32Max;
using gen::kInt32Min;
using gen::kInt64Max;
using gen::kInt64Min;

// Output elements of one valid call: keeps the naive reference well under a millisecond.
constexpr int64_t kOutputBudget = 4096;

// An int64 in [lo, hi] with both ends weighted up.
rc::Gen<int64_t> edge_biased(int64_t lo, int64_t hi) {
  return rc::gen::weightedOneOf<int64_t>(
      {{1, rc::gen::just(lo)}, {1, rc::gen::just(hi)}, {3, rc::gen::inRange<int64_t>(lo, hi + 1)}});
}

// One of `edges`, or uniform in [lo, hi).
rc::Gen<int64_t> edges_or_range(std::vector<int64_t> edges, int64_t lo, int64_t hi) {
  return rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::elementOf(std::move(edges))}, {1, rc::gen::inRange<int64_t>(lo, hi)}});
}

using gen::coin;

// A random permutation of 0..n-1.
std::vector<int64_t> permutation(int n) {
  const auto keys =
      *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(0, 1 << 16));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
  });
  return order;
}

// Each axis spelled as itself or as its negative alias.
std::vector<int64_t> spelled(const std::vector<int64_t>& axes, int n) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(*gen::spell_axis(a, n));
  return out;
}

Tensor any_tensor(const Shape& shape) { return *gen::tensor_any_dtype(shape, *gen::precision()); }

Call make_call(const std::string& op, std::vector<Tensor> inputs) {
  Call call;
  call.op = op;
  call.inputs = std::move(inputs);
  return call;
}

using gen::add_rule;

// An int8 tensor of zeros: for the few rules that need more than 2^24 elements (generating
// values for them would dominate the run).
Tensor big_zeros(const Shape& shape) {
  return Tensor::zeros(DType::kInt8, shape, *gen::precision(1, 8));
}

// ---- repeat -------------------------------------------------------------------------------

Call repeat_call(const Tensor& x, int64_t repeats, const std::optional<int64_t>& axis) {
  Call call = make_call("repeat", {x});
  call.attrs["repeats"] = std::to_string(repeats);
  if (axis) call.attrs["axis"] = std::to_string(*axis);
  return call;
}

// A valid input and axis (spelled, or left out when it is the default 0).
std::pair<Tensor, int> repeat_input() {
  const Tensor x = any_tensor(*gen::shape(1, 6));
  return {x, *rc::gen::inRange(0, x.ndim())};
}

std::optional<int64_t> repeat_axis_text(int axis, int n) {
  if (axis == 0 && coin()) return std::nullopt;
  return *gen::spell_axis(axis, n);
}

OpGenerators repeat_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto [x, axis] = repeat_input();
    const int64_t repeats = *edge_biased(1, std::max<int64_t>(1, kOutputBudget / x.size()));
    return repeat_call(x, repeats, repeat_axis_text(axis, x.ndim()));
  });
  add_rule(g.invalid, "repeats_below_1", [] {
    const auto [x, axis] = repeat_input();
    const int64_t repeats = *edges_or_range({0, -1, kInt32Min}, kInt32Min, 1);
    return repeat_call(x, repeats, repeat_axis_text(axis, x.ndim()));
  });
  add_rule(g.invalid, "axis_out_of_range", [] {
    const auto [x, axis] = repeat_input();
    const int64_t n = x.ndim();
    const int64_t bad = *rc::gen::oneOf(edges_or_range({n, kInt32Max}, n, kInt32Max),
                                        edges_or_range({-n - 1, kInt32Min}, kInt32Min, -n));
    return repeat_call(x, 2, bad);
  });
  add_rule(g.invalid, "output_dim_over_limit", [] {
    // At most 63 elements: n_axis * repeats passes 2^24 while the output
    // stays within 2^30 elements.
    const Tensor x = any_tensor(*gen::shape(1, 6, 8, 63));
    const int axis = *rc::gen::inRange(0, x.ndim());
    const int64_t lo = kMaxDim / x.dim(axis) + 1;
    const int64_t hi = kMaxElements / x.size();
    const int64_t repeats = *edge_biased(lo, hi);  // one draw per statement (evaluation order)
    return repeat_call(x, repeats, repeat_axis_text(axis, x.ndim()));
  });
  add_rule(g.invalid, "output_elements_over_limit", [] {
    // Other dims holding at least 65 elements let n_axis * repeats stay
    // within 2^24 while the output passes 2^30 elements.
    Shape shape = *gen::shape(1, 5, 4, 16);
    const auto axis = *rc::gen::inRange<size_t>(0, shape.size());
    const auto wide = *rc::gen::inRange<size_t>(0, shape.size() + 1);
    shape.insert(shape.begin() + static_cast<int64_t>(wide), *rc::gen::inRange<int64_t>(65, 100));
    const size_t at = wide <= axis ? axis + 1 : axis;
    const Tensor x = any_tensor(shape);
    const int64_t lo = kMaxElements / x.size() + 1;
    const int64_t hi = kMaxDim / shape[at];
    const int64_t repeats = *edge_biased(lo, hi);  // one draw per statement (evaluation order)
    return repeat_call(x, repeats, *gen::spell_axis(static_cast<int64_t>(at), x.ndim()));
  });
  return g;
}

// ---- tile ---------------------------------------------------------------------------------

Call tile_call(const Tensor& x, const std::vector<int64_t>& reps) {
  Call call = make_call("tile", {x});
  call.attrs["reps"] = *gen::tuple_text(reps);
  return call;
}

// An input (sometimes all dims 1, so that reps can reach 4095) and valid reps of length 1..6
// whose output stays within the budget.
std::pair<Tensor, std::vector<int64_t>> tile_draw() {
  const Shape shape =
      *rc::gen::weightedOneOf<Shape>({{3, gen::shape(1, 6, 6, 256)}, {1, gen::shape(1, 6, 1)}});
  const Tensor x = any_tensor(shape);
  const auto m = *rc::gen::inRange<size_t>(1, 7);
  std::vector<int64_t> reps(m, 1);
  int64_t room = kOutputBudget / x.size();
  const auto start = *rc::gen::inRange<size_t>(0, m);
  for (size_t t = 0; t < m; ++t) {
    const int64_t hi = std::min<int64_t>(kMaxAttr - 1, room);
    const int64_t r = *rc::gen::weightedOneOf<int64_t>(
        {{2, rc::gen::just<int64_t>(1)},
         {1, rc::gen::just(hi)},
         {3, rc::gen::inRange<int64_t>(1, std::min<int64_t>(hi, 4) + 1)}});
    reps[(start + t) % m] = r;
    room /= r;
  }
  return {x, reps};
}

OpGenerators tile_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto [x, reps] = tile_draw();
    return tile_call(x, reps);
  });
  add_rule(g.invalid, "reps_empty", [] { return tile_call(tile_draw().first, {}); });
  add_rule(g.invalid, "reps_below_1", [] {
    auto [x, reps] = tile_draw();
    reps[*rc::gen::inRange<size_t>(0, reps.size())] =
        *edges_or_range({0, -1, kInt64Min}, -1000000, 1);
    return tile_call(x, reps);
  });
  add_rule(g.invalid, "reps_at_or_above_4096", [] {
    auto [x, reps] = tile_draw();
    reps[*rc::gen::inRange<size_t>(0, reps.size())] =
        *edges_or_range({kMaxAttr, kInt64Max}, kMaxAttr, 1000000000);
    return tile_call(x, reps);
  });
  add_rule(g.invalid, "output_ndim_above_6", [] {
    const Tensor x = any_tensor(*gen::shape(1, 6, 4, 64));
    const auto reps = *rc::gen::container<std::vector<int64_t>>(*rc::gen::inRange<size_t>(7, 11),
                                                                rc::gen::inRange<int64_t>(1, 3));
    return tile_call(x, reps);
  });
  add_rule(g.invalid, "output_dim_over_limit", [] {
    // A dim of 4098+ times reps up to 4095 passes 2^24.
    const int n = *rc::gen::inRange(1, 4);
    Shape shape(static_cast<size_t>(n), 1);
    const auto at = *rc::gen::inRange<size_t>(0, shape.size());
    shape[at] = *rc::gen::inRange<int64_t>(4098, 4200);
    const Tensor x = *gen::tensor(shape, *gen::precision(1, 8));
    std::vector<int64_t> reps(shape.size(), 1);
    reps[at] = *edge_biased(kMaxDim / shape[at] + 1, kMaxAttr - 1);
    return tile_call(x, reps);
  });
  add_rule(g.invalid, "output_elements_over_limit", [] {
    // Three or more reps of at least 1100: over 2^30 elements, every dim
    // within 2^24.
    const auto m = *rc::gen::inRange<size_t>(3, 7);
    const Tensor x = any_tensor(*gen::shape(1, static_cast<int>(m), 8, 512));
    const auto reps = *rc::gen::container<std::vector<int64_t>>(m, edge_biased(1100, kMaxAttr - 1));
    return tile_call(x, reps);
  });
  return g;
}

// ---- flatten ------------------------------------------------------------------------------

OpGenerators flatten_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return make_call("flatten", {any_tensor(*gen::shape(1, 6))}); });
  add_rule(g.invalid, "output_dim_over_limit", [] {
    // The product of the trailing dims passes 2^24 (one more element than
    // that at the least, so these inputs are large).
    const Shape shape = *rc::gen::elementOf(std::vector<Shape>{
        {1, 4097, 4096}, {1, 2, 8388609}, {1, 16, 1048577}, {1, 1, 2, 2, 4194305}});
    return make_call("flatten", {big_zeros(shape)});
  });
  return g;
}

// ---- concatenate --------------------------------------------------------------------------

struct ConcatDraw {
  Shape base;
  int axis = 0;
  std::vector<Tensor> inputs;
};

// 1..4 inputs of one ndim that differ only along the axis, each with its own precision and
// storage.
ConcatDraw concat_draw(int min_ndim = 1, size_t min_inputs = 1) {
  ConcatDraw d;
  d.base = *gen::shape(min_ndim, 6, 6, 256);
  d.axis = *rc::gen::inRange(0, static_cast<int>(d.base.size()));
  const auto count = *rc::gen::inRange<size_t>(min_inputs, 5);
  for (size_t k = 0; k < count; ++k) {
    Shape shape = d.base;
    shape[static_cast<size_t>(d.axis)] = *rc::gen::inRange<int64_t>(1, 7);
    d.inputs.push_back(any_tensor(shape));
  }
  return d;
}

Call concat_call(const ConcatDraw& d) {
  Call call = make_call("concatenate", d.inputs);
  const int n = static_cast<int>(d.base.size());
  if (d.axis != 1 || coin()) call.attrs["axis"] = std::to_string(*gen::spell_axis(d.axis, n));
  return call;
}

OpGenerators concatenate_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return concat_call(concat_draw()); });
  add_rule(g.invalid, "axis_out_of_range", [] {
    const ConcatDraw d = concat_draw();
    Call call = concat_call(d);
    const int64_t n = static_cast<int64_t>(d.base.size());
    if (n == 1 && coin()) {
      call.attrs.erase("axis");  // the default 1 does not exist for 1-D
    } else {
      call.attrs["axis"] =
          std::to_string(*rc::gen::oneOf(edges_or_range({n, kInt32Max}, n, kInt32Max),
                                         edges_or_range({-n - 1, kInt32Min}, kInt32Min, -n)));
    }
    return call;
  });
  add_rule(g.invalid, "ndim_mismatch", [] {
    ConcatDraw d = concat_draw(1, 2);
    const auto k = *rc::gen::inRange<size_t>(1, d.inputs.size());
    Shape shape = d.inputs[k].shape();
    if (shape.size() < 6 && (shape.size() == 1 || coin())) {
      // One draw per statement: argument evaluation order differs between compilers.
      const auto at = *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(shape.size()) + 1);
      const auto dim = *rc::gen::inRange<int64_t>(1, 4);
      shape.insert(shape.begin() + at, dim);
    } else {
      shape.erase(shape.begin() +
                  *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(shape.size())));
    }
    d.inputs[k] = any_tensor(shape);
    return concat_call(d);
  });
  add_rule(g.invalid, "other_dim_mismatch", [] {
    ConcatDraw d = concat_draw(2, 2);
    const auto k = *rc::gen::inRange<size_t>(1, d.inputs.size());
    const int n = static_cast<int>(d.base.size());
    const int j = (d.axis + *rc::gen::inRange(1, n)) % n;  // not the axis
    Shape shape = d.inputs[k].shape();
    shape[static_cast<size_t>(j)] = shape[static_cast<size_t>(j)] % 7 + 1;
    d.inputs[k] = any_tensor(shape);
    return concat_call(d);
  });
  add_rule(g.invalid, "output_dim_over_limit", [] {
    // 2..3 inputs whose axis dims sum to just over 2^24.
    ConcatDraw d;
    d.base = Shape(static_cast<size_t>(*rc::gen::inRange(1, 4)), 1);
    d.axis = *rc::gen::inRange(0, static_cast<int>(d.base.size()));
    const int64_t count = *rc::gen::inRange<int64_t>(2, 4);
    for (int64_t k = 0; k < count; ++k) {
      Shape shape = d.base;
      shape[static_cast<size_t>(d.axis)] = kMaxDim / count + 1;
      d.inputs.push_back(big_zeros(shape));
    }
    return concat_call(d);
  });
  return g;
}

// ---- expand_dims --------------------------------------------------------------------------

Call expand_dims_call(const Tensor& x, int64_t axis, int64_t num_newaxis) {
  Call call = make_call("expand_dims", {x});
  call.attrs["axis"] = std::to_string(axis);
  if (num_newaxis != 1 || coin()) call.attrs["num_newaxis"] = std::to_string(num_newaxis);
  return call;
}

OpGenerators expand_dims_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const Tensor x = any_tensor(*gen::shape(1, 5));
    const int64_t n = x.ndim();
    const int64_t axis = *edge_biased(-n - 1, n);  // one draw per statement (evaluation order)
    return expand_dims_call(x, axis, *edge_biased(1, kMaxNdim - n));
  });
  add_rule(g.invalid, "axis_out_of_range", [] {
    const Tensor x = any_tensor(*gen::shape(1, 5));
    const int64_t n = x.ndim();
    const int64_t axis = *rc::gen::oneOf(edges_or_range({n + 1, kInt32Max}, n + 1, kInt32Max),
                                         edges_or_range({-n - 2, kInt32Min}, kInt32Min, -n - 1));
    return expand_dims_call(x, axis, 1);
  });
  add_rule(g.invalid, "num_newaxis_below_1", [] {
    const Tensor x = any_tensor(*gen::shape(1, 5));
    const int64_t n = x.ndim();
    Call call = expand_dims_call(x, *edge_biased(-n - 1, n), 1);
    call.attrs["num_newaxis"] = std::to_string(*edges_or_range({0, -1, kInt32Min}, kInt32Min, 0));
    return call;
  });
  add_rule(g.invalid, "output_ndim_above_6", [] {
    const Tensor x = any_tensor(*gen::shape(1, 6));
    const int64_t n = x.ndim();
    const int64_t axis = *edge_biased(-n - 1, n);  // one draw per statement (evaluation order)
    return expand_dims_call(x, axis,
                            *edge_biased(kMaxNdim + 1 - n, kMaxAttr - 1));
  });
  // Every num_newaxis of 4096 or more also passes the ndim limit; both are logic errors.
  add_rule(g.invalid, "num_newaxis_at_or_above_4096", [] {
    const Tensor x = any_tensor(*gen::shape(1, 5));
    const int64_t n = x.ndim();
    const int64_t axis = *edge_biased(-n - 1, n);  // one draw per statement (evaluation order)
    return expand_dims_call(x, axis,
                            *edges_or_range({kMaxAttr, kInt32Max}, kMaxAttr, kInt32Max));
  });
  return g;
}

// ---- squeeze ------------------------------------------------------------------------------

Call squeeze_call(const Tensor& x, const std::optional<std::vector<int64_t>>& axis) {
  Call call = make_call("squeeze", {x});
  if (axis) call.attrs["axis"] = *gen::tuple_text(*axis);
  return call;
}

// A shape with about half its dims set to 1, and a list naming some of those (possibly none,
// possibly one twice).
std::pair<Shape, std::vector<int64_t>> squeeze_draw(int64_t max_elements = gen::kMaxElements) {
  Shape shape = *gen::shape(1, 6, 8, max_elements);
  std::vector<int64_t> ones;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (coin()) shape[i] = 1;
    if (shape[i] == 1) ones.push_back(static_cast<int64_t>(i));
  }
  const int n = static_cast<int>(shape.size());
  std::vector<int64_t> listed;
  for (int64_t a : ones) {
    if (coin()) listed.push_back(*gen::spell_axis(a, n));
  }
  if (!listed.empty() && coin()) listed.push_back(*gen::spell_axis(ones.front(), n));
  return {shape, listed};
}

OpGenerators squeeze_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto [shape, listed] = squeeze_draw();
    const Tensor x = any_tensor(shape);
    if (listed.empty() && coin()) return squeeze_call(x, std::nullopt);
    return squeeze_call(x, listed);
  });
  add_rule(g.invalid, "axis_out_of_range", [] {
    auto [shape, listed] = squeeze_draw();
    const int64_t n = static_cast<int64_t>(shape.size());
    const int64_t bad = *rc::gen::oneOf(edges_or_range({n, kInt64Max}, n, 1000000),
                                        edges_or_range({-n - 1, kInt64Min}, -1000000, -n));
    listed.insert(
        listed.begin() + *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(listed.size()) + 1),
        bad);
    return squeeze_call(any_tensor(shape), listed);
  });
  add_rule(g.invalid, "axis_not_size_1", [] {
    auto [shape, listed] = squeeze_draw(256);
    const int n = static_cast<int>(shape.size());
    const auto j = *rc::gen::inRange<size_t>(0, shape.size());
    // Listed size-1 axes naming j stay valid only if j stays 1: drop them.
    std::erase_if(listed,
                  [&](int64_t a) { return (a < 0 ? a + n : a) == static_cast<int64_t>(j); });
    shape[j] = *rc::gen::inRange<int64_t>(2, 7);
    // One draw per statement: argument evaluation order differs between compilers.
    const auto at = *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(listed.size()) + 1);
    const auto spelled = *gen::spell_axis(static_cast<int64_t>(j), n);
    listed.insert(listed.begin() + at, spelled);
    return squeeze_call(any_tensor(shape), listed);
  });
  return g;
}

// ---- transpose ----------------------------------------------------------------------------

Call transpose_call(const Tensor& x, const std::optional<std::vector<int64_t>>& axes) {
  Call call = make_call("transpose", {x});
  if (axes) call.attrs["axes"] = *gen::tuple_text(*axes);
  return call;
}

OpGenerators transpose_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const Tensor x = any_tensor(gen::aimed_sides("transpose").value_or(*gen::shape(1, 6)));
    const int n = x.ndim();
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
        return transpose_call(x, std::nullopt);
      case 1:
        return transpose_call(x, std::vector<int64_t>{});
      default:
        return transpose_call(x, spelled(permutation(n), n));
    }
  });
  add_rule(g.invalid, "axes_wrong_length", [] {
    // One entry short: still distinct and in range (a longer list would
    // also repeat an axis).
    const Tensor x = any_tensor(*gen::shape(2, 6));
    const int n = x.ndim();
    std::vector<int64_t> axes = spelled(permutation(n), n);
    axes.erase(axes.begin() + *rc::gen::inRange<int64_t>(0, n));
    return transpose_call(x, axes);
  });
  add_rule(g.invalid, "axes_out_of_range", [] {
    const Tensor x = any_tensor(*gen::shape(1, 6));
    const int64_t n = x.ndim();
    std::vector<int64_t> axes = spelled(permutation(x.ndim()), x.ndim());
    axes[*rc::gen::inRange<size_t>(0, axes.size())] =
        *rc::gen::oneOf(edges_or_range({n, kInt64Max}, n, 1000000),
                        edges_or_range({-n - 1, kInt64Min}, -1000000, -n));
    return transpose_call(x, axes);
  });
  add_rule(g.invalid, "axes_duplicate", [] {
    const Tensor x = any_tensor(*gen::shape(2, 6));
    const int n = x.ndim();
    const std::vector<int64_t> perm = permutation(n);
    std::vector<int64_t> axes = spelled(perm, n);
    const auto i = *rc::gen::inRange<size_t>(0, axes.size());
    const size_t j = (i + *rc::gen::inRange<size_t>(1, axes.size())) % axes.size();
    axes[i] = *gen::spell_axis(perm[j], n);
    return transpose_call(x, axes);
  });
  return g;
}

}  // namespace

OpGenerators transform_shape_reshape_generators();  // harness/gen/transform_shape_reshape_gen.cc

void add_transform_shape_generators(GeneratorTable& table) {
  table["repeat"] = repeat_generators();
  table["tile"] = tile_generators();
  table["flatten"] = flatten_generators();
  table["concatenate"] = concatenate_generators();
  table["expand_dims"] = expand_dims_generators();
  table["reshape"] = transform_shape_reshape_generators();
  table["squeeze"] = squeeze_generators();
  table["transpose"] = transpose_generators();
}

}  // namespace cvm
