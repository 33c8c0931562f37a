// Generators of the broadcast family (docs/ops/broadcast.md): valid calls draw a base shape and
// derive both operands from its trailing dims, each dim kept or replaced by 1, so the pair always
// broadcasts and either operand may have the higher rank; precisions span [1, 32] within each
// operator's output limit. Invalid calls break one rule each: non-broadcastable dims, output
// precision above 32, and an output over the element limit.
#include <algorithm>
#include <utility>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

using gen::add_rule;
using gen::draw_precision;

struct BroadcastShapes {
  Shape a;
  Shape b;
};

// An operand over the trailing `rank` dims of `base`, each dim kept or set to 1.
Shape operand_shape(const Shape& base, size_t rank) {
  Shape shape(base.end() - static_cast<std::ptrdiff_t>(rank), base.end());
  for (int64_t& d : shape) {
    if (*rc::gen::inRange(0, 3) == 0) d = 1;
  }
  return shape;
}

BroadcastShapes draw_shapes(int64_t max_elements) {
  const Shape base = *gen::shape(1, 6, 8, max_elements);
  const auto rank_a = *rc::gen::inRange<size_t>(1, base.size() + 1);
  const auto rank_b = *rc::gen::inRange<size_t>(1, base.size() + 1);
  return {operand_shape(base, rank_a), operand_shape(base, rank_b)};
}

Call broadcast_call(const std::string& op, const BroadcastShapes& s, int p0, int p1) {
  Call call;
  call.op = op;
  call.inputs.push_back(*gen::tensor_any_dtype(s.a, p0));
  call.inputs.push_back(*gen::tensor_any_dtype(s.b, p1));
  return call;
}

// Input precisions whose output precision fits 32 bits, both ends of each range included; the
// order of the two draws is random so neither operand is favoured.
std::pair<int, int> valid_precisions(const std::string& op) {
  int p0 = 0, p1 = 0;
  if (op == "broadcast_add" || op == "broadcast_sub") {
    p0 = draw_precision(1, 31);
    p1 = draw_precision(1, 31);
  } else if (op == "broadcast_mul") {
    // The sum first (mostly large), then its split (sometimes at an end): drawing p0 in
    // [1, 31] and then p1 in [1, 32 - p0] would make p1 = 1 (all zeros) far too common.
    const int sum = *rc::gen::resize(100, rc::gen::weightedOneOf<int>(
                                              {{1, rc::gen::just(32)},
                                               {3, rc::gen::inRange(17, 33)},
                                               {1, rc::gen::inRange(2, 17)}}));
    p0 = *rc::gen::resize(100, rc::gen::weightedOneOf<int>({{1, rc::gen::just(1)},
                                                             {1, rc::gen::just(sum - 1)},
                                                             {14, rc::gen::inRange(1, sum)}}));
    p1 = sum - p0;
  } else if (op == "broadcast_div") {
    // A divisor mostly narrower than the dividend, else nearly every quotient is 0.
    p0 = draw_precision(1, 32);
    p1 = *rc::gen::inRange(0, 4) == 0 ? draw_precision(1, 32)
                                      : draw_precision(2, std::max(2, p0 / 2 + 1));
    return {p0, p1};
  } else {
    p0 = draw_precision(1, 32);
    p1 = draw_precision(1, 32);
  }
  if (*rc::gen::arbitrary<bool>()) std::swap(p0, p1);
  return {p0, p1};
}

bool has_precision_limit(const std::string& op) {
  return op == "broadcast_add" || op == "broadcast_sub" || op == "broadcast_mul";
}

OpGenerators broadcast_generators(const std::string& op) {
  OpGenerators g;
  g.valid = rc::gen::exec([=] {
    const BroadcastShapes s = draw_shapes(gen::kMaxElements);
    const auto [p0, p1] = valid_precisions(op);
    return broadcast_call(op, s, p0, p1);
  });

  add_rule(g.invalid, "shapes_not_broadcastable", [=] {
    BroadcastShapes s = draw_shapes(256);
    // One right-aligned dim pair set to two different sizes, both >= 2.
    const size_t common = std::min(s.a.size(), s.b.size());
    const auto from_end = *rc::gen::inRange<size_t>(1, common + 1);
    const int64_t da = *rc::gen::inRange<int64_t>(2, 9);
    const int64_t db = 2 + (da - 2 + *rc::gen::inRange<int64_t>(1, 7)) % 7;
    s.a[s.a.size() - from_end] = da;
    s.b[s.b.size() - from_end] = db;
    const auto [p0, p1] = valid_precisions(op);
    return broadcast_call(op, s, p0, p1);
  });

  if (has_precision_limit(op)) {
    add_rule(g.invalid, "output_precision_above_32", [=] {
      const BroadcastShapes s = draw_shapes(gen::kMaxElements);
      int p0 = 0, p1 = 0;
      if (op == "broadcast_mul") {
        p0 = draw_precision(1, 32);
        p1 = draw_precision(33 - p0, 32);
      } else {
        p0 = 32;
        p1 = draw_precision(1, 32);
      }
      if (*rc::gen::arbitrary<bool>()) std::swap(p0, p1);
      return broadcast_call(op, s, p0, p1);
    });
  }

  add_rule(g.invalid, "output_over_element_limit", [=] {
    // Two legal operands of about 2^15 elements on different axes whose
    // broadcast has more than 2^30 elements. Zeros, built directly: drawing
    // 2^16 values would cost far more than the rule needs.
    const int rank = *rc::gen::inRange(2, 7);
    const int axis_a = *rc::gen::inRange(0, rank - 1);
    const int axis_b = *rc::gen::inRange(axis_a + 1, rank);
    const int64_t na = *rc::gen::inRange<int64_t>(32768, 32800);
    const int64_t nb = (int64_t{1} << 30) / na + 1;
    Shape a(static_cast<size_t>(rank), 1);
    Shape b(static_cast<size_t>(rank), 1);
    a[static_cast<size_t>(axis_a)] = na;
    b[static_cast<size_t>(axis_b)] = nb;
    if (*rc::gen::arbitrary<bool>()) std::swap(a, b);
    const int p = *gen::precision(1, 8);
    Call call;
    call.op = op;
    call.inputs.push_back(Tensor::zeros(DType::kInt8, a, p));
    call.inputs.push_back(Tensor::zeros(DType::kInt8, b, p));
    return call;
  });
  return g;
}

}  // namespace

void add_broadcast_generators(GeneratorTable& table) {
  for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
                         "broadcast_max", "broadcast_greater"}) {
    table[op] = broadcast_generators(op);
  }
}

}  // namespace cvm
