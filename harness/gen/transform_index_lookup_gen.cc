// Generators of the transform_index family's lookups, take, cvm_lut and where
// (docs/ops/transform_index.md), apart from the slices and pad (harness/gen/transform_index_gen.cc)
// for length. Index tensors lean on the edges of their extent, out-of-range and negative values
// included (they clamp).
#include <algorithm>
#include <limits>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

using gen::add_rule;
using gen::kInt32Max;

using gen::ndim_of;

// An index tensor for an extent of `extent` entries: mostly near [0, extent) including a few
// out-of-range and negative values (they clamp), sometimes any value of precision p.
Tensor index_tensor(const Shape& shape, int64_t extent, int p) {
  const int64_t a = alpha(p);
  const auto near = rc::gen::map(rc::gen::inRange<int64_t>(-3, extent + 3), [a](int64_t v) {
    return static_cast<int32_t>(std::clamp(v, -a, a));
  });
  const auto one = rc::gen::weightedOneOf<int32_t>({{4, near}, {1, gen::value(p)}});
  const auto values =
      *rc::gen::container<std::vector<int32_t>>(static_cast<size_t>(shape_size(shape)), one);
  const bool int8 = p <= 8 && *rc::gen::arbitrary<bool>();
  return Tensor::from_values(shape, values, p, int8 ? DType::kInt8 : DType::kInt32);
}

// ---------------------------------------------------------------- take

struct TakeDraw {
  Shape data, indices;
  bool with_axis = false;
  int64_t axis = 0;  // raw, in [-N, N)
};

TakeDraw draw_take() {
  TakeDraw d;
  d.with_axis = *rc::gen::arbitrary<bool>();
  if (!d.with_axis) {
    d.data = *gen::shape(1, 6, 8, 512);
    d.indices = *gen::shape(1, 6, 8, 512);
    return d;
  }
  d.data = *gen::shape(1, 6, 8, 256);
  const int n = ndim_of(d.data);
  d.axis = *gen::axis(n);
  const int64_t extent = d.data[static_cast<size_t>(d.axis < 0 ? d.axis + n : d.axis)];
  // Output N + M - 1 <= 6 dims and about kMaxElements elements.
  const int64_t outer = shape_size(d.data) / extent;
  d.indices = *gen::shape(1, 7 - n, 8, std::max<int64_t>(1, gen::kMaxElements / outer));
  return d;
}

Call take_call(const TakeDraw& d, const std::string& axis_text) {
  Call call;
  call.op = "take";
  if (!axis_text.empty()) call.attrs["axis"] = axis_text;
  call.inputs.push_back(*gen::tensor_any_dtype(d.data, *gen::precision()));
  const int n = ndim_of(d.data);
  const int64_t extent = d.with_axis ? d.data[static_cast<size_t>(d.axis < 0 ? d.axis + n : d.axis)]
                                     : shape_size(d.data);
  call.inputs.push_back(index_tensor(d.indices, extent, *gen::precision()));
  return call;
}

std::string valid_axis_text(const TakeDraw& d) {
  if (d.with_axis) return std::to_string(d.axis);
  return *rc::gen::elementOf(std::vector<std::string>{"", "None"});  // "" leaves it out
}

}  // namespace

OpGenerators transform_index_take_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const TakeDraw d = draw_take();
    return take_call(d, valid_axis_text(d));
  });
  add_rule(g.invalid, "axis_out_of_range", [] {
    TakeDraw d = draw_take();
    d.with_axis = false;  // indices drawn for the flat extent
    const int64_t n = ndim_of(d.data);
    const int64_t axis = *rc::gen::elementOf(
        std::vector<int64_t>{n, n + 1, -n - 1, -n - 2, kInt32Max, -kInt32Max - 1});
    return take_call(d, std::to_string(axis));
  });
  add_rule(g.invalid, "output_ndim_above_6", [] {
    TakeDraw d;
    const int n = *rc::gen::inRange(2, 7);
    const int m = *rc::gen::inRange(8 - n, 7);
    d.data = *gen::shape(n, n, 2, 64);
    d.indices = *gen::shape(m, m, 2, 64);
    d.with_axis = true;
    d.axis = *gen::axis(n);
    return take_call(d, std::to_string(d.axis));
  });
  add_rule(g.invalid, "output_too_many_elements", [] {
    // 2^15 * (2^15 + 1) > 2^30 output elements from two small inputs; zero-filled int8
    // to keep the draw cheap.
    const bool axis_last = *rc::gen::arbitrary<bool>();
    const Shape data = axis_last ? Shape{32768, 2} : Shape{2, 32768};
    const int64_t axis = axis_last ? *rc::gen::elementOf(std::vector<int64_t>{1, -1})
                                   : *rc::gen::elementOf(std::vector<int64_t>{0, -2});
    Call call;
    call.op = "take";
    call.attrs["axis"] = std::to_string(axis);
    call.inputs.push_back(Tensor::zeros(DType::kInt8, data, *gen::precision(1, 8)));
    call.inputs.push_back(Tensor::zeros(DType::kInt8, {32769}, *gen::precision(1, 8)));
    return call;
  });
  return g;
}

namespace {

// ---------------------------------------------------------------- cvm_lut

Call lut_call(const Shape& indices, const Shape& table, int64_t in_dim) {
  Call call;
  call.op = "cvm_lut";
  call.attrs["in_dim"] = std::to_string(in_dim);
  call.inputs.push_back(index_tensor(indices, shape_size(table), *gen::precision()));
  call.inputs.push_back(*gen::tensor_any_dtype(table, *gen::precision()));
  return call;
}

}  // namespace

OpGenerators transform_index_cvm_lut_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const Shape indices = *gen::shape(1, 6, 8, 1024);
    const Shape table = *gen::shape(1, 6, 8, 256);
    return lut_call(indices, table, shape_size(table));
  });
  add_rule(g.invalid, "in_dim_mismatch", [] {
    const Shape indices = *gen::shape(1, 6, 8, 256);
    const Shape table = *gen::shape(1, 6, 8, 256);
    const int64_t size = shape_size(table);
    const int64_t in_dim = *rc::gen::elementOf(
        std::vector<int64_t>{size + 1, size - 1, size * 2, 0, -size, kInt32Max, -kInt32Max - 1,
                             shape_size(indices) == size ? size + 3 : shape_size(indices)});
    return lut_call(indices, table, in_dim);
  });
  return g;
}

namespace {

// ---------------------------------------------------------------- where

Tensor condition_tensor(const Shape& shape) {
  const int p = *gen::precision();
  const auto one = rc::gen::weightedOneOf<int32_t>({{2, rc::gen::just(0)}, {3, gen::value(p)}});
  const auto values =
      *rc::gen::container<std::vector<int32_t>>(static_cast<size_t>(shape_size(shape)), one);
  const bool int8 = p <= 8 && *rc::gen::arbitrary<bool>();
  return Tensor::from_values(shape, values, p, int8 ? DType::kInt8 : DType::kInt32);
}

Call where_call(const Shape& cond, const Shape& x, const Shape& y) {
  Call call;
  call.op = "where";
  call.inputs.push_back(condition_tensor(cond));
  call.inputs.push_back(*gen::tensor_any_dtype(x, *gen::precision()));
  call.inputs.push_back(*gen::tensor_any_dtype(y, *gen::precision()));
  return call;
}

// The condition's shape for x: x's own shape, or (x0,) to select whole rows.
Shape valid_condition_shape(const Shape& x) {
  return *rc::gen::arbitrary<bool>() ? x : Shape{x.front()};
}

// `shape` changed in one place: one dim grown, or a leading 1 added when there is room.
Shape other_shape(const Shape& shape) {
  Shape changed = shape;
  if (shape.size() < 6 && *rc::gen::arbitrary<bool>()) {
    changed.insert(changed.begin(), 1);
  } else {
    changed[*rc::gen::inRange<size_t>(0, shape.size())] += *rc::gen::inRange<int64_t>(1, 3);
  }
  return changed;
}

}  // namespace

OpGenerators transform_index_where_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const Shape x = *gen::shape(1, 6, 8, 1024);
    return where_call(valid_condition_shape(x), x, x);
  });
  add_rule(g.invalid, "x_y_shape_mismatch", [] {
    const Shape x = *gen::shape(1, 6, 8, 512);
    const Shape y = other_shape(x);
    return where_call(valid_condition_shape(x), x, y);
  });
  add_rule(g.invalid, "cond_shape_mismatch", [] {
    const Shape x = *gen::shape(1, 6, 8, 512);
    // Never x's shape, and never (x0,): a 1-D condition of another length,
    // or a changed multi-dim shape.
    const Shape cond = *rc::gen::arbitrary<bool>()
                           ? Shape{x.front() + *rc::gen::inRange<int64_t>(1, 4)}
                           : other_shape(x);
    const Shape checked =
        cond.size() == 1 && cond.front() == x.front() ? Shape{x.front() + 1} : cond;
    return where_call(checked, x, x);
  });
  return g;
}


}  // namespace cvm
