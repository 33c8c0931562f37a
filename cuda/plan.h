// The host-side setup shared by the "cuda" backend and its CPU emulation "cuda-host": an
// operator call becomes a Plan (validated output specs plus a list of steps, each one kernel
// launch over `count` work items with its parameter block). Building the plan validates every
// input and attribute and infers every output shape and precision, so invalid calls are
// LogicErrors before any allocation or device work. A runner then executes the steps: on the
// device (cuda/device_runner.cu) or in a plain loop over the same per-item functions
// (cuda/host_runner.cc).
#pragma once

#include <vector>

#include "cuda/step_device.h"
#include "infer/common.h"

namespace cvm::cuda {

// StepKind and Step: cuda/step_device.h.

struct Plan {
  std::vector<const Tensor*> inputs;
  std::vector<infer::OutputSpec> outputs;  // validated
  std::vector<Step> steps;
  int64_t scratch_elements = 0;  // int32 scratch for the steps that need it (NMS)
};

// Which conv2d and dense kernels a backend's plans take (the other operators have one kernel).
struct KernelChoice {
  bool tiled = true;         // false: one thread per output element (cuda/simple)
  int32_t tile = kTileWide;  // TileId of the tiled GEMM
  int32_t planted = kNoFault;  // tests only (tests/cuda/gemm_planted_test.cc)
};

// Executes a plan; returns the outputs (int32, with the specs' shapes and precisions).
using Runner = std::vector<Tensor> (*)(const Plan&);

// Builds the plan of one call (LogicError for an invalid call). Unknown operator names are a
// RuntimeError (the backend registers only the operators it plans).
Plan build_plan(const OpContext& ctx, const KernelChoice& choice = {});
// Replaces a one-thread-per-element conv2d or dense step by the tiled GEMM step (or the
// depthwise step) of `choice` (cuda/plan_gemm.cc); other steps stay.
void retile(Step& step, const KernelChoice& choice);
// Canonical names of every operator build_plan handles.
std::vector<std::string> planned_ops();

// Plan builders by family (cuda/plan_*.cc).
Plan plan_elementwise(const OpContext& ctx);  // elementwise, broadcast, reduce
Plan plan_nn(const OpContext& ctx);
Plan plan_transform(const OpContext& ctx);  // transform_shape, transform_index
Plan plan_vision_ov(const OpContext& ctx);  // vision, ov

// Helpers for the builders.
Dims to_dims(const Shape& shape);
std::vector<int64_t> strides_of(const Shape& shape);
// A plan with every input of ctx, one validated output and no steps yet.
Plan single_output_plan(const OpContext& ctx, const infer::OutputSpec& spec);

// The backend whose kernels build a plan of `choice` and run it with `runner`.
Backend make_backend(const std::string& name, Runner runner, const KernelChoice& choice = {});
// "cuda-host": the device kernels' functions on the CPU (every build), mma.sync emulated.
Backend make_host_backend();
// Its variants (variant_of "cuda-host"): "cuda-host@tile" (the small tile, so small calls take
// every tile path) and "cuda-host/simple" (the one-thread-per-element kernels).
std::vector<Backend> make_host_variants();
// A CPU backend of any kernel choice (tests: planted faults).
Backend make_host_backend(const std::string& name, const KernelChoice& choice);
// "cuda": the device kernels; unavailable (with the reason) without a device or without nvcc.
Backend make_device_backend();
// Its variants "cuda@tile" and "cuda/simple" (the baseline of the speed table), alike.
std::vector<Backend> make_device_variants(const Backend& device);
// The variant of `base` with `choice` (name: base + suffix); availability as base's.
Backend make_variant(const Backend& base, const std::string& suffix, Runner runner,
                     const KernelChoice& choice);

// Kernel timing for the benchmark (bench/cuda): when on, each call on the device records CUDA
// events around its launches, and last_kernel_ms() gives the device time of the last call's
// kernels alone (no allocation, no copies); 0 when off or without a device.
void set_kernel_timing(bool on);
double last_kernel_ms();

}  // namespace cvm::cuda
