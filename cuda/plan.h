// The host-side setup shared by the "cuda" backend and its CPU emulation "cuda-host": an
// operator call becomes a Plan (validated output specs plus a list of steps, each one kernel
// launch over `count` work items with its parameter block). Building the plan validates every
// input and attribute and infers every output shape and precision, so invalid calls are
// LogicErrors before any allocation or device work. A runner then executes the steps: on the
// device (cuda/device_runner.cu) or in a plain loop over the same per-item functions
// (cuda/host_runner.cc).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cuda/step_device.h"
#include "infer/common.h"

namespace cvm::cuda {

// StepKind and Step: cuda/step_device.h.

struct Plan {
  std::vector<const Tensor*> inputs;
  std::vector<infer::OutputSpec> outputs;  // validated
  std::vector<Step> steps;
  int64_t scratch_elements = 0;       // int32 scratch for the steps that need it (NMS)
  int64_t wide_scratch_elements = 0;  // int64 scratch (split reductions' partials, NMS masks)
};

// Which kernels a backend's plans take. The default is the fast kernels, each choosing its
// strategy by the call's shapes; the variants force one strategy onto the campaign's small
// shapes (make_variants), and cuda/simple keeps every one-thread-per-element kernel.
enum ReduceStrategy : int32_t {
  kReduceAuto = 0,   // by the reduced axes' layout (cuda/reduce_device.h)
  kReduceWarp = 1,   // every reduction: one warp per output
  kReduceSplit = 2,  // every reduction: split over chunks of kSplitChunkForced elements
};

struct KernelChoice {
  bool tiled = true;                // false: cuda/simple, one thread per element or batch
  int32_t tile = kTileWide;         // TileId of the tiled GEMM
  int32_t reduce = kReduceAuto;     // ReduceStrategy
  int32_t nms_block = kNmsBlock;    // boxes per NMS mask word (cuda/nms_device.h)
  int32_t planted = kNoFault;       // tests only (PlantedFault)
};

// Executes a plan; returns the outputs (int32, with the specs' shapes and precisions).
using Runner = std::vector<Tensor> (*)(const Plan&);

// Builds the plan of one call (LogicError for an invalid call). Unknown operator names are a
// RuntimeError (the backend registers only the operators it plans).
Plan build_plan(const OpContext& ctx, const KernelChoice& choice = {});
// Replaces the builders' one-thread-per-element steps by the fast kernels' steps of `choice`
// (cuda/plan_fast.cc); cuda/simple's choice keeps them.
void choose_kernels(Plan& plan, const KernelChoice& choice);
// Replaces a one-thread-per-element conv2d or dense step by the tiled GEMM step (or the
// depthwise step) of `choice` (cuda/plan_gemm.cc); other steps stay.
void retile(Step& step, const KernelChoice& choice);
// Replaces the one-thread-per-batch get_valid_counts and non_max_suppression steps by the
// parallel ones of `choice` (cuda/plan_nms.cc, cuda/nms_device.h), with their scratch.
void parallel_vision(Plan& plan, const KernelChoice& choice);
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
// "cuda-host": the device kernels' functions on the CPU (every build), the warp primitives
// and mma.sync emulated.
Backend make_host_backend();
// A CPU backend of any kernel choice (tests: planted faults).
Backend make_host_backend(const std::string& name, const KernelChoice& choice);
// "cuda": the device kernels; unavailable (with the reason) without a device or without nvcc.
Backend make_device_backend();

// The variants of a CUDA backend, one list for cuda-host and cuda (docs/cuda.md, "Variants"):
// each forces one kernel choice and runs only the operators whose plans it changes (all of
// them for /simple, the baseline of the speed table).
struct VariantChoice {
  std::string suffix;
  KernelChoice choice;
  std::set<std::string> ops;  // empty: every planned operator
};
const std::vector<VariantChoice>& variant_choices();
// The variants of `base` (availability as base's), running on `runner`.
std::vector<Backend> make_variants(const Backend& base, Runner runner);
std::vector<Backend> make_host_variants();
std::vector<Backend> make_device_variants(const Backend& device);

// Kernel timing for the benchmark (bench/cuda): when on, each call on the device records CUDA
// events around its launches, and last_kernel_ms() gives the device time of the last call's
// kernels alone (no allocation, no copies); 0 when off or without a device.
void set_kernel_timing(bool on);
double last_kernel_ms();

}  // namespace cvm::cuda
