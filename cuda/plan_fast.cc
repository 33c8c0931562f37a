// The fast kernels' plans: the family builders (cuda/plan_*.cc) make the one-thread-per-element
// steps of cuda/simple, whose parameters already hold the validated geometry; choose_kernels
// turns each into the fast kernel's steps of a kernel choice (for conv2d and dense: retile,
// cuda/plan_gemm.cc).
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

// Items over which the automatic split reduction spreads (about two waves of an H100's or an
// H200's 132 SMs at 1,024 threads): more splits only add partials to combine.
constexpr int64_t kSplitTargetItems = int64_t{1} << 18;

// Merges adjacent axes of `dims` that are adjacent in memory too, and drops axes of size 1: a
// reduction's kept and reduced axes then describe the same offsets with fewer axes, and a
// fiber over the innermost axes becomes one run of stride 1.
void merge_axes(Dims& dims, int64_t* strides) {
  Dims merged;
  int64_t merged_strides[kMaxDims] = {};
  for (int32_t j = 0; j < dims.n; ++j) {
    if (dims.d[j] == 1) continue;
    const int32_t m = merged.n;
    if (m > 0 && merged_strides[m - 1] == strides[j] * dims.d[j]) {
      merged.d[m - 1] *= dims.d[j];
      merged_strides[m - 1] = strides[j];
      continue;
    }
    merged.d[m] = dims.d[j];
    merged_strides[m] = strides[j];
    merged.n = m + 1;
  }
  dims = merged;
  for (int32_t j = 0; j < kMaxDims; ++j) strides[j] = merged_strides[j];
}

FastReduceParams fast_reduce_params(const Step& simple, const KernelChoice& choice) {
  FastReduceParams p;
  p.r = simple.reduce;
  merge_axes(p.r.kept, p.r.kept_stride);
  merge_axes(p.r.reduced, p.r.reduced_stride);
  p.outputs = simple.count;
  p.contiguous = p.r.reduced.n == 0 || (p.r.reduced.n == 1 && p.r.reduced_stride[0] == 1);
  p.planted = choice.planted;
  return p;
}

// Whether a reduction takes the warp strategy: its fiber is contiguous (the innermost input
// axis is reduced), unless a variant forces one strategy.
bool warp_reduction(const FastReduceParams& p, const KernelChoice& choice) {
  if (choice.reduce != kReduceAuto) return choice.reduce == kReduceWarp;
  return p.contiguous != 0 && p.r.fiber > 1;
}

// The split's chunk: at least kSplitChunkMin elements, and no more chunks than spread the work
// over kSplitTargetItems items (@split: the smallest chunk).
void size_split(FastReduceParams& p, const KernelChoice& choice) {
  const int64_t fiber = p.r.fiber;
  int64_t chunk = kSplitChunkForced;
  if (choice.reduce != kReduceSplit) {
    const int64_t wanted = max64(1, (kSplitTargetItems + p.outputs - 1) / p.outputs);
    const int64_t splits = min64(wanted, max64(1, fiber / kSplitChunkMin));
    chunk = (fiber + splits - 1) / splits;
  }
  p.chunk = chunk;
  p.splits = (fiber + chunk - 1) / chunk;
}

void add_reduce_steps(const Step& simple, const KernelChoice& choice, Plan& plan) {
  Step step = simple;
  step.fast_reduce = fast_reduce_params(simple, choice);
  FastReduceParams& p = step.fast_reduce;
  if (warp_reduction(p, choice)) {
    step.kind = StepKind::kReduceWarp;
    plan.steps.push_back(step);
    return;
  }
  size_split(p, choice);
  plan.wide_scratch_elements = max64(plan.wide_scratch_elements, p.splits * p.outputs);
  step.kind = StepKind::kReduceSplit;
  step.count = p.splits * p.outputs;
  plan.steps.push_back(step);
  step.kind = StepKind::kReduceCombine;
  step.count = p.outputs;
  step.input[0] = -1;  // reads the partials only
  plan.steps.push_back(step);
}

// Saturating arithmetic for the index bounds below (attributes may be near int64's limits).
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
int64_t magnitude(int64_t v) { return v == INT64_MIN ? INT64_MAX : (v < 0 ? -v : v); }

constexpr int64_t kNarrowLimit = INT32_MAX;

// Whether every index and offset a map computes fits int32: its output's and inputs' sizes do.
bool narrow_map(const Plan& plan, const Step& step) {
  bool fits = step.map.count <= kNarrowLimit;
  for (int k = 0; k < 3; ++k) {
    if (step.input[k] >= 0) fits = fits && plan.inputs[static_cast<size_t>(step.input[k])]->size() <= kNarrowLimit;
  }
  return fits;
}

// Whether every intermediate of a gather's index math fits int32: the iteration index, and the
// source and destination offsets bounded term by term (|coord| <= dim + mod + |shift|), the
// padding's out-of-range reads included.
bool narrow_gather(const GatherParams& g, int64_t count) {
  int64_t src = magnitude(g.src_base), dst = magnitude(g.dst_base), dims = 1;
  for (int32_t j = 0; j < g.dims.n; ++j) {
    const AxisMap& a = g.axis[j];
    const int64_t coord = sat_add(sat_add(g.dims.d[j], a.mod), magnitude(a.shift));
    src = sat_add(src, sat_mul(coord, magnitude(a.mult)));
    dst = sat_add(dst, sat_mul(g.dims.d[j], magnitude(g.dst_mult[j])));
    dims = sat_mul(dims, g.dims.d[j]);
  }
  return count <= kNarrowLimit && dims <= kNarrowLimit && src <= kNarrowLimit &&
         dst <= kNarrowLimit;
}

// Whether every intermediate of a window's index math fits int32: the planes' sizes, and the
// window's corners (out * stride + pool, minus the padding).
bool narrow_pool(const PoolParams& p, int64_t count) {
  const int64_t input = sat_mul(sat_mul(p.planes, p.height), p.width);
  const int64_t rows = sat_add(sat_add(sat_mul(p.out_h, p.stride_h), p.pool_h), p.pad_h);
  const int64_t cols = sat_add(sat_add(sat_mul(p.out_w, p.stride_w), p.pool_w), p.pad_w);
  return count <= kNarrowLimit && input <= kNarrowLimit && rows <= kNarrowLimit &&
         cols <= kNarrowLimit;
}

}  // namespace

void choose_kernels(Plan& plan, const KernelChoice& choice) {
  if (!choice.tiled) return;  // cuda/simple: the builders' steps as they are
  std::vector<Step> simple = std::move(plan.steps);
  plan.steps.clear();
  for (Step& step : simple) {
    switch (step.kind) {
      case StepKind::kReduce:
        add_reduce_steps(step, choice, plan);
        continue;
      case StepKind::kMap:
        step.kind = StepKind::kMapVec;
        step.map.count = step.count;
        step.map.planted = choice.planted;
        step.map.narrow = narrow_map(plan, step) ? 1 : 0;
        step.count = (step.count + 3) / 4;
        break;
      case StepKind::kGather:
        step.gather.narrow = narrow_gather(step.gather, step.count) ? 1 : 0;
        if (!innermost_is_run(step.gather)) break;
        step.kind = StepKind::kGatherRun;
        step.gather.planted = choice.planted;
        step.count = step.count / step.gather.dims.d[step.gather.dims.n - 1] *
                     run_vectors(step.gather);
        break;
      case StepKind::kPool:
        step.pool.narrow = narrow_pool(step.pool, step.count) ? 1 : 0;
        break;
      default:
        retile(step, choice);
        break;
    }
    plan.steps.push_back(step);
  }
}

}  // namespace cvm::cuda
