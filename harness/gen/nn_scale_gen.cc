// conv2d's and dense's value check drawn on shapes that take every fast path of a kernel. A
// kernel may check values where it reads them: dense packs X and W in vector-wide steps with
// the check fused in, per row panel, column panel and k-block, on several threads above a work
// threshold; conv2d packs its weights so and ranges its data in chunks of 2^16 values over threads. The
// ordinary draws (a few thousand elements, the bad value at -(alpha + 1)) reach none of the
// panels past the first, no second k-block, no second chunk, and never the high side of the
// range. These draws do, with the bad value on either side and at any position: anywhere, the
// first or last element, the last row (the last panel) or the tail of a row (the part past the
// last full vector). Work stays below ~2.5M multiply-adds and 70k elements per tensor.
// docs/ops/nn.md, "The value check at scale", says how often each draw meets each path.
#include <algorithm>

#include "harness/gen/nn_gen_common.h"

namespace cvm {
namespace {

using namespace nn_gen;  // the family's helpers (harness/gen/nn_gen_common.h)

// Uniform in [lo, hi] at full size whatever the case's size: RapidCheck scales inRange with
// it, which would keep early cases below every threshold these draws are for.
int64_t full(int64_t lo, int64_t hi) {
  return *rc::gen::resize(100, rc::gen::inRange<int64_t>(lo, hi + 1));
}

// The flat index of the bad value in a tensor seen as rows of `inner` elements.
int64_t bad_position(int64_t size, int64_t inner) {
  const int64_t rows = size / inner;
  switch (full(0, 5)) {
    case 0: return size - 1;
    case 1: return 0;
    case 2: return (rows - 1) * inner + full(0, inner - 1);  // the last row: the last panel
    case 3: {  // the tail of a row: past the last full vector of 64 bytes or 16 lanes
      const int64_t vectors_end = inner - inner % one_of({16, 64});
      const int64_t column = vectors_end < inner ? full(vectors_end, inner - 1) : inner - 1;
      return full(0, rows - 1) * inner + column;
    }
    default: return full(0, size - 1);
  }
}

// Sets element `index` of `t` outside its precision: below -alpha(p) or above alpha(p), just
// past the bound or at the storage's end. int8 storage at precision 8 has no room above 127, so
// the high side widens it to int32 (same values); int32 at precision 32 has none at all, so the
// value goes below instead.
void plant_outside(Tensor& t, int64_t index) {
  const int p = t.precision();
  bool high = coin();
  DType dtype = t.dtype();
  if (high && dtype == DType::kInt8 && p == 8) dtype = DType::kInt32;
  if (high && dtype == DType::kInt32 && p == 32) high = false;
  const int64_t a = alpha(p);
  const int64_t storage_max = dtype == DType::kInt8 ? 127 : kInt32Max;
  const int64_t storage_min = dtype == DType::kInt8 ? -128 : kInt32Min;
  const int64_t value = high ? one_of({a + 1, storage_max}) : one_of({-a - 1, storage_min});
  std::vector<int32_t> values = t.values();
  values[static_cast<size_t>(index)] = static_cast<int32_t>(value);
  t = Tensor::from_values(t.shape(), values, p, dtype);
}

// The call with a bad value in input `k`, its rows `inner` elements long.
Call with_bad_value(Call call, size_t k, int64_t inner) {
  Tensor& t = call.inputs[k];
  plant_outside(t, bad_position(t.size(), inner));
  return call;
}

// dense: several row and column panels on several threads, or a depth across a k-block
// boundary (2048 k-values on AVX2, 4096 with VNNI) and a few rows and units.
DenseDraw dense_at_scale_draw() {
  DenseDraw d = draw_dense();
  if (coin()) {
    d.rows = full(1, 14);
    d.units = full(1, 140);
    d.depth = full(1, 200);
  } else {
    d.depth = coin() ? full(2040, 2060) : full(4090, 4110);
    d.rows = full(1, 3);
    d.units = full(1, 5);
  }
  return d;
}

// conv2d: data past one range chunk of 2^16 values (several chunks and threads) under a small
// kernel, or enough channels for several weight panels with a vector body in each row.
ConvDraw conv_at_scale_draw() {
  ConvDraw d = draw_conv();
  d.groups = 1;
  ConvAxis axis;
  axis.kernel = full(1, 3);
  axis.pad = full(0, 1);
  if (coin()) {
    d.batch = 1;
    d.channels = full(1, 2);
    // Three planes of 150 x 150 or more: over 2^16 values, two range chunks.
    d.in_channels = coin() ? 3 : full(1, 2);
    axis.in = d.in_channels == 3 ? full(150, 185) : full(8, 64);
    axis.stride = full(1, 3);
  } else {
    d.batch = full(1, 2);
    d.groups = full(1, 2);
    d.in_channels = d.groups * full(2, 8);
    d.channels = d.groups * full(4, 12);
    axis.in = full(4, 16);
    axis.kernel = 3;
  }
  d.h = axis;
  d.w = axis;
  d.w.in = std::max<int64_t>(axis.dilated(), axis.in + full(-2, 2));
  return d;
}

}  // namespace

std::vector<InvalidGenerator> nn_gen::dense_at_scale() {
  std::vector<InvalidGenerator> rules;
  add_rule(rules, "data_value_outside_precision_at_scale", [] {
    const DenseDraw d = dense_at_scale_draw();
    return with_bad_value(dense_call(d), 0, d.depth);
  });
  add_rule(rules, "weight_value_outside_precision_at_scale", [] {
    const DenseDraw d = dense_at_scale_draw();
    return with_bad_value(dense_call(d), 1, d.depth);
  });
  return rules;
}

std::vector<InvalidGenerator> nn_gen::conv2d_at_scale() {
  std::vector<InvalidGenerator> rules;
  add_rule(rules, "data_value_outside_precision_at_scale", [] {
    const ConvDraw d = conv_at_scale_draw();
    return with_bad_value(conv_call(d), 0, d.h.in * d.w.in);
  });
  add_rule(rules, "weight_value_outside_precision_at_scale", [] {
    const ConvDraw d = conv_at_scale_draw();
    return with_bad_value(conv_call(d), 1, d.terms());
  });
  return rules;
}

}  // namespace cvm
