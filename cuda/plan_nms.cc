// The parallel plans of get_valid_counts and non_max_suppression: plan_vision_ov builds the
// one-thread-per-batch step (cuda/simple); parallel_vision replaces it by the steps of
// cuda/nms_device.h when the choice is the fast kernels.
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

// Most int64 words of NMS masks in one call (256 MiB). The generators draw at most a few
// batches of 10 boxes, the benchmark 256 batches of 1024 boxes (4 Mi words with 64-box words);
// a call beyond it (one batch of over ~23000 boxes) keeps the one-thread-per-batch step rather
// than allocate a mask quadratic in its boxes.
constexpr int64_t kNmsMaskWordsMax = int64_t{1} << 25;

NmsLayout nms_layout(const NmsParams& n, const KernelChoice& choice) {
  NmsLayout l;
  l.batches = n.batches;
  l.rows = n.rows;
  l.top_k = n.top_k;
  l.scanned = n.top_k < 0 ? n.rows : min64(n.rows, n.top_k);
  l.block = choice.nms_block;
  check(l.block >= 1 && l.block <= 64, "NMS mask words hold 1 to 64 boxes, not ", l.block);
  l.words = (l.scanned + l.block - 1) / l.block;
  return l;
}

bool mask_fits(const NmsLayout& l) {
  // batches * rows <= 2^30 / 6 (the tensor limit), so neither product overflows.
  return l.scanned == 0 || l.words <= kNmsMaskWordsMax / (l.batches * l.scanned);
}

Step nms_step(StepKind kind, int64_t count, const Step& simple) {
  Step step;
  step.kind = kind;
  step.count = count;
  step.input[0] = simple.input[0];
  step.input[1] = simple.input[1];
  step.output = simple.output;
  return step;
}

// keys, sort, mask (none when no box is scanned), greedy, fill.
std::vector<Step> nms_steps(const Step& simple, const NmsLayout& l, const KernelChoice& choice) {
  const NmsParams& n = simple.nms;
  std::vector<Step> steps;
  steps.push_back(nms_step(StepKind::kNmsKeys, l.batches * l.rows, simple));
  steps.back().nms_keys = {l};
  steps.push_back(nms_step(StepKind::kNmsSort, l.batches, simple));
  steps.back().nms_sort = {l};
  if (l.scanned > 0) {
    steps.push_back(nms_step(StepKind::kNmsMask, l.batches * l.scanned * l.words, simple));
    steps.back().nms_mask = {l, n.iou_threshold, n.force_suppress, choice.planted};
  }
  steps.push_back(nms_step(StepKind::kNmsGreedy, l.batches, simple));
  steps.back().nms_greedy = {l, n.max_output_size};
  steps.push_back(nms_step(StepKind::kNmsFill, l.batches * l.rows * kNmsRow, simple));
  steps.back().nms_fill = {l};
  return steps;
}

}  // namespace

void parallel_vision(Plan& plan, const KernelChoice& choice) {
  if (!choice.tiled) return;
  std::vector<Step> steps;
  for (const Step& step : plan.steps) {
    if (step.kind == StepKind::kValidCounts) {
      Step warp = step;
      warp.kind = StepKind::kValidCountsWarp;
      warp.valid_counts_warp = {step.valid_counts};
      steps.push_back(warp);
      continue;
    }
    const NmsLayout l = step.kind == StepKind::kNms ? nms_layout(step.nms, choice) : NmsLayout{};
    if (step.kind != StepKind::kNms || !mask_fits(l)) {
      steps.push_back(step);
      continue;
    }
    for (const Step& s : nms_steps(step, l, choice)) steps.push_back(s);
    plan.scratch_elements = nms_scratch(l);
    plan.wide_scratch_elements = nms_wide_scratch(l);
  }
  plan.steps = std::move(steps);
}

}  // namespace cvm::cuda
