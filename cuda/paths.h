// The CUDA backend's kernel paths, in one place (cvmcheck/paths.h, docs/paths.md): one per
// step kind (the kernel a plan step launches) and one per tile path of the tiled GEMM
// (cuda/gemm_device.h, tile_paths). Both runners mark the paths from host code (cuda-host's
// loop per tile, the device runner per launch over the same tile_paths), so cuda and cuda-host
// report alike.
#pragma once

#include "cuda/plan.h"
#include "cvmcheck/paths.h"
#include "cvmcheck/registry.h"

namespace cvm::cuda::path {

// X(kind, id, ops, description)
#define CVMCHECK_CUDA_PATHS(X)                                                                   \
  X(kMap, "cuda.step.map", "family:elementwise,family:broadcast,relu,cvm_lut,where",            \
    "an elementwise map kernel, one thread per output element")                                \
  X(kGather, "cuda.step.gather", "family:transform_shape,strided_slice,slice_like,pad,"        \
    "ov_strided_slice", "a strided gather kernel, one thread per output element")              \
  X(kTake, "cuda.step.take", "take", "take's index gather")                                     \
  X(kReduce, "cuda.step.reduce", "sum,max", "a reduction, one thread per output element")       \
  X(kConv2d, "cuda.step.conv2d", "conv2d", "conv2d, one thread per output element")             \
  X(kDense, "cuda.step.dense", "dense", "dense, one thread per output element")                 \
  X(kPool, "cuda.step.pool", "max_pool2d,upsampling", "a window kernel, one thread per output") \
  X(kValidCounts, "cuda.step.valid_counts", "get_valid_counts", "one thread per batch")         \
  X(kNms, "cuda.step.nms", "non_max_suppression", "one thread per batch")                       \
  X(kGemm, "cuda.step.gemm", "dense,conv2d", "the tiled int8 mma.sync GEMM (implicit for "     \
    "conv2d)")                                                                                 \
  X(kDepthwise, "cuda.conv2d.depthwise", "conv2d", "depthwise conv2d (one input channel per "  \
    "group), one thread per output element")                                                   \
  X(kMapVec, "cuda.map.vector", "family:elementwise,family:broadcast,relu,cvm_lut,where",       \
    "an elementwise map, four outputs per thread (16-byte loads and stores, scalar tail)")      \
  X(kGatherRun, "cuda.gather.run", "family:transform_shape,strided_slice,slice_like,pad,"      \
    "ov_strided_slice", "a gather whose innermost axis is a plain copy: runs of it, 16-byte "  \
    "vectors where aligned")                                                                   \
  X(kReduceWarp, "cuda.reduce.warp", "sum,max", "a warp per output (a reduced innermost axis), " \
    "vector loads after an aligned head, a shuffle tree")                                      \
  X(kReduceSplit, "cuda.reduce.split", "sum,max", "a thread per (output, chunk of its fiber), "  \
    "int64 partials")                                                                          \
  X(kReduceCombine, "cuda.reduce.combine", "sum,max", "the split reduction's partials "         \
    "combined, a thread per output")                                                           \
  X(kValidCountsWarp, "cuda.valid_counts.warp", "get_valid_counts", "one warp per batch: a "    \
    "ballot places each chunk's valid rows")                                                   \
  X(kNmsKeys, "cuda.nms.keys", "non_max_suppression", "NMS sort keys, one thread per row")      \
  X(kNmsSort, "cuda.nms.sort", "non_max_suppression", "NMS stable segmented sort by score "     \
    "(CUB on the device)")                                                                     \
  X(kNmsMask, "cuda.nms.mask", "non_max_suppression", "NMS suppression mask, one thread per "   \
    "(box, mask word); only calls that scan a box")                                            \
  X(kNmsGreedy, "cuda.nms.greedy", "non_max_suppression", "NMS greedy pass over the mask, one " \
    "warp per batch")                                                                          \
  X(kNmsFill, "cuda.nms.fill", "non_max_suppression", "NMS output, one thread per value")

// X(bit, id, ops, description): the tile paths (GemmPath bits).
#define CVMCHECK_CUDA_GEMM_PATHS(X)                                                             \
  X(kPathFullTile, "cuda.gemm.full_tile", "dense,conv2d", "a CTA tile whose rows and columns " \
    "all exist")                                                                               \
  X(kPathPartialM, "cuda.gemm.partial_m", "dense,conv2d", "a CTA tile with rows past M "       \
    "(predicated off)")                                                                        \
  X(kPathPartialN, "cuda.gemm.partial_n", "dense,conv2d", "a CTA tile with columns past N "    \
    "(predicated off)")                                                                        \
  X(kPathKTail, "cuda.gemm.k_tail", "dense,conv2d", "a depth not a multiple of the K slice: "  \
    "a zero-filled tail")                                                                      \
  X(kPathKSlices, "cuda.gemm.k_slices", "dense,conv2d", "a depth over one K slice: slices "    \
    "accumulate")                                                                              \
  X(kPathBorder, "cuda.gemm.conv_border", "conv2d", "implicit GEMM: a tile's window reaches "  \
    "into the zero padding (border predicate)")                                                \
  X(kPathGrouped, "cuda.gemm.conv_groups", "conv2d", "implicit GEMM over groups > 1, one GEMM " \
    "per group")

// The path index of a step kind.
int of(StepKind kind);
// Marks the path of a step about to run.
inline void hit(StepKind kind) { paths::hit(of(kind)); }
// Marks cuda.index.int32 when the step computes its indices in int32 (a fast map, gather or
// window whose plan found that they fit: cuda/plan_fast.cc).
void hit_index_width(const Step& step);
// Marks the tile paths of a GemmPath mask.
void hit_gemm(uint32_t mask);
// Declares the paths a backend with kernel choice `choice` takes (make_backend), and the
// thresholds of its tile.
void declare(Backend& backend, const KernelChoice& choice);

}  // namespace cvm::cuda::path
