// The fast reductions (sum, max) over any set of axes, by the layout of the reduced axes, as
// PyTorch's Reduce.cuh chooses:
//   - warp: the innermost input axis is reduced, so an output's fiber is (after merging axes)
//     one contiguous run: a warp per output, its lanes reading 16-byte vectors after a scalar
//     head up to the first aligned element and before a scalar tail, combined by a shuffle tree
//     (cuda/warp_device.h). With a strided fiber (forced by @warp) the lanes read elements.
//   - split: an inner axis is kept, so adjacent outputs are adjacent in memory: one thread per
//     (output, chunk of the fiber), adjacent threads on adjacent outputs (coalesced reads), the
//     chunks' partials written to int64 scratch and combined by a second step.
// Integer sums are exact in any order: partials are int64 (a fiber's 2^31-bounded values cannot
// overflow them), and the inferred output precision bounds the final sum within int32.
#pragma once

#include "cuda/nn_device.h"
#include "cuda/warp_device.h"

namespace cvm::cuda {

// Chunk of the split reduction that @split forces, so that the campaign's small fibers split.
inline constexpr int64_t kSplitChunkForced = 2;
// Smallest chunk the automatic split takes (fewer reads per thread cost more than they save).
inline constexpr int64_t kSplitChunkMin = 16;

// The fast steps' parameters: the simple step's (kept and reduced axes, merged where adjacent
// in memory) plus the strategy's.
struct FastReduceParams {
  ReduceParams r;
  int64_t outputs = 0;
  int32_t contiguous = 0;  // the fiber is one run of stride 1 (the warp's vector loads)
  int64_t chunk = 1;       // split: fiber elements per item
  int64_t splits = 1;      // split: chunks per fiber
  int32_t planted = kNoFault;
};

// One lane's or one chunk's share of a reduction.
struct ReducePartial {
  int64_t sum = 0;
  int32_t best = 0;
  int32_t any = 0;  // whether the share held an element (a lane past a short fiber holds none)
};

CVM_HD void add_value(ReducePartial& r, int32_t v) {
  r.sum += v;
  r.best = r.any == 0 || v > r.best ? v : r.best;
  r.any = 1;
}

CVM_HD ReducePartial combine(const ReducePartial& a, const ReducePartial& b) {
  ReducePartial r;
  r.sum = a.sum + b.sum;
  r.best = a.any == 0 ? b.best : (b.any == 0 || a.best >= b.best ? a.best : b.best);
  r.any = a.any | b.any;
  return r;
}

CVM_HD int32_t finish(const ReduceParams& p, const ReducePartial& r) {
  return p.is_sum != 0 ? static_cast<int32_t>(r.sum) : r.best;
}

// Input offset of the first element of output o's fiber.
CVM_HD int64_t fiber_base(const ReduceParams& p, int64_t o) {
  int64_t base = 0;
  for (int32_t j = p.kept.n - 1; j >= 0; --j) {
    base += (o % p.kept.d[j]) * p.kept_stride[j];
    o /= p.kept.d[j];
  }
  return base;
}

// Offset of fiber element f from the fiber's base (one reduced axis: no division).
CVM_HD int64_t fiber_offset(const ReduceParams& p, int64_t f) {
  if (p.reduced.n == 1) return f * p.reduced_stride[0];
  int64_t offset = 0;
  for (int32_t j = p.reduced.n - 1; j >= 0; --j) {
    offset += (f % p.reduced.d[j]) * p.reduced_stride[j];
    f /= p.reduced.d[j];
  }
  return offset;
}

// The elements before the first 16-byte-aligned one of a contiguous fiber at `base` (device
// buffers are aligned, so alignment is the element offset's).
CVM_HD int64_t aligned_head(int64_t base, int64_t fiber) { return min64((4 - base % 4) % 4, fiber); }

// Lane `lane`'s share of output o's fiber (warp strategy).
CVM_HD ReducePartial reduce_lane(const FastReduceParams& p, const InView& in, int64_t o,
                                 int32_t lane) {
  ReducePartial r;
  const int64_t base = fiber_base(p.r, o), fiber = p.r.fiber;
  if (p.contiguous == 0) {
    for (int64_t f = lane; f < fiber; f += kWarp) add_value(r, load(in, base + fiber_offset(p.r, f)));
    return r;
  }
  const int64_t head = aligned_head(base, fiber);
  const int64_t vectors = (fiber - head) / 4;
  const int64_t tail = head + 4 * vectors;
  for (int64_t f = lane; f < head; f += kWarp) add_value(r, load(in, base + f));
  for (int64_t c = lane; c < vectors; c += kWarp) {
    int32_t v[4];
    load4(in, base + head + 4 * c, v);
    for (int32_t k = 0; k < 4; ++k) add_value(r, v[k]);
  }
  const int64_t end = fiber - (planted_fault(p.planted) == kFaultVectorTail && fiber > tail ? 1 : 0);
  for (int64_t f = tail + lane; f < end; f += kWarp) add_value(r, load(in, base + f));
  return r;
}

// Split strategy, item i = chunk * outputs + output: the chunk's partial (sum, or maximum) into
// partials[i].
CVM_HD void reduce_split_item(const FastReduceParams& p, const InView& in, int64_t* partials,
                              int64_t i) {
  const int64_t o = i % p.outputs, s = i / p.outputs;
  const int64_t first = s * p.chunk;
  const bool cut = planted_fault(p.planted) == kFaultReduceSplit && s + 1 < p.splits;
  const int64_t last = min64(first + p.chunk, p.r.fiber) - (cut ? 1 : 0);
  const int64_t base = fiber_base(p.r, o);
  ReducePartial r;
  for (int64_t f = first; f < last; ++f) add_value(r, load(in, base + fiber_offset(p.r, f)));
  partials[i] = p.r.is_sum != 0 ? r.sum : r.best;
}

// Combine step, item o: output o from its chunks' partials.
CVM_HD int32_t reduce_combine_item(const FastReduceParams& p, const int64_t* partials, int64_t o) {
  int64_t acc = partials[o];
  for (int64_t s = 1; s < p.splits; ++s) {
    const int64_t v = partials[s * p.outputs + o];
    acc = p.r.is_sum != 0 ? acc + v : max64(acc, v);
  }
  return static_cast<int32_t>(acc);
}

#if defined(__CUDACC__)
__device__ inline ReducePartial shfl_down(const ReducePartial& r, int32_t offset) {
  ReducePartial got;
  got.sum = shfl_down(r.sum, offset);
  got.best = shfl_down(r.best, offset);
  got.any = shfl_down(r.any, offset);
  return got;
}
#endif

}  // namespace cvm::cuda
