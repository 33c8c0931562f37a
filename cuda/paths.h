// The CUDA backend's kernel paths, in one place (cvmcheck/paths.h, docs/paths.md): one per
// step kind, the kernel a plan step launches. Both runners mark the steps they run (host code:
// cuda-host's loop, the device runner's launch), so cuda and cuda-host report alike.
#pragma once

#include "cuda/step_device.h"
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
  X(kNms, "cuda.step.nms", "non_max_suppression", "one thread per batch")

// The path index of a step kind.
int of(StepKind kind);
// Marks the path of a step about to run.
inline void hit(StepKind kind) { paths::hit(of(kind)); }
// Declares the paths on a backend built by make_backend.
void declare(Backend& backend);

}  // namespace cvm::cuda::path
