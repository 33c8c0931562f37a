// Generators of the reduce family: sum, max (docs/ops/reduce.md). The exemplar for the other
// families: a valid generator spanning the attribute space, and one generator per
// operator-specific rule (the shared input-side rules are added by generators_for).
#include "harness/gen/generators.h"

namespace cvm {
namespace {

using gen::add_rule;

struct ReduceDraw {
  Shape shape;
  std::vector<int64_t> axes;
  bool exclude = false;
  bool keepdims = false;
  int64_t ratio = 1;  // size(X) / size(Y)
};

ReduceDraw draw_reduce() {
  ReduceDraw d;
  d.shape = gen::shape_aimed("sum", 1, 6);  // sum and max share their thresholds
  const int n = static_cast<int>(d.shape.size());
  d.axes = *gen::distinct_axes(n);
  d.exclude = *rc::gen::arbitrary<bool>();
  d.keepdims = *rc::gen::arbitrary<bool>();
  d.ratio = 1;
  for (int i = 0; i < n; ++i) {
    bool listed = false;
    for (int64_t a : d.axes) listed = listed || (a < 0 ? a + n : a) == i;
    if (d.axes.empty() || listed != d.exclude) d.ratio *= d.shape[static_cast<size_t>(i)];
  }
  return d;
}

Call reduce_call(const std::string& op, const ReduceDraw& d, int p) {
  Call call;
  call.op = op;
  call.attrs["axis"] = *gen::tuple_text(d.axes);
  // Defaults are sometimes spelled out, sometimes left out.
  if (d.exclude || *rc::gen::arbitrary<bool>()) call.attrs["exclude"] = *gen::bool_text(d.exclude);
  if (d.keepdims || *rc::gen::arbitrary<bool>()) call.attrs["keepdims"] = *gen::bool_text(d.keepdims);
  call.inputs.push_back(*gen::tensor_any_dtype(d.shape, p));
  return call;
}

// The largest input precision whose sum still fits 32 bits.
int max_sum_precision(int64_t ratio) { return 32 - bitlen(static_cast<uint64_t>(ratio)); }

OpGenerators reduce_generators(const std::string& op) {
  const bool is_sum = op == "sum";
  OpGenerators g;
  g.valid = rc::gen::exec([=] {
    const ReduceDraw d = draw_reduce();
    const int p = *gen::precision(1, is_sum ? max_sum_precision(d.ratio) : 32);
    return reduce_call(op, d, p);
  });
  add_rule(g.invalid, "axis_out_of_range", [=] {
    ReduceDraw d = draw_reduce();
    const auto n = static_cast<int64_t>(d.shape.size());
    d.axes.push_back(*rc::gen::elementOf(std::vector<int64_t>{n, -n - 1}));
    return reduce_call(op, d, *gen::precision(1, 8));
  });
  add_rule(g.invalid, "axis_duplicate", [=] {
    ReduceDraw d = draw_reduce();
    const int n = static_cast<int>(d.shape.size());
    if (d.axes.empty()) d.axes.push_back(*gen::axis(n));
    const int64_t a = d.axes.front() < 0 ? d.axes.front() + n : d.axes.front();
    d.axes.push_back(*gen::spell_axis(a, n));
    return reduce_call(op, d, *gen::precision(1, 8));
  });
  if (is_sum) {
    add_rule(g.invalid, "sum_precision_above_32", [=] {
      ReduceDraw d = draw_reduce();
      const int p = *rc::gen::inRange(max_sum_precision(d.ratio) + 1, 33);
      return reduce_call(op, d, p);
    });
  }
  return g;
}

}  // namespace

void add_reduce_generators(GeneratorTable& table) {
  table["sum"] = reduce_generators("sum");
  table["max"] = reduce_generators("max");
}

}  // namespace cvm
