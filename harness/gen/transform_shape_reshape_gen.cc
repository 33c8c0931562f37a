// Generators of reshape (docs/ops/transform_shape.md), apart from the rest of the
// transform_shape family for length. The `shape` codes are derived from the input shape, so a
// valid call is valid by construction and covers every code: literals, 0, -1 (also after -2, -3
// and -4), -2 (also with no input dim left), -3, and -4 with literal or inferred parts.
#include <functional>

#include "harness/gen/generators.h"
#include "harness/gen/path_aim.h"

namespace cvm {
namespace {

using gen::kInt64Max;
using gen::kInt64Min;

// Codes under construction, in groups (a -4 and its two parts form one group), so that a rule
// can be broken between groups. A cursor walks the input dims as the contract says: a literal,
// 0 and -1 consume one dim, -3 two, -4 one, -2 all that remain.
struct CodePlan {
  std::vector<std::vector<int64_t>> groups;
  int64_t out_ndim = 0;
  bool inferred = false;  // a top-level -1 is used
};

enum Choice { kCopy, kLiteral, kInfer, kMerge, kProduct, kSplit, kCopyRest };

std::vector<int64_t> divisors(int64_t d) {
  std::vector<int64_t> out;
  for (int64_t k = 1; k <= d; ++k) {
    if (d % k == 0) out.push_back(k);
  }
  return out;
}

// Appends codes that consume input dims [from, to) exactly, keeping the output ndim within
// max_out (the caller leaves room for one output per dim at least).
void add_codes(const Shape& in, size_t from, size_t to, bool allow_copy_rest, int64_t max_out,
               CodePlan& plan) {
  size_t src = from;
  while (src < to) {
    const auto left = static_cast<int64_t>(to - src);
    std::vector<Choice> choices = {kCopy, kLiteral};
    if (!plan.inferred) choices.push_back(kInfer);
    if (left >= 2) {
      choices.push_back(kMerge);
      choices.push_back(kProduct);
    }
    if (plan.out_ndim + left + 1 <= max_out) choices.push_back(kSplit);
    if (allow_copy_rest && to == in.size()) choices.push_back(kCopyRest);
    const int64_t d = in[src];
    switch (*rc::gen::elementOf(choices)) {
      case kCopy:
        plan.groups.push_back({0});
        ++plan.out_ndim;
        ++src;
        break;
      case kLiteral:
        plan.groups.push_back({d});
        ++plan.out_ndim;
        ++src;
        break;
      case kInfer:
        plan.groups.push_back({-1});  // infers d: every other group keeps its dims' product
        plan.inferred = true;
        ++plan.out_ndim;
        ++src;
        break;
      case kMerge:
        plan.groups.push_back({-3});
        ++plan.out_ndim;
        src += 2;
        break;
      case kProduct: {
        // k dims as (their product or -1, 1, ..., 1): each literal consumes one dim.
        const auto k = *rc::gen::inRange<int64_t>(2, left + 1);
        int64_t product = 1;
        for (int64_t i = 0; i < k; ++i) product *= in[src + static_cast<size_t>(i)];
        std::vector<int64_t> group = {product};
        if (!plan.inferred && *rc::gen::arbitrary<bool>()) {
          group[0] = -1;
          plan.inferred = true;
        }
        group.insert(group.end(), static_cast<size_t>(k - 1), 1);
        plan.groups.push_back(group);
        plan.out_ndim += k;
        src += static_cast<size_t>(k);
        break;
      }
      case kSplit: {
        const int64_t d1 = *rc::gen::elementOf(divisors(d));
        const int64_t d2 = d / d1;
        switch (*rc::gen::inRange(0, 3)) {
          case 0:
            plan.groups.push_back({-4, d1, d2});
            break;
          case 1:
            plan.groups.push_back({-4, -1, d2});
            break;
          default:
            plan.groups.push_back({-4, d1, -1});
            break;
        }
        plan.out_ndim += 2;
        ++src;
        break;
      }
      case kCopyRest:
        plan.groups.push_back({-2});
        plan.out_ndim += left;
        src = to;
        break;
    }
  }
}

// After every dim is consumed: a -2 copying nothing, a literal 1, or a -1 inferring 1.
void add_trailing(CodePlan& plan, int64_t max_out) {
  const int extra = *rc::gen::weightedOneOf<int>(
      {{3, rc::gen::just(0)}, {2, rc::gen::just(1)}, {1, rc::gen::just(2)}});
  for (int t = 0; t < extra; ++t) {
    std::vector<int64_t> choices = {-2};
    if (plan.out_ndim < max_out) {
      choices.push_back(1);
      if (!plan.inferred) choices.push_back(-1);
    }
    const int64_t code = *rc::gen::elementOf(choices);
    plan.groups.push_back({code});
    if (code != -2) ++plan.out_ndim;
    plan.inferred = plan.inferred || code == -1;
  }
}

// Valid codes for all of `in` (whose ndim must be <= max_out).
CodePlan full_plan(const Shape& in, int64_t max_out) {
  CodePlan plan;
  add_codes(in, 0, in.size(), true, max_out, plan);
  add_trailing(plan, max_out);
  return plan;
}

Call reshape_call(const Tensor& x, const CodePlan& plan) {
  std::vector<int64_t> codes;
  for (const auto& group : plan.groups) codes.insert(codes.end(), group.begin(), group.end());
  Call call;
  call.op = "reshape";
  call.inputs = {x};
  call.attrs["shape"] = *gen::tuple_text(codes);
  return call;
}

Tensor input(int max_ndim) {
  const Shape shape = *gen::shape(1, max_ndim);  // one draw per statement (evaluation order)
  return *gen::tensor_any_dtype(shape, *gen::precision());
}

void insert_group(CodePlan& plan, std::vector<int64_t> group) {
  const auto at = *rc::gen::inRange<size_t>(0, plan.groups.size() + 1);
  plan.groups.insert(plan.groups.begin() + static_cast<int64_t>(at), std::move(group));
}

using gen::add_rule;

// A rule broken after every input dim is consumed: valid codes, then `tail`.
void after_end(OpGenerators& g, const std::string& rule, int64_t max_out,
               std::function<std::vector<int64_t>(const CodePlan&, const Shape&)> tail) {
  add_rule(g.invalid, rule, [=] {
    const Tensor x = input(static_cast<int>(max_out));
    CodePlan plan = full_plan(x.shape(), max_out);
    plan.groups.push_back(tail(plan, x.shape()));
    return reshape_call(x, plan);
  });
}

// A rule broken by a -4 group on input dim i: valid codes for the dims before and after it
// around `broken(n_i)`. Inputs have at most 4 dims, so the output ndim stays within 6.
void broken_split(OpGenerators& g, const std::string& rule,
                  std::function<std::vector<int64_t>(int64_t)> broken) {
  add_rule(g.invalid, rule, [=] {
    const Tensor x = input(4);
    const Shape& in = x.shape();
    const auto i = *rc::gen::inRange<size_t>(0, in.size());
    CodePlan plan;
    add_codes(in, 0, i, false, static_cast<int64_t>(i), plan);
    plan.groups.push_back(broken(in[i]));
    plan.out_ndim += 2;
    add_codes(in, i + 1, in.size(), true, plan.out_ndim + static_cast<int64_t>(in.size() - i - 1),
              plan);
    return reshape_call(x, plan);
  });
}

// A -4 part that is neither -1 nor in [1, 2^24].
rc::Gen<int64_t> bad_split_part() {
  return rc::gen::elementOf(
      std::vector<int64_t>{0, -2, -3, -4, -5, kInt64Min, kMaxDim + 1, kInt64Max});
}

}  // namespace

OpGenerators transform_shape_reshape_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] {
    const Tensor x = input(6);
    return reshape_call(x, full_plan(x.shape(), kMaxNdim));
  });
  add_rule(g.invalid, "shape_empty", [] { return reshape_call(input(6), CodePlan{}); });
  add_rule(g.invalid, "code_below_minus_4", [] {
    // Were it skipped, the rest would be valid.
    const Tensor x = input(6);
    CodePlan plan = full_plan(x.shape(), kMaxNdim);
    insert_group(plan, {*rc::gen::weightedOneOf<int64_t>(
                           {{2, rc::gen::elementOf(std::vector<int64_t>{-5, -6, kInt64Min})},
                            {1, rc::gen::inRange<int64_t>(kInt64Min, -4)}})});
    return reshape_call(x, plan);
  });
  after_end(g, "two_inferred", 4, [](const CodePlan& plan, const Shape&) {
    return plan.inferred ? std::vector<int64_t>{-1} : std::vector<int64_t>{-1, -1};
  });
  after_end(g, "product_mismatch", 5, [](const CodePlan& plan, const Shape& in) {
    // With a -1 present, a literal above the input size leaves it no value; without one, any
    // literal above 1 breaks the product. Three 2^24 would overflow a naive int64 product.
    if (plan.inferred) return std::vector<int64_t>{shape_size(in) + 1};
    if (plan.out_ndim <= 3 && *rc::gen::arbitrary<bool>()) {
      return std::vector<int64_t>{kMaxDim, kMaxDim, kMaxDim};
    }
    return std::vector<int64_t>{*rc::gen::inRange<int64_t>(2, kMaxDim + 1)};
  });
  after_end(g, "literal_over_dim_limit", 5, [](const CodePlan&, const Shape&) {
    return std::vector<int64_t>{
        *rc::gen::weightedOneOf<int64_t>({{1, rc::gen::just(kMaxDim + 1)},
                                          {1, rc::gen::just(kInt64Max)},
                                          {1, rc::gen::inRange<int64_t>(kMaxDim + 1, kInt64Max)}})};
  });
  after_end(g, "output_ndim_above_6", kMaxNdim, [](const CodePlan& plan, const Shape&) {
    const int64_t ones = kMaxNdim + 1 - plan.out_ndim + *rc::gen::inRange<int64_t>(0, 2);
    return std::vector<int64_t>(static_cast<size_t>(ones), 1);
  });
  after_end(g, "zero_past_input_dims", 5,
            [](const CodePlan&, const Shape&) { return std::vector<int64_t>{0}; });
  after_end(g, "merge_past_input_dims", 5,
            [](const CodePlan&, const Shape&) { return std::vector<int64_t>{-3}; });
  add_rule(g.invalid, "merge_with_one_dim_left", [] {
    const Tensor x = input(5);
    CodePlan plan;
    add_codes(x.shape(), 0, x.shape().size() - 1, false, 5, plan);
    plan.groups.push_back({-3});
    return reshape_call(x, plan);
  });
  after_end(g, "split_past_input_dims", 4, [](const CodePlan&, const Shape&) {
    return *rc::gen::elementOf(
        std::vector<std::vector<int64_t>>{{-4, 1, 1}, {-4, -1, 1}, {-4, 1, -1}});
  });
  add_rule(g.invalid, "split_missing_entries", [] {
    // The -4 has an input dim to split but the list ends too soon.
    const Tensor x = input(5);
    const Shape& in = x.shape();
    CodePlan plan;
    add_codes(in, 0, in.size() - 1, false, 5, plan);
    plan.groups.push_back(*rc::gen::elementOf(
        std::vector<std::vector<int64_t>>{{-4}, {-4, 1}, {-4, -1}, {-4, in.back()}}));
    return reshape_call(x, plan);
  });
  broken_split(g, "split_part_out_of_range", [](int64_t d) {
    const int64_t bad = *bad_split_part();
    return *rc::gen::elementOf(std::vector<std::vector<int64_t>>{
        {-4, bad, d}, {-4, d, bad}, {-4, bad, -1}, {-4, -1, bad}});
  });
  broken_split(g, "split_both_inferred", [](int64_t) { return std::vector<int64_t>{-4, -1, -1}; });
  broken_split(g, "split_not_dividing", [](int64_t d) {
    if (gen::aiming() && *rc::gen::inRange(0, 4) == 0) {
      // 2^24, the top of a part's range, is a part: it fails only here (a range check that
      // excluded it would name the wrong rule). Campaign draws only: golden keeps its bytes.
      return *rc::gen::elementOf(
          std::vector<std::vector<int64_t>>{{-4, kMaxDim, -1}, {-4, -1, kMaxDim}});
    }
    const int64_t a = *rc::gen::inRange<int64_t>(1, 65);
    int64_t b = *rc::gen::inRange<int64_t>(1, 65);
    if (a * b == d) ++b;
    return *rc::gen::elementOf(
        std::vector<std::vector<int64_t>>{{-4, a, b}, {-4, d + 1, -1}, {-4, -1, d + 1}});
  });
  return g;
}

}  // namespace cvm
