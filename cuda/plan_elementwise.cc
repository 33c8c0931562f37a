// Plans of the elementwise, broadcast and reduce families: the production inference (infer/)
// validates and infers on the host; each plan is one step.
#include <map>

#include "cuda/plan.h"
#include "infer/elementwise.h"
#include "infer/reduce.h"

namespace cvm::cuda {
namespace {

Plan map_plan(const OpContext& ctx, const infer::OutputSpec& spec, MapOp op) {
  Plan plan = single_output_plan(ctx, spec);
  Step step;
  step.kind = StepKind::kMap;
  step.count = shape_size(spec.shape);
  step.map.op = op;
  step.map.arity = static_cast<int32_t>(ctx.inputs.size());
  step.map.out = to_dims(spec.shape);
  for (int k = 0; k < step.map.arity; ++k) step.input[k] = k;
  plan.steps.push_back(step);
  return plan;
}

Plan unary(const OpContext& ctx, int precision, MapOp op, int64_t lo = 0, int64_t hi = 0,
           int shift = 0) {
  Plan plan = map_plan(ctx, {ctx.inputs[0].shape(), precision}, op);
  plan.steps[0].map.lo = lo;
  plan.steps[0].map.hi = hi;
  plan.steps[0].map.shift = shift;
  return plan;
}

Plan broadcast(const OpContext& ctx) {
  static const std::map<std::string, MapOp> kOps = {
      {"broadcast_add", kMapAdd}, {"broadcast_sub", kMapSub}, {"broadcast_mul", kMapMul},
      {"broadcast_div", kMapDiv}, {"broadcast_max", kMapMax}, {"broadcast_greater", kMapGreater}};
  const infer::BroadcastInference inf = infer::infer_broadcast(ctx, ctx.op.name);
  Plan plan = map_plan(ctx, inf.output, kOps.at(ctx.op.name));
  MapParams& p = plan.steps[0].map;
  const Shape* operands[2] = {&inf.a_shape, &inf.b_shape};
  for (int k = 0; k < 2; ++k) {
    const Shape& shape = *operands[k];
    if (shape == inf.output.shape) continue;  // identity map
    const std::vector<int64_t> strides = strides_of(shape);
    p.in[k].identity = 0;
    // A broadcast (size-1) axis is always read at index 0.
    for (size_t j = 0; j < shape.size(); ++j) p.in[k].mult[j] = shape[j] == 1 ? 0 : strides[j];
  }
  return plan;
}

Plan reduce(const OpContext& ctx) {
  const bool is_sum = ctx.op.name == "sum";
  const infer::ReduceInference inf = infer::infer_reduce(ctx, is_sum);
  Plan plan = single_output_plan(ctx, inf.output);
  const Shape& shape = ctx.inputs[0].shape();
  const std::vector<int64_t> strides = strides_of(shape);
  Step step;
  step.kind = StepKind::kReduce;
  step.count = shape_size(inf.output.shape);
  step.input[0] = 0;
  ReduceParams& p = step.reduce;
  p.is_sum = is_sum ? 1 : 0;
  for (size_t j = 0; j < shape.size(); ++j) {
    Dims& dims = inf.reduced[j] ? p.reduced : p.kept;
    int64_t* dim_strides = inf.reduced[j] ? p.reduced_stride : p.kept_stride;
    dim_strides[dims.n] = strides[j];
    dims.d[dims.n++] = shape[j];
    if (inf.reduced[j]) p.fiber *= shape[j];
  }
  plan.steps.push_back(step);
  return plan;
}

}  // namespace

Plan plan_elementwise(const OpContext& ctx) {
  const std::string& op = ctx.op.name;
  infer::validate_inputs(ctx);
  if (op == "sum" || op == "max") return reduce(ctx);
  if (op.rfind("broadcast_", 0) == 0) return broadcast(ctx);
  const int p0 = ctx.inputs[0].precision();
  if (op == "abs") return unary(ctx, p0, kMapAbs);
  if (op == "negative") return unary(ctx, p0, kMapNegative);
  if (op == "cvm_precision") return unary(ctx, 6, kMapPrecision);
  if (op == "clip") {
    const infer::ClipBounds c = infer::infer_clip(ctx);
    return unary(ctx, c.precision, kMapClamp, c.lo, c.hi);
  }
  if (op == "elemwise_add" || op == "elemwise_sub") {
    return map_plan(ctx, infer::infer_elemwise_binary(ctx),
                    op == "elemwise_add" ? kMapAdd : kMapSub);
  }
  const int p = infer::precision_attr(ctx);
  if (op == "cvm_clip") return unary(ctx, p, kMapClamp, -alpha(p), alpha(p));
  const bool left = op == "cvm_left_shift";
  check(left || op == "cvm_right_shift", "plan_elementwise: unexpected operator ", op);
  const int shift = infer::shift_attr(ctx, left);
  return unary(ctx, p, left ? kMapLeftShift : kMapRightShift, -alpha(p), alpha(p), shift);
}

}  // namespace cvm::cuda
