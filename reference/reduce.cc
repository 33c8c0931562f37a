// Reference kernels of the reduce family: sum, max. Naive loops over the contract's formula:
// every output element is the sum (or max) of its fiber, found by walking all input elements.
#include <algorithm>
#include <set>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

struct ReducePlan {
  std::vector<bool> reduced;  // per input axis
  Shape out_shape;
};

ReducePlan plan_reduce(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& axis = ctx.attrs.tuple("axis");
  const bool exclude = ctx.attrs.b("exclude");
  const bool keepdims = ctx.attrs.b("keepdims");

  std::set<int> listed;
  for (int64_t a : axis) {
    const int normalised = normalize_axis(a, n, "axis", "axis_out_of_range");
    verify_rule(listed.insert(normalised).second, "axis_duplicate", "axis ", a, " is listed twice");
  }
  ReducePlan plan;
  plan.reduced.assign(static_cast<size_t>(n), false);
  for (int i = 0; i < n; ++i) {
    const bool is_listed = listed.count(i) != 0;
    // axis = () reduces every axis, with or without exclude.
    plan.reduced[static_cast<size_t>(i)] = axis.empty() || (exclude ? !is_listed : is_listed);
  }
  const bool all = std::all_of(plan.reduced.begin(), plan.reduced.end(), [](bool r) { return r; });
  if (all && !keepdims) {
    plan.out_shape = {1};
    return plan;
  }
  for (int i = 0; i < n; ++i) {
    if (!plan.reduced[static_cast<size_t>(i)]) {
      plan.out_shape.push_back(x.dim(i));
    } else if (keepdims) {
      plan.out_shape.push_back(1);
    }
  }
  return plan;
}

// Output flat index of input element `index`: drop (or zero) the reduced coordinates.
int64_t output_position(const Index& index, const ReducePlan& plan, bool keepdims) {
  Index out;
  for (size_t i = 0; i < index.size(); ++i) {
    if (!plan.reduced[i]) {
      out.push_back(index[i]);
    } else if (keepdims) {
      out.push_back(0);
    }
  }
  if (out.empty()) return 0;
  return ravel(out, plan.out_shape);
}

std::vector<Tensor> sum(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const ReducePlan plan = plan_reduce(ctx);
  const int64_t out_size = checked_size(plan.out_shape, "output");
  const int precision = x.precision() + bitlen(static_cast<uint64_t>(x.size() / out_size));
  Tensor y = make_output(plan.out_shape, precision);
  std::vector<int64_t> acc(static_cast<size_t>(out_size), 0);
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t o = output_position(unravel(i, x.shape()), plan, ctx.attrs.b("keepdims"));
    acc[static_cast<size_t>(o)] += x.get(i);
  }
  for (int64_t o = 0; o < out_size; ++o) y.set(o, static_cast<int32_t>(acc[static_cast<size_t>(o)]));
  return {y};
}

std::vector<Tensor> max(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const ReducePlan plan = plan_reduce(ctx);
  const int64_t out_size = checked_size(plan.out_shape, "output");
  Tensor y = make_output(plan.out_shape, x.precision());
  std::vector<bool> seen(static_cast<size_t>(out_size), false);
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t o = output_position(unravel(i, x.shape()), plan, ctx.attrs.b("keepdims"));
    if (!seen[static_cast<size_t>(o)] || x.get(i) > y.get(o)) y.set(o, x.get(i));
    seen[static_cast<size_t>(o)] = true;
  }
  return {y};
}

}  // namespace

void add_reduce(Backend& backend) {
  backend.add("sum", kernel(sum));
  backend.add("max", kernel(max));
}

}  // namespace cvm::ref
