// Plans of the vision family and ov_strided_slice. Validation and output inference are the
// shared infer/vision.* and infer/ov.* (as for the optimized backend); this file only turns
// their results into steps. The vision steps run one work item per batch; ov_strided_slice is an
// affine gather.
#include "cuda/plan.h"
#include "infer/ov.h"
#include "infer/vision.h"

namespace cvm::cuda {
namespace {

// The device functions hard-code the row layout that infer/ validates.
static_assert(kNmsRow == infer::kNmsRowLength);

Plan get_valid_counts(const OpContext& ctx) {
  const infer::GetValidCountsInference v = infer::infer_get_valid_counts(ctx);
  Plan plan = single_output_plan(ctx, v.count);
  plan.outputs.push_back(v.rows);  // validated by the inference
  Step step;
  step.kind = StepKind::kValidCounts;
  step.count = v.batches;
  step.input[0] = 0;
  step.valid_counts = {v.batches, v.row_count, v.row_length, v.score_threshold};
  plan.steps.push_back(step);
  return plan;
}

Plan non_max_suppression(const OpContext& ctx) {
  const infer::NmsInference n = infer::infer_nms(ctx);
  Plan plan = single_output_plan(ctx, n.output);
  Step step;
  step.kind = StepKind::kNms;
  step.count = n.batches;
  step.input[0] = 0;
  step.input[1] = 1;
  NmsParams& p = step.nms;
  p.batches = n.batches;
  p.rows = n.row_count;
  p.iou_threshold = n.iou_threshold;
  p.max_output_size = n.max_output_size;
  p.top_k = n.top_k;
  p.force_suppress = n.force_suppress ? 1 : 0;
  plan.steps.push_back(step);
  plan.scratch_elements = 3 * n.batches * n.row_count;  // <= 3 * 2^30 / 6
  return plan;
}

// The gather iterates over the input's axes with each axis's count as its extent, not over the
// output dims: new axes (size 1) and shrunk axes (count 1) do not change the row-major order, so
// both spaces list the same elements in the same order and the destination is the item index.
Plan ov_strided_slice(const OpContext& ctx) {
  const infer::OvSlicePlan s = infer::infer_ov_strided_slice(ctx);
  Plan plan = single_output_plan(ctx, s.output);
  Step step;
  step.kind = StepKind::kGather;
  step.count = shape_size(s.output.shape);
  step.input[0] = 0;
  GatherParams& g = step.gather;
  const std::vector<int64_t> strides = strides_of(ctx.inputs[0].shape());
  Shape counts;
  for (size_t a = 0; a < s.axes.size(); ++a) {
    const infer::OvSliceAxis& axis = s.axes[a];
    counts.push_back(axis.count);
    g.src_base += axis.start * strides[a];
    g.axis[a].mult = axis.step * strides[a];  // step is 0 for a lone element, else |step| < n
  }
  g.dims = to_dims(counts);
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
