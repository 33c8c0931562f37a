// Plans of the vision family and ov_strided_slice. Validation and output inference come from
// cuda/interim_infer_vision_ov.h for now (switch to infer/vision.* and infer/ov.* after the
// merge). The vision steps run one work item per batch; ov_strided_slice is an affine gather.
#include "cuda/interim_infer_vision_ov.h"
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

Plan get_valid_counts(const OpContext& ctx) {
  const interim::ValidCountsInference v = interim::infer_get_valid_counts(ctx);
  Plan plan = single_output_plan(ctx, v.count);
  infer::validate_output(v.boxes);
  plan.outputs.push_back(v.boxes);
  Step step;
  step.kind = StepKind::kValidCounts;
  step.count = v.params.batches;
  step.input[0] = 0;
  step.valid_counts = v.params;
  plan.steps.push_back(step);
  return plan;
}

Plan non_max_suppression(const OpContext& ctx) {
  const interim::NmsInference n = interim::infer_non_max_suppression(ctx);
  Plan plan = single_output_plan(ctx, n.output);
  Step step;
  step.kind = StepKind::kNms;
  step.count = n.params.batches;
  step.input[0] = 0;
  step.input[1] = 1;
  step.nms = n.params;
  plan.steps.push_back(step);
  plan.scratch_elements = 3 * n.params.batches * n.params.rows;  // <= 3 * 2^30 / 6
  return plan;
}

Plan ov_strided_slice(const OpContext& ctx) {
  const interim::OvSliceInference s = interim::infer_ov_strided_slice(ctx);
  Plan plan = single_output_plan(ctx, s.output);
  Step step;
  step.kind = StepKind::kGather;
  step.count = shape_size(s.output.shape);
  step.input[0] = 0;
  GatherParams& g = step.gather;
  g.dims = to_dims(s.output.shape);
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  for (size_t a = 0; a < s.fixed_index.size(); ++a) {
    if (s.fixed_index[a] >= 0) g.src_base += s.fixed_index[a] * strides[a];
  }
  for (size_t j = 0; j < s.axes.size(); ++j) {
    const interim::OvAxis& axis = s.axes[j];
    if (axis.in_axis < 0) continue;  // a new axis: size 1, reads nothing
    const int64_t stride = strides[static_cast<size_t>(axis.in_axis)];
    g.src_base += axis.begin * stride;
    g.axis[j].mult = axis.stride * stride;
  }
  plan.steps.push_back(step);
  return plan;
}

}  // namespace

Plan plan_vision_ov(const OpContext& ctx) {
  const std::string& op = ctx.op.name;
  if (op == "get_valid_counts") return get_valid_counts(ctx);
  if (op == "non_max_suppression") return non_max_suppression(ctx);
  check(op == "ov_strided_slice", "plan_vision_ov: unexpected operator ", op);
  return ov_strided_slice(ctx);
}

}  // namespace cvm::cuda
