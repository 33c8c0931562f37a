// Optimized broadcast family. Adjacent output axes on which each operand is either fully
// present or broadcast in the same way are merged, so the common cases (equal shapes, a scalar,
// a row or a column) become one long inner loop with unit or zero strides, which vectorizes.
// Threads split the outer rows above the work threshold.
#include <algorithm>

#include "infer/elementwise.h"
#include "optimized/kernels.h"

namespace cvm::opt {
namespace {

struct Plan {
  std::vector<int64_t> dims, a_stride, b_stride;
};

Plan plan_broadcast(const infer::BroadcastInference& inf) {
  struct Axis {
    int64_t dim;
    bool a_full, b_full;
  };
  std::vector<Axis> axes;
  for (size_t i = 0; i < inf.output.shape.size(); ++i) {
    const int64_t d = inf.output.shape[i];
    if (d == 1) continue;
    const Axis axis{d, inf.a_shape[i] == d, inf.b_shape[i] == d};
    if (!axes.empty() && axes.back().a_full == axis.a_full && axes.back().b_full == axis.b_full) {
      axes.back().dim *= d;
    } else {
      axes.push_back(axis);
    }
  }
  if (axes.empty()) axes.push_back({1, true, true});
  Plan plan;
  int64_t a_step = 1, b_step = 1;
  plan.dims.resize(axes.size());
  plan.a_stride.resize(axes.size());
  plan.b_stride.resize(axes.size());
  for (size_t i = axes.size(); i-- > 0;) {
    plan.dims[i] = axes[i].dim;
    plan.a_stride[i] = axes[i].a_full ? a_step : 0;
    plan.b_stride[i] = axes[i].b_full ? b_step : 0;
    if (axes[i].a_full) a_step *= axes[i].dim;
    if (axes[i].b_full) b_step *= axes[i].dim;
  }
  return plan;
}

template <typename A, typename B, typename F>
void run_plan(const Plan& plan, const A* a, const B* b, int32_t* out, F f) {
  const size_t k = plan.dims.size();
  const int64_t inner = plan.dims[k - 1];
  const int64_t sa = plan.a_stride[k - 1], sb = plan.b_stride[k - 1];
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < k; ++i) rows *= plan.dims[i];
  const int team = threads_for(rows * inner);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rem = r, ao = 0, bo = 0;
    for (size_t i = k - 1; i-- > 0;) {
      const int64_t idx = rem % plan.dims[i];
      rem /= plan.dims[i];
      ao += idx * plan.a_stride[i];
      bo += idx * plan.b_stride[i];
    }
    const A* ra = a + ao;
    const B* rb = b + bo;
    int32_t* ro = out + r * inner;
    if (sa == 1 && sb == 1) {
      for (int64_t j = 0; j < inner; ++j) ro[j] = static_cast<int32_t>(f(int64_t{ra[j]}, int64_t{rb[j]}));
    } else if (sa == 1) {
      const int64_t vb = rb[0];
      for (int64_t j = 0; j < inner; ++j) ro[j] = static_cast<int32_t>(f(int64_t{ra[j]}, vb));
    } else if (sb == 1) {
      const int64_t va = ra[0];
      for (int64_t j = 0; j < inner; ++j) ro[j] = static_cast<int32_t>(f(va, int64_t{rb[j]}));
    } else {
      const auto v = static_cast<int32_t>(f(int64_t{ra[0]}, int64_t{rb[0]}));
      std::fill(ro, ro + inner, v);
    }
  }
}

template <typename F>
std::vector<Tensor> broadcast(const OpContext& ctx, F f) {
  infer::validate_inputs(ctx);
  const infer::BroadcastInference inf = infer::infer_broadcast(ctx, ctx.op.name);
  Tensor y = infer::allocate(inf.output);
  const Plan plan = plan_broadcast(inf);
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const bool a8 = a.dtype() == DType::kInt8, b8 = b.dtype() == DType::kInt8;
  if (a8 && b8) run_plan(plan, a.i8(), b.i8(), y.i32(), f);
  else if (a8) run_plan(plan, a.i8(), b.i32(), y.i32(), f);
  else if (b8) run_plan(plan, a.i32(), b.i8(), y.i32(), f);
  else run_plan(plan, a.i32(), b.i32(), y.i32(), f);
  return {y};
}

// Truncating division with x / 0 = 0; INT32_MIN is never a valid input, so no overflow.
int64_t divide(int64_t a, int64_t b) { return b == 0 ? 0 : a / b; }

}  // namespace

void add_broadcast(Backend& backend) {
  backend.add("broadcast_add", [](const OpContext& c) { return broadcast(c, [](int64_t a, int64_t b) { return a + b; }); });
  backend.add("broadcast_sub", [](const OpContext& c) { return broadcast(c, [](int64_t a, int64_t b) { return a - b; }); });
  backend.add("broadcast_mul", [](const OpContext& c) { return broadcast(c, [](int64_t a, int64_t b) { return a * b; }); });
  backend.add("broadcast_div", [](const OpContext& c) { return broadcast(c, divide); });
  backend.add("broadcast_max", [](const OpContext& c) { return broadcast(c, [](int64_t a, int64_t b) { return std::max(a, b); }); });
  backend.add("broadcast_greater", [](const OpContext& c) {
    return broadcast(c, [](int64_t a, int64_t b) -> int64_t { return a > b ? 1 : 0; });
  });
}

}  // namespace cvm::opt
