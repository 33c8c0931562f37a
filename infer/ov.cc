#include "infer/ov.h"

#include <algorithm>
#include <array>

namespace cvm::infer {
namespace {

constexpr std::array<const char*, 5> kMaskNames = {"begin_mask", "end_mask", "new_axis_mask",
                                                   "shrink_axis_mask", "ellipsis_mask"};

// Step i's bit of a mask; a mask shorter than the step list reads as 0 past its end.
bool mask_bit(const Tuple& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// One step's kind, decided once from the masks.
enum class StepKind { kSlice, kNewAxis, kShrink, kEllipsis };

struct Step {
  StepKind kind = StepKind::kSlice;
  bool begin_masked = false, end_masked = false;
};

// The plain slice begin:end:stride of an axis of size n (numpy's rules). Negative entries get
// + n once and everything is clamped before any other arithmetic, so no int64 extreme overflows.
OvSliceAxis slice_axis(int64_t begin, int64_t end, int64_t stride, const Step& step, int64_t n,
                       size_t index) {
  const bool reverse = stride < 0;
  int64_t first = 0, stop = 0;
  if (step.begin_masked) {
    first = reverse ? n - 1 : 0;
  } else {
    first = begin < 0 ? begin + n : begin;
    first = reverse ? std::clamp<int64_t>(first, 0, n - 1) : std::clamp<int64_t>(first, 0, n);
  }
  if (step.end_masked) {
    stop = reverse ? -1 : n;
  } else {
    stop = end < 0 ? end + n : end;
    stop = reverse ? std::clamp<int64_t>(stop, -1, n) : std::clamp<int64_t>(stop, 0, n);
  }
  const int64_t extent = reverse ? first - stop : stop - first;  // |range|, at most n + 1
  if (extent <= 0) {
    fail_rule("empty_slice", "step ", index, ": slice ", begin, ":", end, ":", stride,
              " of an axis of size ", n, " is empty (zero-size dims do not exist)");
  }
  // |stride| as an unsigned value: INT64_MIN has no int64 magnitude.
  const uint64_t magnitude =
      reverse ? ~static_cast<uint64_t>(stride) + 1 : static_cast<uint64_t>(stride);
  OvSliceAxis axis;
  axis.start = first;
  axis.count = static_cast<int64_t>((static_cast<uint64_t>(extent) - 1) / magnitude) + 1;
  axis.step = axis.count == 1 ? 0 : stride;  // count > 1 implies |stride| < n
  return axis;
}

// The five mask lists (kMaskNames' order), each entry 0 or 1.
std::array<const Tuple*, 5> read_masks(const OpContext& ctx) {
  std::array<const Tuple*, 5> masks{};
  for (size_t k = 0; k < masks.size(); ++k) {
    masks[k] = &ctx.attrs.tuple(kMaskNames[k]);
    for (size_t i = 0; i < masks[k]->size(); ++i) {
      const int64_t v = (*masks[k])[i];
      if (v != 0 && v != 1) {
        fail_rule("mask_value_not_0_or_1", kMaskNames[k], " entry ", i, " is ", v, ", not 0 or 1");
      }
    }
  }
  return masks;
}

struct StepKinds {
  std::vector<Step> steps;
  size_t consuming = 0;  // steps that consume an input axis (slice, shrink)
  bool has_ellipsis = false;
};

// Each step's kind and masks, with the rules on how masks combine.
StepKinds step_kinds(size_t steps, const std::array<const Tuple*, 5>& masks) {
  const Tuple &begin_mask = *masks[0], &end_mask = *masks[1], &new_axis_mask = *masks[2],
              &shrink_mask = *masks[3], &ellipsis_mask = *masks[4];
  StepKinds out;
  out.steps.resize(steps);
  for (size_t i = 0; i < steps; ++i) {
    Step& step = out.steps[i];
    const bool is_new = mask_bit(new_axis_mask, i), is_shrink = mask_bit(shrink_mask, i),
               is_ellipsis = mask_bit(ellipsis_mask, i);
    if (int{is_new} + int{is_shrink} + int{is_ellipsis} > 1) {
      fail_rule("two_masks_at_one_step", "step ", i,
                " sets more than one of new_axis, shrink_axis and ellipsis masks");
    }
    step.begin_masked = mask_bit(begin_mask, i);
    step.end_masked = mask_bit(end_mask, i);
    if (is_shrink && (step.begin_masked || step.end_masked)) {
      fail_rule("two_masks_at_one_step", "step ", i,
                " is a shrink step with begin_mask or end_mask set");
    }
    if (is_ellipsis) {
      if (out.has_ellipsis) {
        fail_rule("more_than_one_ellipsis", "ellipsis_mask sets more than one step");
      }
      out.has_ellipsis = true;
      step.kind = StepKind::kEllipsis;
    } else if (is_new) {
      step.kind = StepKind::kNewAxis;
    } else {
      step.kind = is_shrink ? StepKind::kShrink : StepKind::kSlice;
      ++out.consuming;
    }
  }
  return out;
}

}  // namespace

OvSlicePlan infer_ov_strided_slice(const OpContext& ctx) {
  if (ctx.inputs.size() != 1) {
    fail_rule(rules::kInputCount, "expected 1 input, got ", ctx.inputs.size());
  }
  validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tuple& begin = ctx.attrs.tuple("begin");
  const Tuple& end = ctx.attrs.tuple("end");
  const Tuple& stride = ctx.attrs.tuple("stride");
  const size_t steps = begin.size();
  if (end.size() != steps) {
    fail_rule("begin_end_length_mismatch", "end has ", end.size(), " entries, begin ", steps);
  }
  if (!stride.empty() && stride.size() != steps) {
    fail_rule("stride_length_mismatch", "stride has ", stride.size(),
              " entries; it must be () or have ", steps);
  }
  for (size_t i = 0; i < stride.size(); ++i) {
    if (stride[i] == 0) fail_rule("stride_zero", "stride entry ", i, " is 0");
  }
  const StepKinds kinds = step_kinds(steps, read_masks(ctx));
  const std::vector<Step>& plan_steps = kinds.steps;
  const size_t consuming = kinds.consuming;
  const bool has_ellipsis = kinds.has_ellipsis;
  const auto rank = static_cast<size_t>(x.ndim());
  if (consuming > rank) {
    fail_rule("more_steps_than_input_axes", consuming,
              " steps consume input axes but the input has ", rank);
  }
  const size_t whole_axes = rank - consuming;  // the ellipsis, explicit or implicit at the end

  OvSlicePlan plan;
  plan.axes.reserve(rank);
  Shape& shape = plan.output.shape;
  auto copy_whole = [&] {
    for (size_t k = 0; k < whole_axes; ++k) {
      const int64_t n = x.dim(static_cast<int>(plan.axes.size()));
      plan.axes.push_back({0, n == 1 ? 0 : 1, n});
      shape.push_back(n);
    }
  };
  for (size_t i = 0; i < steps; ++i) {
    switch (plan_steps[i].kind) {
      case StepKind::kNewAxis: shape.push_back(1); break;
      case StepKind::kEllipsis: copy_whole(); break;
      case StepKind::kShrink: {
        const int64_t n = x.dim(static_cast<int>(plan.axes.size()));
        if (begin[i] < -n || begin[i] >= n) {
          fail_rule("shrink_index_out_of_range", "step ", i, ": shrink index ", begin[i],
                    " not in [", -n, ", ", n, ")");
        }
        plan.axes.push_back({begin[i] < 0 ? begin[i] + n : begin[i], 0, 1});
        break;
      }
      case StepKind::kSlice: {
        const int64_t n = x.dim(static_cast<int>(plan.axes.size()));
        const int64_t s = stride.empty() ? 1 : stride[i];
        plan.axes.push_back(slice_axis(begin[i], end[i], s, plan_steps[i], n, i));
        shape.push_back(plan.axes.back().count);
        break;
      }
    }
  }
  if (!has_ellipsis) copy_whole();
  // A 0-d result (every axis shrunk, no new axis) or more than 6 dims is refused here.
  plan.output.precision = x.precision();
  validate_output(plan.output);
  return plan;
}

}  // namespace cvm::infer
