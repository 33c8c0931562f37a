// Generators of the vision family: get_valid_counts, non_max_suppression (docs/ops/vision.md).
// NMS calls use few boxes with coordinates in a small range (overlaps are common), ids from a
// small set that includes -1 and many score ties; sometimes coordinates at the precision edges
// (up to 30) instead. Each invalid generator breaks exactly one operator-specific rule.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "harness/gen/generators.h"
#include "harness/gen/path_aim.h"

namespace cvm {
namespace {

using gen::add_rule;

int64_t clamp_to_precision(int64_t v, int p) { return std::clamp(v, -alpha(p), alpha(p)); }

// Uniform in [lo, hi), whatever the RapidCheck size (inRange shrinks its range with the size,
// which at small sizes would leave one box, one row and T = 0 almost always).
rc::Gen<int64_t> uniform(int64_t lo, int64_t hi) {
  std::vector<int64_t> values;
  for (int64_t v = lo; v < hi; ++v) values.push_back(v);
  return rc::gen::elementOf(values);
}

// A top_k / max_output_size: often unlimited (-1, so that suppression has rows to act on),
// else at the ends of the int32 range or near `around`.
rc::Gen<int64_t> count_attr(int64_t around) {
  return rc::gen::weightedOneOf<int64_t>(
      {{4, rc::gen::just<int64_t>(-1)},
       {2, rc::gen::elementOf(std::vector<int64_t>{-2, 0, 1, 2, around, INT32_MAX, INT32_MIN})},
       {3, uniform(-2, around + 3)}});
}

Tensor int32_copy(const Tensor& t) {
  return Tensor::from_values(t.shape(), t.values(), t.precision(), DType::kInt32);
}

// ---- get_valid_counts ----

Call gvc_call(const Shape& shape, int p) {
  Call call;
  call.op = *rc::gen::elementOf(std::vector<std::string>{"get_valid_counts", "get_valid_count"});
  call.inputs.push_back(*gen::tensor_any_dtype(shape, p));
  const Tensor& x = call.inputs[0];
  if (shape.size() == 3 && shape[2] >= 2) {
    // A threshold equal to some row's score (or one below it) makes ties with it common.
    const auto row = *rc::gen::inRange<int64_t>(0, shape[0] * shape[1]);
    const int64_t score = x.get(row * shape[2] + 1);
    const int64_t threshold = *rc::gen::weightedOneOf<int64_t>(
        {{3, rc::gen::elementOf(std::vector<int64_t>{score, score - 1, 0})},
         {2, rc::gen::map(gen::value(p), [](int32_t v) { return int64_t{v}; })},
         {1, rc::gen::elementOf(std::vector<int64_t>{INT32_MIN, INT32_MAX, -1, 1})}});
    if (threshold != 0 || *rc::gen::arbitrary<bool>()) {
      call.attrs["score_threshold"] = std::to_string(threshold);
    }
  }
  return call;
}

Shape gvc_shape(int64_t row_length) {
  const auto batches = *rc::gen::inRange<int64_t>(1, 5);
  const auto rows =
      *rc::gen::weightedOneOf<int64_t>({{1, rc::gen::inRange<int64_t>(1, 9)}, {1, uniform(1, 9)}});
  return {batches, rows, row_length};
}

OpGenerators gvc_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const auto k = *rc::gen::weightedOneOf<int64_t>({{1, rc::gen::just<int64_t>(2)},
                                                     {1, rc::gen::just<int64_t>(32)},
                                                     {4, uniform(2, 33)}});
    const Shape shape = gvc_shape(k);  // one draw per statement (evaluation order)
    return gvc_call(shape, *gen::precision(1, 32));
  });
  add_rule(g.invalid, "k_outside_2_32", [] {
    const auto k = *rc::gen::weightedOneOf<int64_t>(
        {{1, rc::gen::just<int64_t>(1)}, {2, rc::gen::inRange<int64_t>(33, 41)}});
    const Shape shape = gvc_shape(k);  // one draw per statement
    return gvc_call(shape, *gen::precision(1, 32));
  });
  add_rule(g.invalid, "x_not_3d", [] {
    const int ndim = *rc::gen::elementOf(std::vector<int>{1, 2, 4, 5, 6});
    const Shape shape = *gen::shape(ndim, ndim, 6, 512);
    return gvc_call(shape, *gen::precision(1, 32));
  });
  return g;
}

// ---- non_max_suppression ----

struct NmsDraw {
  int64_t batches = 1, rows = 1;
  int p = 8;
  std::vector<int32_t> x_values;  // (B, N, 6)
  bool x_int8 = false;
  std::vector<int32_t> valid_count;
  int count_precision = 32;
  bool count_int8 = false;
};

// A box [x1, y1, x2, y2]: small on a small grid (mostly of positive size, sometimes empty or
// inverted), or with corners anywhere in precision p, biased to its edges.
std::vector<int64_t> draw_box(int p, bool at_edges) {
  std::vector<int64_t> box(4);
  for (size_t axis = 0; axis < 2; ++axis) {
    if (at_edges) {
      box[axis] = *gen::value(p);
      box[axis + 2] = *gen::value(p);
      // Half of them span 0, so that large boxes overlap (at p >= 29 the intersection can pass
      // (2^63-1)/100, the other branch of the percentage).
      if (*rc::gen::arbitrary<bool>()) {
        box[axis] = -std::abs(box[axis]);
        box[axis + 2] = std::abs(box[axis + 2]);
      }
    } else {
      box[axis] = *uniform(-2, 3);
      box[axis + 2] =
          box[axis] + *rc::gen::weightedOneOf<int64_t>({{9, uniform(1, 5)}, {1, uniform(-2, 1)}});
    }
  }
  return box;
}

// One row [id, score, x1, y1, x2, y2] of precision p. Most boxes are one of the call's few
// anchor boxes moved by at most 1 per coordinate, so that overlaps across the whole iou range
// (0 to 100) are common; ids come from a small set with -1, scores from a small set (ties).
std::vector<int64_t> draw_row(int p, bool at_edges,
                              const std::vector<std::vector<int64_t>>& anchors) {
  const auto id = *rc::gen::weightedOneOf<int64_t>(
      {{8, rc::gen::elementOf(std::vector<int64_t>{-1, 0, 0, 0, 0, 1, 1, 2})},
       {1, rc::gen::map(gen::value(p), [](int32_t v) { return int64_t{v}; })}});
  const auto score = *rc::gen::weightedOneOf<int64_t>(
      {{4, rc::gen::elementOf(std::vector<int64_t>{0, 1, 2, 3, 3, 5})},
       {1, rc::gen::map(gen::value(p), [](int32_t v) { return int64_t{v}; })}});
  std::vector<int64_t> box;
  if (*rc::gen::weightedOneOf<bool>({{4, rc::gen::just(true)}, {1, rc::gen::just(false)}})) {
    box = *rc::gen::elementOf(anchors);
    for (int64_t& v : box) v += *rc::gen::weightedOneOf<int64_t>({{2, rc::gen::just<int64_t>(0)},
                                                                  {1, uniform(-1, 2)}});
  } else {
    box = draw_box(p, at_edges);
  }
  std::vector<int64_t> row = {id, score, box[0], box[1], box[2], box[3]};
  for (int64_t& v : row) v = clamp_to_precision(v, p);
  return row;
}

NmsDraw draw_nms() {
  NmsDraw d;
  d.batches = *rc::gen::weightedOneOf<int64_t>({{1, rc::gen::inRange<int64_t>(1, 4)},
                                                  {1, uniform(1, 4)}});
  d.rows = *rc::gen::weightedOneOf<int64_t>({{1, rc::gen::inRange<int64_t>(1, 11)},
                                               {2, uniform(1, 11)}});
  const bool at_edges = *rc::gen::weightedOneOf<bool>(
      {{4, rc::gen::just(false)}, {1, rc::gen::just(true)}});
  // Small boxes need precision 5 to keep their shape; the edges of 1..30 come from both modes.
  d.p = at_edges ? *gen::precision(1, 30)
                 : *rc::gen::weightedOneOf<int>(
                       {{3, rc::gen::map(uniform(5, 31), [](int64_t p) { return int(p); })},
                        {1, gen::precision(1, 30)}});
  d.x_int8 = d.p <= 8 && *rc::gen::arbitrary<bool>();
  std::vector<std::vector<int64_t>> anchors;
  for (int i = *rc::gen::elementOf(std::vector<int>{1, 1, 2, 3}); i > 0; --i) {
    anchors.push_back(draw_box(d.p, at_edges));
  }
  for (int64_t r = 0; r < d.batches * d.rows; ++r) {
    for (int64_t v : draw_row(d.p, at_edges, anchors)) {
      d.x_values.push_back(static_cast<int32_t>(v));
    }
  }
  int64_t largest = 0;
  for (int64_t b = 0; b < d.batches; ++b) {
    const auto count = *rc::gen::weightedOneOf<int64_t>(
        {{5, rc::gen::just(d.rows)},
         {3, uniform(-2, d.rows + 3)},
         {1, rc::gen::elementOf(std::vector<int64_t>{INT32_MAX, -INT32_MAX, 0})}});
    d.valid_count.push_back(static_cast<int32_t>(count));
    largest = std::max(largest, count < 0 ? -count : count);
  }
  // The smallest precision that holds every count, or more.
  d.count_precision = *rc::gen::inRange(bitlen(static_cast<uint64_t>(largest)) + 1, 33);
  d.count_int8 = d.count_precision <= 8 && *rc::gen::arbitrary<bool>();
  return d;
}

Call nms_call(const NmsDraw& d) {
  Call call;
  call.op = "non_max_suppression";
  call.inputs.push_back(Tensor::from_values({d.batches, d.rows, 6}, d.x_values, d.p,
                                            d.x_int8 ? DType::kInt8 : DType::kInt32));
  call.inputs.push_back(Tensor::from_values({d.batches}, d.valid_count, d.count_precision,
                                            d.count_int8 ? DType::kInt8 : DType::kInt32));
  const auto iou = *rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::elementOf(std::vector<int64_t>{1, 33, 34, 50, 51, 60, 100, 101, INT32_MAX})},
       {3, uniform(1, 61)},
       {1, uniform(1, 120)}});
  if (iou != 50 || *rc::gen::arbitrary<bool>()) call.attrs["iou_threshold"] = std::to_string(iou);
  const int64_t mos = *count_attr(d.rows);
  if (mos != -1 || *rc::gen::arbitrary<bool>()) call.attrs["max_output_size"] = std::to_string(mos);
  const int64_t top_k = *count_attr(d.rows);
  if (top_k != -1 || *rc::gen::arbitrary<bool>()) call.attrs["top_k"] = std::to_string(top_k);
  const bool force = *rc::gen::arbitrary<bool>();
  if (force || *rc::gen::arbitrary<bool>()) call.attrs["force_suppress"] = *gen::bool_text(force);
  // The fixed attributes, sometimes spelled out with their only accepted value.
  if (*rc::gen::arbitrary<bool>()) call.attrs["coord_start"] = "2";
  if (*rc::gen::arbitrary<bool>()) call.attrs["score_index"] = "1";
  if (*rc::gen::arbitrary<bool>()) call.attrs["id_index"] = "0";
  if (*rc::gen::arbitrary<bool>()) call.attrs["return_indices"] = *gen::bool_text(false);
  if (*rc::gen::arbitrary<bool>()) call.attrs["invalid_to_bottom"] = *gen::bool_text(true);
  return call;
}

// A valid call changed by `mutate(call, draw)`.
template <typename Mutate>
std::function<Call()> nms_mutated(Mutate mutate) {
  return [=] {
    const NmsDraw d = draw_nms();
    Call call = nms_call(d);
    mutate(call, d);
    return call;
  };
}

// X with the same values in another shape (dim 0 stays B, so valid_count still matches).
void reshape_x(Call& call, const Shape& shape) {
  const Tensor& x = call.inputs[0];
  call.inputs[0] = Tensor::from_values(shape, x.values(), x.precision(), x.dtype());
}

rc::Gen<std::string> int_text_except(int64_t accepted) {
  return rc::gen::map(
      rc::gen::elementOf(std::vector<int64_t>{accepted - 1, accepted + 1, accepted + 2, -1, 0, 1,
                                              2, 6, INT32_MAX, INT32_MIN}),
      [accepted](int64_t v) { return std::to_string(v == accepted ? v + 3 : v); });
}

// x^-1 modulo m (gcd(x, m) = 1, m > 1), in [1, m).
int64_t inverse_mod(int64_t x, int64_t m) {
  int64_t r0 = m, r1 = x % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    r0 = std::exchange(r1, r0 - q * r1);
    t0 = std::exchange(t1, t0 - q * t1);
  }
  return t0 < 0 ? t0 + m : t0;
}

// Two boxes whose overlap percentage is just below 50 (union = 2 * intersection + 1), with an
// intersection near (2^63 - 1) / 100, where the contract's percentage changes formula: below,
// 100 * I / U gives 49; above, I / (U / 100) gives 50 (docs/ops/vision.md). iou_threshold is
// 49, 50 or 51, so which formula a backend applies to which intersection decides whether the
// second box is suppressed. The boxes: A = w x (v + e), B = (w + f) x v from one corner, with
// w * e + v * f = w * v + 1 (e = w^-1 mod v). Coordinates within +-(2^29 - 1), precision 30.
// Drawn only while a campaign aims.
Call nms_large_overlap_call() {
  constexpr int64_t kLarge = std::numeric_limits<int64_t>::max() / 100;
  constexpr int64_t kEdge = (int64_t{1} << 29) - 1;
  const int64_t inter = kLarge + *rc::gen::inRange<int64_t>(-kLarge / 50, kLarge / 50);
  const int64_t w = *rc::gen::inRange<int64_t>(290'000'000, 310'000'000);
  int64_t v = inter / w;
  while (std::gcd(w, v) != 1) ++v;
  const int64_t e = inverse_mod(w, v);
  const int64_t f = (w * v + 1 - w * e) / v;  // exact: w * e = 1 (mod v)
  NmsDraw d;
  d.p = 30;
  d.rows = 2;
  d.valid_count = {2};
  const std::vector<int64_t> rows = {0, 2, -kEdge, -kEdge, -kEdge + w,     -kEdge + v + e,
                                     0, 1, -kEdge, -kEdge, -kEdge + w + f, -kEdge + v};
  for (int64_t value : rows) d.x_values.push_back(static_cast<int32_t>(value));
  Call call = nms_call(d);
  call.attrs["iou_threshold"] = std::to_string(*rc::gen::inRange<int64_t>(49, 52));
  call.attrs["force_suppress"] = "true";
  return call;
}

OpGenerators nms_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    if (gen::aiming() && *rc::gen::inRange(0, 12) == 0) return nms_large_overlap_call();
    return nms_call(draw_nms());
  });
  add_rule(g.invalid, "x_not_3d", nms_mutated([](Call& call, const NmsDraw& d) {
    const std::vector<Shape> shapes = {{d.batches, d.rows * 6},
                                       {d.batches, d.rows, 1, 6},
                                       {d.batches, d.rows, 6, 1},
                                       {d.batches, 1, d.rows, 6, 1, 1}};
    reshape_x(call, *rc::gen::elementOf(shapes));
  }));
  add_rule(g.invalid, "x_last_dim_not_6", nms_mutated([](Call& call, const NmsDraw& d) {
    const auto k = *rc::gen::elementOf(std::vector<int64_t>{1, 2, 3, 4, 5, 7, 8, 12});
    const Tensor& x = call.inputs[0];
    std::vector<int32_t> values(static_cast<size_t>(d.batches * d.rows * k));
    for (size_t i = 0; i < values.size(); ++i) values[i] = x.get(static_cast<int64_t>(i % 6));
    call.inputs[0] = Tensor::from_values({d.batches, d.rows, k}, values, x.precision(), x.dtype());
  }));
  add_rule(g.invalid, "valid_count_not_1d", nms_mutated([](Call& call, const NmsDraw& d) {
    const Tensor& vc = call.inputs[1];
    const std::vector<Shape> shapes = {{d.batches, 1}, {1, d.batches}, {d.batches, 1, 1}};
    call.inputs[1] =
        Tensor::from_values(*rc::gen::elementOf(shapes), vc.values(), vc.precision(), vc.dtype());
  }));
  add_rule(g.invalid, "valid_count_length_mismatch", nms_mutated([](Call& call, const NmsDraw& d) {
    auto length = *rc::gen::inRange<int64_t>(1, d.batches + 4);
    if (length == d.batches) length = d.batches + 1;
    const Tensor& vc = call.inputs[1];
    std::vector<int32_t> values(static_cast<size_t>(length), vc.get(0));
    call.inputs[1] = Tensor::from_values({length}, values, vc.precision(), vc.dtype());
  }));
  add_rule(g.invalid, "iou_threshold_not_positive", nms_mutated([](Call& call, const NmsDraw&) {
    const auto iou = *rc::gen::weightedOneOf<int64_t>(
        {{1, rc::gen::elementOf(std::vector<int64_t>{0, -1, INT32_MIN})},
         {1, rc::gen::inRange<int64_t>(-100, 1)}});
    call.attrs["iou_threshold"] = std::to_string(iou);
  }));
  add_rule(g.invalid, "x_precision_above_30", nms_mutated([](Call& call, const NmsDraw&) {
    // int32 storage, so that the int8 rule is not broken as well; the values still fit.
    call.inputs[0] = int32_copy(call.inputs[0]);
    call.inputs[0].set_precision(*rc::gen::elementOf(std::vector<int>{31, 32}));
  }));
  add_rule(g.invalid, "coord_start_not_2", nms_mutated([](Call& call, const NmsDraw&) {
    call.attrs["coord_start"] = *int_text_except(2);
  }));
  add_rule(g.invalid, "score_index_not_1", nms_mutated([](Call& call, const NmsDraw&) {
    call.attrs["score_index"] = *int_text_except(1);
  }));
  add_rule(g.invalid, "id_index_not_0", nms_mutated([](Call& call, const NmsDraw&) {
    call.attrs["id_index"] = *int_text_except(0);
  }));
  add_rule(g.invalid, "return_indices_true", nms_mutated([](Call& call, const NmsDraw&) {
    call.attrs["return_indices"] = *gen::bool_text(true);
  }));
  add_rule(g.invalid, "invalid_to_bottom_false", nms_mutated([](Call& call, const NmsDraw&) {
    call.attrs["invalid_to_bottom"] = *gen::bool_text(false);
  }));
  return g;
}

}  // namespace

void add_vision_generators(GeneratorTable& table) {
  table["get_valid_counts"] = gvc_generators();
  table["non_max_suppression"] = nms_generators();
}

}  // namespace cvm
