// "cuda-host": runs a CUDA plan on the CPU, calling exactly the per-item function the device
// kernels call (step_item, cuda/step_device.h), one work item after another, in the same order
// of steps; a tiled GEMM step runs CTA by CTA with mma.sync emulated (cuda/gemm_host.h). The
// host setup (validation, inference, plan) is the CUDA backend's own, so every differential
// test of this backend checks the CUDA kernels' logic without a GPU.
#include "cuda/gemm_host.h"
#include "cuda/nms_host.h"
#include "cuda/paths.h"
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

// A warp per output: the 32 lanes' shares one lane after another, then the shuffle tree over
// them as the device runs it (cuda/warp_device.h); lane 0 holds the result.
void run_reduce_warp(const FastReduceParams& p, const InView& in, int32_t* out, int64_t outputs) {
  for (int64_t o = 0; o < outputs; ++o) {
    ReducePartial lanes[kWarp];
    for (int32_t lane = 0; lane < kWarp; ++lane) lanes[lane] = reduce_lane(p, in, o, lane);
    warp_reduce_emulated(lanes, p.planted, [](const ReducePartial& a, const ReducePartial& b) {
      return combine(a, b);
    });
    out[o] = finish(p.r, lanes[0]);
  }
}

std::vector<Tensor> run_on_host(const Plan& plan) {
  std::vector<Tensor> outputs;
  for (const infer::OutputSpec& spec : plan.outputs) outputs.push_back(infer::allocate(spec));
  Buffer<int32_t> scratch(static_cast<size_t>(plan.scratch_elements));
  Buffer<int64_t> wide(static_cast<size_t>(plan.wide_scratch_elements));
  for (const Step& step : plan.steps) {
    const Views v = views_of(plan, step);
    path::hit(step.kind);
    path::hit_index_width(step);
    if (step.kind == StepKind::kGemm) {
      run_gemm_host(step.gemm, v, outputs[static_cast<size_t>(step.output)].i32());
      continue;
    }
    if (step.kind == StepKind::kReduceWarp) {
      run_reduce_warp(step.fast_reduce, v.in[0], outputs[static_cast<size_t>(step.output)].i32(),
                      step.count);
      continue;
    }
    StepOutputs o;
    o.out = outputs[static_cast<size_t>(step.output)].i32();
    o.count = outputs[0].i32();
    o.y = outputs.size() > 1 ? outputs[1].i32() : nullptr;
    o.scratch = scratch.data();
    o.wide = wide.data();
    if (run_vision_host(step, v, o)) continue;
    with_step_params(step, [&](const auto& params) {
      for (int64_t i = 0; i < step.count; ++i) step_item(params, v, o, i);
    });
  }
  return outputs;
}

}  // namespace

Backend make_host_backend() { return make_backend("cuda-host", run_on_host); }

Backend make_host_backend(const std::string& name, const KernelChoice& choice) {
  return make_backend(name, run_on_host, choice);
}

std::vector<Backend> make_host_variants() {
  return make_variants(make_host_backend(), run_on_host);
}

}  // namespace cvm::cuda
