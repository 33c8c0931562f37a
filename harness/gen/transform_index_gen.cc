// Generators of the transform_index family (docs/ops/transform_index.md): strided_slice,
// slice_like and pad here; take, cvm_lut and where in harness/gen/transform_index_lookup_gen.cc.
// Valid calls are built so that they always satisfy every rule (no RC_PRE); each invalid
// generator starts from such a draw and breaks exactly one rule.
#include <algorithm>
#include <limits>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

using gen::add_rule;
using gen::kInt64Max;
using gen::kInt64Min;
using gen::kInt32Max;

using gen::ndim_of;

// ---------------------------------------------------------------- strided_slice

struct SliceDraw {
  Shape shape;
  std::vector<int64_t> begin, end, stride;  // raw entries, possibly shorter than the ndim
};

// A raw entry that normalises (+n when negative) and clamps to [lo, hi] as `target`: itself,
// its negative alias, or (at the ends of the range) values far outside, up to INT64_MIN/MAX.
int64_t spell_index(int64_t target, int64_t n, int64_t lo, int64_t hi) {
  std::vector<int64_t> options;
  if (target >= 0) options.push_back(target);
  if (target < n) options.push_back(target - n);
  if (target == lo) {
    options.push_back(lo - n - *rc::gen::inRange<int64_t>(1, 10));
    options.push_back(kInt64Min);
  }
  if (target == hi) {
    options.push_back(hi + *rc::gen::inRange<int64_t>(1, 10));
    options.push_back(kInt64Max);
  }
  return *rc::gen::elementOf(options);
}

int64_t draw_stride_magnitude(int64_t n) {
  return *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::just<int64_t>(1)},
                                           {4, rc::gen::inRange<int64_t>(2, 4)},
                                           {1, rc::gen::just(n)},
                                           {1, rc::gen::inRange<int64_t>(n + 1, n + 10)},
                                           {1, rc::gen::just(kInt64Max)}});
}

SliceDraw draw_slice() {
  SliceDraw d;
  d.shape = *gen::shape(1, 6);
  const int n = ndim_of(d.shape);
  const auto listed = [n] { return *rc::gen::inRange(0, n + 1); };
  const int begin_len = listed(), end_len = listed(), stride_len = listed();
  for (int i = 0; i < n; ++i) {
    const int64_t extent = d.shape[static_cast<size_t>(i)];
    // A default end (n) clamps to n - 1 under a negative stride, which no begin can precede:
    // negative strides only where end is listed.
    const bool negative = i < stride_len && i < end_len && *rc::gen::arbitrary<bool>();
    const int64_t lo = negative ? -1 : 0;
    const int64_t hi = negative ? extent - 1 : extent;
    const int64_t b = i < begin_len ? *rc::gen::inRange<int64_t>(0, extent) : 0;
    int64_t e = extent;
    if (negative) {
      e = *rc::gen::inRange<int64_t>(-1, b);
    } else if (i < end_len) {
      e = *rc::gen::inRange<int64_t>(b + 1, extent + 1);
    }
    if (i < begin_len) d.begin.push_back(spell_index(b, extent, lo, hi));
    if (i < end_len) d.end.push_back(spell_index(e, extent, lo, hi));
    if (i < stride_len) {
      const int64_t magnitude = draw_stride_magnitude(extent);
      int64_t s = negative ? -magnitude : magnitude;
      if (negative && magnitude == kInt64Max && *rc::gen::arbitrary<bool>()) s = kInt64Min;
      d.stride.push_back(s);
    }
  }
  return d;
}

// Lists padded to the ndim with explicit defaults (same meaning as leaving them out).
void spell_out_defaults(SliceDraw& d) {
  for (size_t i = d.begin.size(); i < d.shape.size(); ++i) d.begin.push_back(0);
  for (size_t i = d.end.size(); i < d.shape.size(); ++i) d.end.push_back(d.shape[i]);
  for (size_t i = d.stride.size(); i < d.shape.size(); ++i) d.stride.push_back(1);
}

Call slice_call(const SliceDraw& d, int p) {
  Call call;
  call.op =
      *rc::gen::elementOf(std::vector<std::string>{"strided_slice", "strided_slice", "slice"});
  const auto put = [&call](const char* name, const std::vector<int64_t>& entries) {
    if (!entries.empty() || *rc::gen::arbitrary<bool>()) {
      call.attrs[name] = *gen::tuple_text(entries);
    }
  };
  put("begin", d.begin);
  put("end", d.end);
  put("stride", d.stride);
  call.inputs.push_back(*gen::tensor_any_dtype(d.shape, p));
  return call;
}

OpGenerators strided_slice_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto d = draw_slice();  // one draw per statement (evaluation order)
    return slice_call(d, *gen::precision());
  });
  add_rule(g.invalid, "stride_zero", [] {
    SliceDraw d = draw_slice();
    const auto i = *rc::gen::inRange<size_t>(0, d.shape.size());
    while (d.stride.size() <= i) d.stride.push_back(1);
    d.stride[i] = 0;
    return slice_call(d, *gen::precision());
  });
  for (const char* list : {"begin", "end", "stride"}) {
    const std::string rule = std::string(list) + "_longer_than_ndim";
    add_rule(g.invalid, rule, [list] {
      SliceDraw d = draw_slice();
      spell_out_defaults(d);
      std::vector<int64_t>& entries = list == std::string("begin") ? d.begin
                                      : list == std::string("end") ? d.end
                                                                   : d.stride;
      const int extra = *rc::gen::inRange(1, 4);
      for (int k = 0; k < extra; ++k) entries.push_back(1);
      return slice_call(d, *gen::precision());
    });
  }
  add_rule(g.invalid, "empty_slice", [] {
    SliceDraw d = draw_slice();
    spell_out_defaults(d);
    const auto i = *rc::gen::inRange<size_t>(0, d.shape.size());
    const int64_t n = d.shape[i];
    const bool negative = *rc::gen::arbitrary<bool>();
    int64_t s = draw_stride_magnitude(n);
    if (negative) s = *rc::gen::arbitrary<bool>() ? -s : kInt64Min;
    // Clamped values with begin >= end (positive) or begin <= end (negative).
    const int64_t lo = negative ? -1 : 0, hi = negative ? n - 1 : n;
    const int64_t u = *rc::gen::inRange<int64_t>(lo, hi + 1);
    const int64_t v = *rc::gen::inRange<int64_t>(u, hi + 1);
    d.begin[i] = spell_index(negative ? u : v, n, lo, hi);
    d.end[i] = spell_index(negative ? v : u, n, lo, hi);
    d.stride[i] = s;
    return slice_call(d, *gen::precision());
  });
  return g;
}

// ---------------------------------------------------------------- slice_like

struct SliceLikeDraw {
  Shape data, like;
  std::vector<int64_t> axes;  // raw; empty means every axis
};

// Halves the largest dim of `shape` until it has at most `budget` elements (dims stay >= 1, so
// every m_j <= n_j still holds).
void shrink(Shape& shape, int64_t budget) {
  while (shape_size(shape) > budget) {
    auto largest = std::max_element(shape.begin(), shape.end());
    *largest = std::max<int64_t>(1, *largest / 2);
  }
}

SliceLikeDraw draw_slice_like() {
  SliceLikeDraw d;
  d.data = *gen::shape(1, 6, 8, 1024);
  const int n = ndim_of(d.data);
  if (*rc::gen::arbitrary<bool>()) {
    for (int64_t extent : d.data) d.like.push_back(*rc::gen::inRange<int64_t>(1, extent + 1));
    return d;
  }
  const int m = *rc::gen::inRange(1, 7);
  const int limit = std::min(m, n);
  const int count = *rc::gen::inRange(1, 4);
  std::vector<bool> listed(static_cast<size_t>(m), false);
  for (int k = 0; k < count; ++k) {
    const auto a = *rc::gen::inRange<int64_t>(0, limit);  // repeats allowed
    listed[static_cast<size_t>(a)] = true;
    d.axes.push_back(*gen::spell_axis(a, n));
  }
  for (int j = 0; j < m; ++j) {
    const int64_t top = listed[static_cast<size_t>(j)] ? d.data[static_cast<size_t>(j)] : 8;
    d.like.push_back(*rc::gen::inRange<int64_t>(1, top + 1));
  }
  shrink(d.like, 512);
  return d;
}

Call slice_like_call(const SliceLikeDraw& d) {
  Call call;
  call.op = "slice_like";
  if (!d.axes.empty() || *rc::gen::arbitrary<bool>()) call.attrs["axis"] = *gen::tuple_text(d.axes);
  call.inputs.push_back(*gen::tensor_any_dtype(d.data, *gen::precision()));
  call.inputs.push_back(*gen::tensor_any_dtype(d.like, *gen::precision()));
  return call;
}

OpGenerators slice_like_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return slice_like_call(draw_slice_like()); });
  add_rule(g.invalid, "ndim_mismatch_without_axis", [] {
    SliceLikeDraw d;
    d.data = *gen::shape(1, 6, 8, 512);
    const int n = ndim_of(d.data);
    int m = *rc::gen::inRange(1, 6);
    if (m >= n) ++m;  // m in [1, 6], m != n
    for (int j = 0; j < m; ++j) {
      const int64_t top = j < n ? d.data[static_cast<size_t>(j)] : 4;
      d.like.push_back(*rc::gen::inRange<int64_t>(1, top + 1));
    }
    shrink(d.like, 512);
    return slice_like_call(d);
  });
  add_rule(g.invalid, "like_dim_larger", [] {
    SliceLikeDraw d = draw_slice_like();
    if (d.axes.empty()) {
      const auto j = *rc::gen::inRange<size_t>(0, d.data.size());
      d.like[j] = d.data[j] + *rc::gen::inRange<int64_t>(1, 4);
    } else {
      const int n = ndim_of(d.data);
      const int64_t raw = *rc::gen::elementOf(d.axes);
      const auto j = static_cast<size_t>(raw < 0 ? raw + n : raw);
      d.like[j] = d.data[j] + *rc::gen::inRange<int64_t>(1, 4);
    }
    return slice_like_call(d);
  });
  add_rule(g.invalid, "axis_out_of_range", [] {
    SliceLikeDraw d = draw_slice_like();
    const int64_t n = ndim_of(d.data);
    const int64_t limit = std::min<int64_t>(n, ndim_of(d.like));
    std::vector<int64_t> bad = {n,         n + *rc::gen::inRange<int64_t>(1, 5),
                                -n - 1,    -n - *rc::gen::inRange<int64_t>(2, 6),
                                kInt64Max, kInt64Min};
    // Axes that exist in X but not in a shorter shape_like, either spelling.
    if (limit < n) {
      const int64_t a = *rc::gen::inRange<int64_t>(limit, n);
      bad.push_back(a);
      bad.push_back(a - n);
    }
    const auto at = *rc::gen::inRange<size_t>(0, d.axes.size() + 1);
    d.axes.insert(d.axes.begin() + static_cast<std::ptrdiff_t>(at), *rc::gen::elementOf(bad));
    return slice_like_call(d);
  });
  return g;
}

// ---------------------------------------------------------------- pad

struct PadDraw {
  Shape shape;
  std::vector<int64_t> width;  // 2N entries
  int64_t value = 0;
  bool value_given = false;
};

int64_t draw_constant() {
  return *rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::just<int64_t>(0)},
       {3, rc::gen::inRange<int64_t>(-9, 10)},
       {2, rc::gen::elementOf(std::vector<int64_t>{1, -1, kInt32Max, -kInt32Max, 1 << 30,
                                                   -(1 << 30), (1 << 30) - 1, 127, -128})},
       {2, rc::gen::inRange<int64_t>(-kInt32Max, kInt32Max + 1)}});
}

PadDraw draw_pad() {
  PadDraw d;
  // One draw in eight pads a single element up to the range's end: at most 4096 outputs.
  const bool wide = *rc::gen::weightedElement<bool>({{1, true}, {7, false}});
  d.shape = wide ? *gen::shape(1, 6, 1, 1) : *gen::shape(1, 6, 6, 256);
  const size_t n = d.shape.size();
  for (size_t k = 0; k < 2 * n; ++k) {
    d.width.push_back(*rc::gen::weightedOneOf<int64_t>(
        {{3, rc::gen::just<int64_t>(0)}, {4, rc::gen::inRange<int64_t>(1, 3)}}));
  }
  if (wide) {
    // One side of one axis, up to 4095; every other width 0.
    const auto k = *rc::gen::inRange<size_t>(0, 2 * n);
    for (int64_t& w : d.width) w = 0;
    d.width[k] = *rc::gen::weightedOneOf<int64_t>(
        {{1, rc::gen::just<int64_t>(kMaxAttr - 1)}, {1, rc::gen::inRange<int64_t>(100, kMaxAttr)}});
  } else {
    // Keep the output within the element budget: narrow the widest side until it fits.
    const auto out_size = [&d] {
      int64_t size = 1;
      for (size_t i = 0; i < d.shape.size(); ++i) {
        size *= d.shape[i] + d.width[2 * i] + d.width[2 * i + 1];
      }
      return size;
    };
    while (out_size() > gen::kMaxElements) --*std::max_element(d.width.begin(), d.width.end());
  }
  d.value = draw_constant();
  d.value_given = d.value != 0 || *rc::gen::arbitrary<bool>();
  return d;
}

Call pad_call(const PadDraw& d, int p) {
  Call call;
  call.op = "pad";
  call.attrs["pad_width"] = *gen::tuple_text(d.width);
  if (d.value_given) call.attrs["constant_value"] = std::to_string(d.value);
  if (*rc::gen::arbitrary<bool>()) call.attrs["mode"] = "constant";
  call.inputs.push_back(*gen::tensor_any_dtype(d.shape, p));
  return call;
}

OpGenerators pad_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto d = draw_pad();  // one draw per statement (evaluation order)
    return pad_call(d, *gen::precision());
  });
  add_rule(g.invalid, "pad_width_wrong_length", [] {
    PadDraw d = draw_pad();
    const size_t n = d.shape.size();
    const auto length =
        *rc::gen::elementOf(std::vector<size_t>{0, n, 2 * n - 1, 2 * n + 1, 2 * n + 2});
    d.width.resize(length, 1);  // never 2N, as N >= 1
    return pad_call(d, *gen::precision());
  });
  add_rule(g.invalid, "pad_width_out_of_range", [] {
    PadDraw d = draw_pad();
    const auto k = *rc::gen::inRange<size_t>(0, d.width.size());
    d.width[k] = *rc::gen::elementOf(
        std::vector<int64_t>{-1, -2, kInt64Min, kMaxAttr, kMaxAttr + 1, 1 << 24, kInt64Max});
    return pad_call(d, *gen::precision());
  });
  add_rule(g.invalid, "constant_value_out_of_range", [] {
    PadDraw d = draw_pad();
    d.value = -kInt32Max - 1;  // the only int32 outside +-(2^31 - 1)
    d.value_given = true;
    return pad_call(d, *gen::precision());
  });
  add_rule(g.invalid, "mode_not_constant", [] {
    const auto d = draw_pad();  // one draw per statement
    Call call = pad_call(d, *gen::precision());
    call.attrs["mode"] = *rc::gen::elementOf(
        std::vector<std::string>{"edge", "reflect", "symmetric", "CONSTANT", "wrap"});
    return call;
  });
  add_rule(g.invalid, "output_too_many_elements", [] {
    // At least three axes padded by >= 1100 on each side: > 2^30 elements.
    PadDraw d;
    d.shape = *gen::shape(3, 6, 2, 8);
    for (size_t k = 0; k < 2 * d.shape.size(); ++k) {
      d.width.push_back(*rc::gen::inRange<int64_t>(1100, kMaxAttr));
    }
    d.value = draw_constant();
    d.value_given = true;
    return pad_call(d, *gen::precision());
  });
  return g;
}

}  // namespace

// The lookups' records: harness/gen/transform_index_lookup_gen.cc.
OpGenerators transform_index_take_generators();
OpGenerators transform_index_cvm_lut_generators();
OpGenerators transform_index_where_generators();

void add_transform_index_generators(GeneratorTable& table) {
  table["strided_slice"] = strided_slice_generators();
  table["take"] = transform_index_take_generators();
  table["cvm_lut"] = transform_index_cvm_lut_generators();
  table["slice_like"] = slice_like_generators();
  table["where"] = transform_index_where_generators();
  table["pad"] = pad_generators();
}

}  // namespace cvm
