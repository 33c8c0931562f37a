// Plans of the nn family: the production inference (infer/nn) validates and infers on the host.
// relu is a map; upsampling is an affine gather (h / scale, w / scale).
#include "cuda/plan.h"
#include "infer/nn.h"

namespace cvm::cuda {
namespace {

Step one_step(StepKind kind, const infer::OutputSpec& spec, int inputs) {
  Step step;
  step.kind = kind;
  step.count = shape_size(spec.shape);
  for (int k = 0; k < inputs; ++k) step.input[k] = k;
  return step;
}

Plan conv2d(const OpContext& ctx) {
  const infer::Conv2dInference c = infer::infer_conv2d(ctx);
  Plan plan = single_output_plan(ctx, c.output);
  Step step = one_step(StepKind::kConv2d, c.output, c.use_bias ? 3 : 2);
  step.conv2d = {c.batch,        c.in_channels,   c.height,          c.width,      c.channels,
                 c.in_per_group, c.out_per_group, c.kernel_h,        c.kernel_w,   c.stride_h,
                 c.stride_w,     c.pad_h,         c.pad_w,           c.dilation_h, c.dilation_w,
                 c.out_h,        c.out_w,         c.use_bias ? 1 : 0};
  plan.steps.push_back(step);
  return plan;
}

Plan dense(const OpContext& ctx) {
  const infer::DenseInference d = infer::infer_dense(ctx);
  Plan plan = single_output_plan(ctx, d.output);
  Step step = one_step(StepKind::kDense, d.output, d.use_bias ? 3 : 2);
  step.dense = {d.rows, d.depth, d.units, d.use_bias ? 1 : 0};
  plan.steps.push_back(step);
  return plan;
}

Plan max_pool2d(const OpContext& ctx) {
  const infer::MaxPool2dInference m = infer::infer_max_pool2d(ctx);
  Plan plan = single_output_plan(ctx, m.output);
  Step step = one_step(StepKind::kPool, m.output, 1);
  step.pool = {m.batch * m.channels, m.height, m.width, m.pool_h, m.pool_w, m.stride_h,
               m.stride_w,           m.pad_h,  m.pad_w, m.out_h,  m.out_w};
  plan.steps.push_back(step);
  return plan;
}

Plan upsampling(const OpContext& ctx) {
  const infer::UpsamplingInference u = infer::infer_upsampling(ctx);
  Plan plan = single_output_plan(ctx, u.output);
  Step step = one_step(StepKind::kGather, u.output, 1);
  step.gather.dims = to_dims(u.output.shape);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (int j = 0; j < 4; ++j) {
    step.gather.axis[j].mult = strides[static_cast<size_t>(j)];
    if (j >= 2) step.gather.axis[j].div = u.scale;
  }
  plan.steps.push_back(step);
  return plan;
}

}  // namespace

Plan plan_nn(const OpContext& ctx) {
  const std::string& op = ctx.op.name;
  if (op == "conv2d") return conv2d(ctx);
  if (op == "dense") return dense(ctx);
  if (op == "max_pool2d") return max_pool2d(ctx);
  if (op == "upsampling") return upsampling(ctx);
  check(op == "relu", "plan_nn: unexpected operator ", op);
  const infer::OutputSpec out = infer::infer_relu(ctx);
  Plan plan = single_output_plan(ctx, out);
  Step step = one_step(StepKind::kMap, out, 1);
  step.map.op = kMapRelu;
  step.map.out = to_dims(out.shape);
  plan.steps.push_back(step);
  return plan;
}

}  // namespace cvm::cuda
