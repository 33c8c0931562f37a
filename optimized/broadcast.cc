// Optimized broadcast family. Adjacent output axes on which each operand is either fully
// present or broadcast in the same way are merged, so the common cases (equal shapes, a scalar,
// a row or a column) become one long inner loop with unit or zero strides, which vectorizes.
// Threads split the outer rows above the work threshold. The input value check is fused into the
// pass (optimized/fused_pass.h).
#include <algorithm>

#include "infer/elementwise.h"
#include "optimized/fused_pass.h"
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

// One pass over the plan, fused with the input value check: every output row is an inner loop
// over the last merged axis, with each operand walked (stride 1) or held (stride 0); the loops
// fold every operand value they read into `seen`: that is all of each input, as dims are at
// least 1 and so every input element feeds some output element.
template <typename A, typename B, typename F>
std::array<fused::Seen, 2> run_plan(const Plan& plan, const A* a, const B* b, int32_t* out, F f) {
  const size_t k = plan.dims.size();
  const int64_t inner = plan.dims[k - 1];
  const int64_t sa = plan.a_stride[k - 1], sb = plan.b_stride[k - 1];
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < k; ++i) rows *= plan.dims[i];
  const fused::BinaryPass<A, B, F> pass =
      sa == 1 && sb == 1 ? fused::binary_pass<true, true, A, B, F>()
      : sa == 1          ? fused::binary_pass<true, false, A, B, F>()
      : sb == 1          ? fused::binary_pass<false, true, A, B, F>()
                         : fused::binary_pass<false, false, A, B, F>();
  // Neither operand steps along the merged inner axis only when it is the size-1 axis of a
  // one-element output (the plan's placeholder): no path of its own.
  path::hit(sa == 1 && sb == 1 ? path::kBroadcastInnerBoth
            : sa == 1          ? path::kBroadcastInnerA
                               : path::kBroadcastInnerB);
  path::hit_if(rows > 1, path::kBroadcastRows);
  // Rows are the chunks here (a row of the operands' data at a time, however long).
  const int team = threads_for(rows * inner);
  std::array<fused::Seen, 2> all{};
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::array<fused::Seen, 2> mine{};
#pragma omp for schedule(static) nowait
    for (int64_t r = 0; r < rows; ++r) {
      int64_t rem = r, ao = 0, bo = 0;
      for (size_t i = k - 1; i-- > 0;) {
        const int64_t idx = rem % plan.dims[i];
        rem /= plan.dims[i];
        ao += idx * plan.a_stride[i];
        bo += idx * plan.b_stride[i];
      }
      pass(a + ao, b + bo, out + r * inner, inner, f, mine.data());
    }
#pragma omp critical(cvm_broadcast_merge)
    for (size_t i = 0; i < 2; ++i) all[i].merge(mine[i]);
  }
  return all;
}

template <typename F>
std::vector<Tensor> broadcast_with(const OpContext& ctx, F f) {
  infer::validate_input_storage(ctx);
  const infer::BroadcastInference inf = infer::infer_broadcast(ctx, ctx.op.name);
  Tensor y = infer::allocate(inf.output);
  const Plan plan = plan_broadcast(inf);
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const bool a8 = a.dtype() == DType::kInt8, b8 = b.dtype() == DType::kInt8;
  std::array<fused::Seen, 2> seen;
  if (a8 && b8) seen = run_plan(plan, a.i8(), b.i8(), y.i32(), f);
  else if (a8) seen = run_plan(plan, a.i8(), b.i32(), y.i32(), f);
  else if (b8) seen = run_plan(plan, a.i32(), b.i8(), y.i32(), f);
  else seen = run_plan(plan, a.i32(), b.i32(), y.i32(), f);
  for (size_t k = 0; k < 2; ++k) infer::check_input_values(ctx, k, seen[k].lo, seen[k].hi);
  return results(std::move(y));
}

// Every operator in int32 without undefined behaviour for any int32 operand. On valid operands
// the output precision (max(p0, p1) + 1 or p0 + p1, at most 32) keeps sums and products exact;
// invalid ones wrap through uint32 (the result is discarded).
uint32_t u(int32_t v) { return static_cast<uint32_t>(v); }
int32_t wrap(uint32_t v) { return static_cast<int32_t>(v); }
int32_t add(int32_t a, int32_t b) { return wrap(u(a) + u(b)); }
int32_t sub(int32_t a, int32_t b) { return wrap(u(a) - u(b)); }
int32_t mul(int32_t a, int32_t b) { return wrap(u(a) * u(b)); }
// Truncating division with x / 0 = 0; x / -1 negates (INT32_MIN / -1 would overflow).
int32_t divide(int32_t a, int32_t b) { return b == 0 ? 0 : b == -1 ? wrap(0u - u(a)) : a / b; }
int32_t maximum(int32_t a, int32_t b) { return std::max(a, b); }
int32_t greater(int32_t a, int32_t b) { return a > b ? 1 : 0; }

// A function object per operator (not a pointer), so its loops are instantiated with it inlined.
template <int32_t (*kOp)(int32_t, int32_t)>
std::vector<Tensor> broadcast(const OpContext& ctx) {
  return broadcast_with(ctx, [](int32_t a, int32_t b) { return kOp(a, b); });
}

}  // namespace

void add_broadcast(Backend& backend) {
  backend.add("broadcast_add", broadcast<add>);
  backend.add("broadcast_sub", broadcast<sub>);
  backend.add("broadcast_mul", broadcast<mul>);
  backend.add("broadcast_div", broadcast<divide>);
  backend.add("broadcast_max", broadcast<maximum>);
  backend.add("broadcast_greater", broadcast<greater>);
}

}  // namespace cvm::opt
