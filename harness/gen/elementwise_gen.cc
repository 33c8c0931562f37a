// Generators of the elementwise family (docs/ops/elementwise.md). Valid calls span every
// attribute range end to end (precision and shift_bit 1 and 32, clip bounds up to the widest
// that still fit 32 bits) with values biased to the precision edges; each invalid generator
// breaks one operator-specific rule.
#include <algorithm>
#include <utility>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

// Largest clip bound magnitude whose output precision fits 32 bits: bitlen(2^31 - 1) + 1 = 32.
constexpr int64_t kWidestClipBound = (int64_t{1} << 31) - 2;

using gen::add_rule;
using gen::draw_precision;

// An output `precision` attribute in [1, 32], rarely 1 (which makes every output 0).
int draw_precision_attr() {
  return *rc::gen::resize(100, rc::gen::weightedOneOf<int>({{1, rc::gen::just(1)},
                                                            {2, rc::gen::just(32)},
                                                            {8, rc::gen::inRange(1, 33)}}));
}

Call unary_call(const std::string& op, int p) {
  Call call;
  call.op = op;
  call.inputs.push_back(*gen::tensor_any_dtype(gen::shape_aimed(op, 1, 6), p));
  return call;
}

// An int attribute in one of its accepted spellings: plain, with a '+' sign when non-negative,
// or with surrounding whitespace.
std::string int_text(int64_t v) {
  const std::string plain = std::to_string(v);
  switch (*rc::gen::inRange(0, 6)) {
    case 0: return v >= 0 ? "+" + plain : plain;
    case 1: return " " + plain + " ";
    default: return plain;
  }
}

// An attribute value outside [1, 32]: the near misses and the int32 extremes.
rc::Gen<int64_t> outside_1_to_32(bool allow_above) {
  std::vector<int64_t> below = {0, -1, -32, INT32_MIN};
  std::vector<int64_t> above = {33, 34, 64, 4096, INT32_MAX};
  if (!allow_above) return rc::gen::elementOf(below);
  below.insert(below.end(), above.begin(), above.end());
  return rc::gen::elementOf(below);
}

OpGenerators unary_generators(const std::string& op) {
  OpGenerators g;
  g.valid = rc::gen::exec([=] { return unary_call(op, draw_precision(1, 32)); });
  return g;  // no operator-specific rules
}

Call binary_call(const std::string& op, const Shape& a, const Shape& b, int p0, int p1) {
  Call call;
  call.op = op;
  call.inputs.push_back(*gen::tensor_any_dtype(a, p0));
  call.inputs.push_back(*gen::tensor_any_dtype(b, p1));
  return call;
}

// A shape that differs from `shape`: a dim inserted or dropped, or one dim resized. Within the
// element budget when `shape` has at most 256 elements (a new or resized dim is at most 8).
Shape different_shape(const Shape& shape) {
  Shape other = shape;
  const int how = *rc::gen::inRange(0, 3);
  if (how == 0 && shape.size() < 6) {
    // One draw per statement: argument evaluation order differs between compilers.
    const auto at = *rc::gen::inRange<std::ptrdiff_t>(0, other.size() + 1);
    const auto dim = *rc::gen::inRange<int64_t>(1, 4);
    other.insert(other.begin() + at, dim);
  } else if (how == 1 && shape.size() > 1) {
    other.erase(other.begin() + *rc::gen::inRange<std::ptrdiff_t>(0, other.size()));
  } else {
    const auto i = *rc::gen::inRange<size_t>(0, other.size());
    other[i] = 1 + (other[i] - 1 + *rc::gen::inRange<int64_t>(1, 8)) % 8;  // another of 1..8
  }
  return other;
}

OpGenerators elemwise_generators(const std::string& op) {
  OpGenerators g;
  g.valid = rc::gen::exec([=] {
    const Shape shape = gen::shape_aimed(op, 1, 6);
    const int p0 = draw_precision(1, 31);
    const int p1 = draw_precision(1, 31);
    return binary_call(op, shape, shape, p0, p1);
  });
  add_rule(g.invalid, "shapes_differ", [=] {
    Shape a = *gen::shape(1, 6, 8, 256);
    Shape b = different_shape(a);
    if (*rc::gen::arbitrary<bool>()) std::swap(a, b);
    const int p0 = draw_precision(1, 31);
    const int p1 = draw_precision(1, 31);
    return binary_call(op, a, b, p0, p1);
  });
  add_rule(g.invalid, "output_precision_above_32", [=] {
    const Shape shape = *gen::shape(1, 6);
    int p0 = 32;
    int p1 = draw_precision(1, 32);
    if (*rc::gen::arbitrary<bool>()) std::swap(p0, p1);
    return binary_call(op, shape, shape, p0, p1);
  });
  return g;
}

// A clip bound: inside the input's value range (so clipping happens), at the ends of the
// attribute range, or anywhere in it. Never of magnitude 2^31 - 1, which would need 33 bits.
int64_t draw_bound(int p) {
  switch (*rc::gen::inRange(0, 4)) {
    case 0:
    case 1: return std::clamp<int64_t>(*gen::value(p), -kWidestClipBound, kWidestClipBound);
    case 2:
      return *rc::gen::elementOf(std::vector<int64_t>{
          -kWidestClipBound, kWidestClipBound, -(int64_t{1} << 30), int64_t{1} << 30, 0, 1, -1});
    default: return *rc::gen::inRange<int64_t>(-kWidestClipBound, kWidestClipBound + 1);
  }
}

Call clip_call(int p, int64_t a_min, int64_t a_max) {
  Call call = unary_call("clip", p);
  call.attrs["a_min"] = int_text(a_min);
  call.attrs["a_max"] = int_text(a_max);
  return call;
}

// Two distinct valid bounds, ordered.
std::pair<int64_t, int64_t> draw_bounds(int p) {
  int64_t lo = draw_bound(p);
  int64_t hi = draw_bound(p);
  if (lo == hi) hi = lo < kWidestClipBound ? lo + 1 : lo - 1;
  return {std::min(lo, hi), std::max(lo, hi)};
}

OpGenerators clip_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const int p = draw_precision(1, 32);
    const auto [a_min, a_max] = draw_bounds(p);
    return clip_call(p, a_min, a_max);
  });
  add_rule(g.invalid, "a_min_not_below_a_max", [] {
    const int p = draw_precision(1, 32);
    auto [a_min, a_max] = draw_bounds(p);
    if (*rc::gen::arbitrary<bool>()) {
      std::swap(a_min, a_max);
    } else {
      a_min = a_max;
    }
    return clip_call(p, a_min, a_max);
  });
  add_rule(g.invalid, "output_precision_above_32", [] {
    // A bound of magnitude 2^31 - 1 needs 33 bits; both stay in range.
    const int p = draw_precision(1, 32);
    const int64_t other = *rc::gen::inRange<int64_t>(-kWidestClipBound, kWidestClipBound + 1);
    const bool on_top = *rc::gen::arbitrary<bool>();
    const int64_t a_min = on_top ? other : -(kWidestClipBound + 1);
    const int64_t a_max = on_top ? kWidestClipBound + 1 : other;
    return clip_call(p, a_min, a_max);
  });
  add_rule(g.invalid, "a_min_below_range", [] {
    // INT32_MIN parses but is outside [-(2^31 - 1), 2^31 - 1].
    const int p = draw_precision(1, 32);
    const int64_t a_max = draw_bounds(p).second;
    return clip_call(p, INT32_MIN, a_max);
  });
  return g;
}

Call cvm_clip_call(int p, int64_t precision) {
  Call call = unary_call("cvm_clip", p);
  call.attrs["precision"] = int_text(precision);
  const int is_sign = *rc::gen::inRange(0, 3);  // omitted, true or false
  if (is_sign > 0) call.attrs["is_sign"] = *gen::bool_text(is_sign == 1);
  return call;
}

OpGenerators cvm_clip_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const int p = draw_precision();
    return cvm_clip_call(p, draw_precision_attr());
  });
  add_rule(g.invalid, "precision_attr_outside_1_32", [] {
    const int p = draw_precision();
    return cvm_clip_call(p, *outside_1_to_32(true));
  });
  return g;
}

// A shift call; `p` is the input precision.
Call shift_call(const std::string& op, int p, int64_t precision, int64_t shift_bit) {
  Call call = unary_call(op, p);
  call.attrs["precision"] = int_text(precision);
  call.attrs["shift_bit"] = int_text(shift_bit);
  const int is_sign = *rc::gen::inRange(0, 3);
  if (is_sign > 0) call.attrs["is_sign"] = *gen::bool_text(is_sign == 1);
  return call;
}

// Valid (input precision, shift_bit) for each shift. A right shift mostly by at most p bits so
// that the output is not nearly always 0; 1 and 32 are each drawn often.
std::pair<int, int> valid_shift(bool left) {
  if (left) {
    const int p = draw_precision(1, 31);
    return {p, draw_precision(1, 32 - p)};
  }
  const int p = draw_precision(1, 32);
  const int s = *rc::gen::weightedOneOf<int>(
      {{2, rc::gen::just(1)}, {1, rc::gen::just(32)}, {8, rc::gen::inRange(1, p + 1)}});
  return {p, s};
}

OpGenerators shift_generators(const std::string& op) {
  const bool left = op == "cvm_left_shift";
  OpGenerators g;
  g.valid = rc::gen::exec([=] {
    const auto [p, s] = valid_shift(left);
    return shift_call(op, p, draw_precision_attr(), s);
  });
  add_rule(g.invalid, "precision_attr_outside_1_32", [=] {
    const auto [p, s] = valid_shift(left);
    return shift_call(op, p, *outside_1_to_32(true), s);
  });
  // For the left shift a shift_bit above 32 would also break p0 + shift_bit <= 32.
  add_rule(g.invalid, "shift_bit_outside_1_32", [=] {
    const int p = valid_shift(left).first;
    const int64_t bad_shift = *outside_1_to_32(!left);
    return shift_call(op, p, draw_precision(), bad_shift);
  });
  if (left) {
    add_rule(g.invalid, "shift_past_32_bits", [=] {
      const int p = draw_precision(1, 32);
      const int s = draw_precision(std::max(1, 33 - p), 32);
      return shift_call(op, p, draw_precision(), s);
    });
  }
  return g;
}

}  // namespace

void add_elementwise_generators(GeneratorTable& table) {
  for (const char* op : {"abs", "negative", "cvm_precision"}) table[op] = unary_generators(op);
  table["elemwise_add"] = elemwise_generators("elemwise_add");
  table["elemwise_sub"] = elemwise_generators("elemwise_sub");
  table["clip"] = clip_generators();
  table["cvm_clip"] = cvm_clip_generators();
  table["cvm_right_shift"] = shift_generators("cvm_right_shift");
  table["cvm_left_shift"] = shift_generators("cvm_left_shift");
}

}  // namespace cvm
