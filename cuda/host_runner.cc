// "cuda-host": runs a CUDA plan on the CPU, calling exactly the per-item functions the device
// kernels call (cuda/*_device.h), one work item after another, in the same order of steps. The
// host setup (validation, inference, plan) is the CUDA backend's own, so every differential
// test of this backend checks the CUDA kernels' logic without a GPU.
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

Views views_of(const Plan& plan, const Step& step) {
  Views views;
  for (int k = 0; k < 3; ++k) {
    if (step.input[k] < 0) continue;
    const Tensor& t = *plan.inputs[static_cast<size_t>(step.input[k])];
    const bool int8 = t.dtype() == DType::kInt8;
    views.in[k].data = int8 ? static_cast<const void*>(t.i8()) : static_cast<const void*>(t.i32());
    views.in[k].is_int8 = int8 ? 1 : 0;
  }
  return views;
}

std::vector<Tensor> run_on_host(const Plan& plan) {
  std::vector<Tensor> outputs;
  for (const infer::OutputSpec& spec : plan.outputs) outputs.push_back(infer::allocate(spec));
  Buffer<int32_t> scratch(static_cast<size_t>(plan.scratch_elements));
  for (const Step& step : plan.steps) {
    const Views v = views_of(plan, step);
    int32_t* out = outputs[static_cast<size_t>(step.output)].i32();
    const int64_t n = step.count;
    switch (step.kind) {
      case StepKind::kMap:
        for (int64_t i = 0; i < n; ++i) out[i] = map_element(step.map, v, i);
        break;
      case StepKind::kGather:
        for (int64_t i = 0; i < n; ++i) gather_element(step.gather, v.in[0], out, i);
        break;
      case StepKind::kTake:
        for (int64_t i = 0; i < n; ++i) out[i] = take_element(step.take, v, i);
        break;
      case StepKind::kReduce:
        for (int64_t i = 0; i < n; ++i) out[i] = reduce_element(step.reduce, v.in[0], i);
        break;
      case StepKind::kConv2d:
        for (int64_t i = 0; i < n; ++i) out[i] = conv2d_element(step.conv2d, v, i);
        break;
      case StepKind::kDense:
        for (int64_t i = 0; i < n; ++i) out[i] = dense_element(step.dense, v, i);
        break;
      case StepKind::kPool:
        for (int64_t i = 0; i < n; ++i) out[i] = pool_element(step.pool, v.in[0], i);
        break;
      case StepKind::kValidCounts:
        for (int64_t b = 0; b < n; ++b) {
          valid_counts_batch(step.valid_counts, v.in[0], outputs[0].i32(), outputs[1].i32(), b);
        }
        break;
      case StepKind::kNms:
        for (int64_t b = 0; b < n; ++b) nms_batch(step.nms, v, out, scratch.data(), b);
        break;
    }
  }
  return outputs;
}

}  // namespace

Backend make_host_backend() { return make_backend("cuda-host", run_on_host); }

}  // namespace cvm::cuda
