// Plans of the transform_shape and transform_index families. Validation and output inference
// are the shared infer/transform_shape.* and infer/transform_index.* (as for the optimized
// backend); this file only turns their results into steps. Almost every operator is one affine
// gather over the output; concatenate is one scatter-style gather per input; take and cvm_lut
// are take steps; where is a map with a row map for a 1-D condition.
#include "cuda/plan.h"
#include "infer/transform_index.h"
#include "infer/transform_shape.h"

namespace cvm::cuda {
namespace {

// One gather over the output; the caller fills the axis maps (default: coord = d, mult 0).
Plan gather_plan(const OpContext& ctx, const infer::OutputSpec& spec, GatherParams** params) {
  Plan plan = single_output_plan(ctx, spec);
  Step step;
  step.kind = StepKind::kGather;
  step.count = shape_size(spec.shape);
  step.input[0] = 0;
  step.gather.dims = to_dims(spec.shape);
  plan.steps.push_back(step);
  *params = &plan.steps[0].gather;
  return plan;
}

// Y[i] = X[i] under a new shape: a gather over one flat axis (a Dims, not a Shape: it may be
// longer than the 2^24 dim limit).
Plan copy_plan(const OpContext& ctx, const infer::OutputSpec& spec) {
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, spec, &g);
  g->dims.n = 1;
  g->dims.d[0] = shape_size(spec.shape);
  g->axis[0].mult = 1;
  return plan;
}

Plan repeat(const OpContext& ctx) {
  const infer::RepeatInference r = infer::infer_repeat(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, r.output, &g);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (size_t j = 0; j < strides.size(); ++j) g->axis[j].mult = strides[j];
  g->axis[r.axis].div = r.repeats;  // each element repeated in place
  return plan;
}

Plan tile(const OpContext& ctx) {
  const infer::TileInference t = infer::infer_tile(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, t.output, &g);
  // The source is the input right-aligned to the output's rank with leading 1s: it has the
  // input's row-major layout, and on a leading axis the coordinate wraps to 0.
  const std::vector<int64_t> strides = strides_of(t.source);
  for (size_t j = 0; j < t.source.size(); ++j) {
    g->axis[j].mod = t.source[j];  // every axis wraps
    g->axis[j].mult = strides[j];
  }
  return plan;
}

Plan transpose(const OpContext& ctx) {
  const infer::TransposeInference t = infer::infer_transpose(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, t.output, &g);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (size_t j = 0; j < t.axes.size(); ++j)
    g->axis[j].mult = strides[static_cast<size_t>(t.axes[j])];
  return plan;
}

Plan concatenate(const OpContext& ctx) {
  const infer::ConcatInference c = infer::infer_concatenate(ctx);
  Plan plan = single_output_plan(ctx, c.output);
  const std::vector<int64_t> out_strides = strides_of(c.output.shape);
  int64_t offset = 0;  // along the axis
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Shape& shape = ctx.inputs[k].shape();
    Step step;
    step.kind = StepKind::kGather;
    step.count = shape_size(shape);
    step.input[0] = static_cast<int>(k);
    GatherParams& g = step.gather;
    g.dims = to_dims(shape);
    g.dst_identity = 0;
    g.dst_base = offset * out_strides[static_cast<size_t>(c.axis)];
    const std::vector<int64_t> strides = strides_of(shape);
    for (size_t j = 0; j < shape.size(); ++j) {
      g.axis[j].mult = strides[j];
      g.dst_mult[j] = out_strides[j];
    }
    offset += shape[static_cast<size_t>(c.axis)];
    plan.steps.push_back(step);
  }
  return plan;
}

Plan strided_slice(const OpContext& ctx) {
  const infer::SliceInference s = infer::infer_strided_slice(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, s.output, &g);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (size_t j = 0; j < strides.size(); ++j) {
    const infer::SliceAxis& a = s.axes[j];
    g->src_base += a.begin * strides[j];
    // A lone element's stride is never taken and may be as large as INT64_MAX: use 0. Otherwise
    // |stride| < n_j, so the product stays below 2^30 in magnitude.
    g->axis[j].mult = a.size == 1 ? 0 : a.stride * strides[j];
  }
  return plan;
}

Plan slice_like(const OpContext& ctx) {
  const infer::OutputSpec out = infer::infer_slice_like(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, out, &g);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (size_t j = 0; j < strides.size(); ++j) g->axis[j].mult = strides[j];
  return plan;
}

Plan pad(const OpContext& ctx) {
  const infer::PadInference p = infer::infer_pad(ctx);
  GatherParams* g = nullptr;
  Plan plan = gather_plan(ctx, p.output, &g);
  const Shape& in = ctx.inputs[0].shape();
  const std::vector<int64_t> strides = strides_of(in);
  for (size_t j = 0; j < in.size(); ++j) {
    g->axis[j] = {1, 0, p.before[j], in[j], strides[j]};
  }
  g->pad_value = p.value;
  return plan;
}

Plan take_plan(const OpContext& ctx, const infer::OutputSpec& spec, int data, int indices,
               const TakeParams& params) {
  Plan plan = single_output_plan(ctx, spec);
  Step step;
  step.kind = StepKind::kTake;
  step.count = shape_size(spec.shape);
  step.input[0] = data;
  step.input[1] = indices;
  step.take = params;
  plan.steps.push_back(step);
  return plan;
}

Plan take(const OpContext& ctx) {
  const infer::TakeInference t = infer::infer_take(ctx);
  const Tensor& x = ctx.inputs[0];
  TakeParams p;
  if (!t.axis) {
    p.extent = x.size();
    return take_plan(ctx, t.output, 0, 1, p);
  }
  p.flat = 0;
  p.extent = x.dim(*t.axis);
  p.positions = ctx.inputs[1].size();
  for (int j = *t.axis + 1; j < x.ndim(); ++j) p.inner *= x.dim(j);
  return take_plan(ctx, t.output, 0, 1, p);
}

Plan where(const OpContext& ctx) {
  const infer::WhereInference w = infer::infer_where(ctx);
  Plan plan = single_output_plan(ctx, w.output);
  Step step;
  step.kind = StepKind::kMap;
  step.count = shape_size(w.output.shape);
  step.input[0] = 0;
  step.input[1] = 1;
  step.input[2] = 2;
  step.map.op = kMapWhere;
  step.map.arity = 3;
  step.map.out = to_dims(w.output.shape);
  if (w.by_rows) {
    step.map.in[0].identity = 0;
    step.map.in[0].mult[0] = 1;  // the condition is read at the row's index
  }
  plan.steps.push_back(step);
  return plan;
}

}  // namespace

Plan plan_transform(const OpContext& ctx) {
  const std::string& op = ctx.op.name;
  infer::validate_inputs(ctx);  // infer/transform_* leave the inputs to the caller
  if (op == "flatten") return copy_plan(ctx, infer::infer_flatten(ctx));
  if (op == "expand_dims") return copy_plan(ctx, infer::infer_expand_dims(ctx));
  if (op == "reshape") return copy_plan(ctx, infer::infer_reshape(ctx));
  if (op == "squeeze") return copy_plan(ctx, infer::infer_squeeze(ctx));
  if (op == "repeat") return repeat(ctx);
  if (op == "tile") return tile(ctx);
  if (op == "transpose") return transpose(ctx);
  if (op == "concatenate") return concatenate(ctx);
  if (op == "strided_slice") return strided_slice(ctx);
  if (op == "slice_like") return slice_like(ctx);
  if (op == "pad") return pad(ctx);
  if (op == "take") return take(ctx);
  if (op == "where") return where(ctx);
  check(op == "cvm_lut", "plan_transform: unexpected operator ", op);
  const infer::OutputSpec out = infer::infer_cvm_lut(ctx);
  TakeParams p;
  p.extent = ctx.inputs[1].size();
  return take_plan(ctx, out, 1, 0, p);  // the table is the data, input 0 the indices
}

}  // namespace cvm::cuda
