#include "infer/reduce.h"

namespace cvm::infer {

ReduceInference infer_reduce(const OpContext& ctx, bool is_sum) {
  const Tensor& x = ctx.inputs[0];
  const int n = x.ndim();
  const Tuple& axes = ctx.attrs.tuple("axis");
  const bool exclude = ctx.attrs.b("exclude");
  const bool keepdims = ctx.attrs.b("keepdims");
  std::vector<bool> listed(static_cast<size_t>(n), false);
  for (int64_t a : axes) {
    const int axis = axis_in(a, n, "axis", "axis_out_of_range");
    if (listed[static_cast<size_t>(axis)]) {
      fail_rule("axis_duplicate", "axis ", a, " repeats an axis");
    }
    listed[static_cast<size_t>(axis)] = true;
  }
  ReduceInference inf;
  inf.reduced.resize(static_cast<size_t>(n));
  int64_t kept_size = 1;
  bool all = true;
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<size_t>(i);
    inf.reduced[u] = axes.empty() || listed[u] != exclude;
    all = all && inf.reduced[u];
    if (!inf.reduced[u]) {
      kept_size *= x.dim(i);
      inf.output.shape.push_back(x.dim(i));
    } else if (keepdims) {
      inf.output.shape.push_back(1);
    }
  }
  if (all && !keepdims) inf.output.shape = {1};
  inf.output.precision =
      is_sum ? x.precision() + bitlen(static_cast<uint64_t>(x.size() / kept_size)) : x.precision();
  validate_output(inf.output);
  return inf;
}

}  // namespace cvm::infer
