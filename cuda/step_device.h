// A plan step and its per-item dispatch, shared by both runners: "cuda-host" calls step_item in
// a CPU loop (cuda/host_runner.cc), the device kernel in a grid-stride loop
// (cuda/device_runner.cu), so which per-item function a step kind runs, and with which inputs
// and outputs, is written once and both backends run literally the same code per item.
//
// step_item is chosen at compile time by the kind's parameter type, not by a run-time switch
// inside it: each device kernel then holds one kind's code and takes that kind's parameters
// only, so its register count (so its occupancy) stays the kind's own (one kernel over every
// kind would take conv2d's 63 registers for a map's 32, and even the whole Step as the
// parameter block took pool from 32 registers to 40 with nvcc 13). with_step_params is the one
// run-time switch, for the host loop and for the device launch.
#pragma once

#include "cuda/gather_device.h"
#include "cuda/gemm_device.h"
#include "cuda/map_device.h"
#include "cuda/nms_device.h"
#include "cuda/nn_device.h"
#include "cuda/reduce_device.h"
#include "cuda/vision_device.h"

namespace cvm::cuda {

// kMap, kGather, kReduce, kConv2d, kDense, kValidCounts and kNms are the one-thread-per-element
// (or per-batch) kernels of cuda/simple. The fast kernels: kGemm, the tiled tensor-core GEMM of
// dense and conv2d; kDepthwise, depthwise conv2d's own; kMapVec and kGatherRun, 16-byte vectors;
// kReduceWarp (a warp per output), kReduceSplit and kReduceCombine (cuda/reduce_device.h); the
// parallel vision steps (cuda/nms_device.h): kValidCountsWarp and kNmsGreedy are one warp per
// batch, kNmsSort a library sort, the others one thread per item.
enum class StepKind {
  kMap, kGather, kTake, kReduce, kConv2d, kDense, kPool, kValidCounts, kNms, kGemm, kDepthwise,
  kMapVec, kGatherRun, kReduceWarp, kReduceSplit, kReduceCombine,
  kValidCountsWarp, kNmsKeys, kNmsSort, kNmsMask, kNmsGreedy, kNmsFill
};

struct Step {
  StepKind kind = StepKind::kMap;
  int64_t count = 0;  // work items: output elements, gather items, batches, or GEMM tiles
  int input[3] = {-1, -1, -1};  // indices into Plan::inputs, -1 when unused
  int output = 0;               // the output written (kValidCounts writes outputs 0 and 1)
  MapParams map;
  GatherParams gather;
  TakeParams take;
  ReduceParams reduce;
  Conv2dParams conv2d;
  DenseParams dense;
  PoolParams pool;
  ValidCountsParams valid_counts;
  NmsParams nms;
  GemmParams gemm;
  DepthwiseParams depthwise;
  FastReduceParams fast_reduce;  // kReduceWarp, kReduceSplit, kReduceCombine
  ValidCountsWarpParams valid_counts_warp;
  NmsKeysParams nms_keys;
  NmsSortParams nms_sort;
  NmsMaskParams nms_mask;
  NmsGreedyParams nms_greedy;
  NmsFillParams nms_fill;
};

// Distinct parameter types for the kinds that share a parameter struct, so that step_item's
// overload (and the device kernel's instantiation) is the kind's own.
struct VectorMapParams {
  MapParams map;
};
struct RunGatherParams {
  GatherParams gather;
};
struct SplitReduceParams {
  FastReduceParams reduce;
};
struct CombineReduceParams {
  FastReduceParams reduce;
};

// Where a step writes (host or device pointers, as the runner has them).
struct StepOutputs {
  int32_t* out = nullptr;      // the step's output
  int32_t* count = nullptr;    // outputs 0 and 1 (kValidCounts: valid_count and Y), or null
  int32_t* y = nullptr;
  int32_t* scratch = nullptr;  // the plan's int32 scratch (NMS)
  int64_t* wide = nullptr;     // the plan's int64 scratch (split partials, NMS masks)
};

// Work item i (an output element, a gather item, or a batch) of a step with parameters p: one
// overload per step kind, chosen by the parameters' type.
CVM_HD void step_item(const MapParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = map_element(p, v, i);
}
CVM_HD void step_item(const GatherParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  gather_element(p, v.in[0], o.out, i);
}
CVM_HD void step_item(const TakeParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = take_element(p, v, i);
}
CVM_HD void step_item(const ReduceParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = reduce_element(p, v.in[0], i);
}
CVM_HD void step_item(const Conv2dParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = conv2d_element(p, v, i);
}
CVM_HD void step_item(const DenseParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = dense_element(p, v, i);
}
CVM_HD void step_item(const PoolParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = pool_element(p, v.in[0], i);
}
CVM_HD void step_item(const ValidCountsParams& p, const Views& v, const StepOutputs& o,
                      int64_t i) {
  valid_counts_batch(p, v.in[0], o.count, o.y, i);
}
CVM_HD void step_item(const NmsParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  nms_batch(p, v, o.out, o.scratch, i);
}
CVM_HD void step_item(const DepthwiseParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = depthwise_element(p, v, i);
}
CVM_HD void step_item(const NmsKeysParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  nms_key_item(p, v, o.scratch, i);
}
CVM_HD void step_item(const NmsMaskParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  nms_mask_item(p, v, o.scratch, o.wide, i);
}
CVM_HD void step_item(const NmsFillParams& p, const Views& v, const StepOutputs& o, int64_t i) {
  o.out[i] = nms_fill_value(p, v, o.scratch, i);
}

CVM_HD void step_item(const VectorMapParams& p, const Views& v, const StepOutputs& o,
                      int64_t i) {
  map_vector_item(p.map, v, o.out, i);
}
CVM_HD void step_item(const RunGatherParams& p, const Views& v, const StepOutputs& o,
                      int64_t i) {
  gather_run_item(p.gather, v.in[0], o.out, i);
}
CVM_HD void step_item(const SplitReduceParams& p, const Views& v, const StepOutputs& o,
                      int64_t i) {
  reduce_split_item(p.reduce, v.in[0], o.wide, i);
}
CVM_HD void step_item(const CombineReduceParams& p, const Views&, const StepOutputs& o,
                      int64_t i) {
  o.out[i] = reduce_combine_item(p.reduce, o.wide, i);
}

// Calls f(the parameters of step's kind) (host code: the loop of cuda-host, the launch of the
// device kernel). Not for kGemm, whose work items are CTA tiles, nor for the warp and library
// steps (kReduceWarp, kValidCountsWarp, kNmsGreedy, kNmsSort): the runners run those themselves
// (cuda/gemm_host.cc, cuda/host_runner.cc, cuda/nms_host.cc, the device runner).
template <typename F>
void with_step_params(const Step& step, F&& f) {
  switch (step.kind) {
    case StepKind::kMap: return f(step.map);
    case StepKind::kGather: return f(step.gather);
    case StepKind::kTake: return f(step.take);
    case StepKind::kReduce: return f(step.reduce);
    case StepKind::kConv2d: return f(step.conv2d);
    case StepKind::kDense: return f(step.dense);
    case StepKind::kPool: return f(step.pool);
    case StepKind::kValidCounts: return f(step.valid_counts);
    case StepKind::kNms: return f(step.nms);
    case StepKind::kDepthwise: return f(step.depthwise);
    case StepKind::kMapVec: return f(VectorMapParams{step.map});
    case StepKind::kGatherRun: return f(RunGatherParams{step.gather});
    case StepKind::kReduceSplit: return f(SplitReduceParams{step.fast_reduce});
    case StepKind::kReduceCombine: return f(CombineReduceParams{step.fast_reduce});
    case StepKind::kNmsKeys: return f(step.nms_keys);
    case StepKind::kNmsMask: return f(step.nms_mask);
    case StepKind::kNmsFill: return f(step.nms_fill);
    case StepKind::kGemm:
    case StepKind::kValidCountsWarp:
    case StepKind::kNmsSort:
    case StepKind::kNmsGreedy:
    case StepKind::kReduceWarp: return;
  }
}

}  // namespace cvm::cuda
