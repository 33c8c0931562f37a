// The tiled plans of dense and conv2d: plan_nn builds the one-thread-per-element step (the
// cuda/simple kernels, whose parameters already hold the validated geometry); retile turns it
// into the GEMM view of cuda/gemm_device.h, or into the depthwise step.
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

// Tiles of the GEMM of `g`: the step's work items.
int64_t gemm_tiles(const GemmParams& g) {
  return g.tile == kTileSmall ? tile_count<SmallTile>(g) : tile_count<WideTile>(g);
}

GemmParams dense_gemm(const DenseParams& d, const KernelChoice& choice) {
  GemmParams g;
  g.rows = d.rows;
  g.cols = d.units;
  g.depth = d.depth;
  g.use_bias = d.use_bias;
  g.tile = choice.tile;
  g.planted = choice.planted;
  return g;
}

GemmParams conv_gemm(const Conv2dParams& c, const KernelChoice& choice) {
  GemmParams g;
  g.rows = c.batch * c.out_h * c.out_w;
  g.cols = c.out_per_group;
  g.depth = c.in_per_group * c.kernel_h * c.kernel_w;
  g.groups = c.channels / c.out_per_group;
  g.is_conv = 1;
  g.use_bias = c.use_bias;
  g.tile = choice.tile;
  g.planted = choice.planted;
  g.conv = c;
  return g;
}

}  // namespace

void retile(Step& step, const KernelChoice& choice) {
  if (!choice.tiled) return;
  if (step.kind == StepKind::kConv2d && step.conv2d.in_per_group == 1) {
    step.kind = StepKind::kDepthwise;  // same items: the output elements
    step.depthwise.conv = step.conv2d;
    return;
  }
  if (step.kind == StepKind::kConv2d) {
    step.gemm = conv_gemm(step.conv2d, choice);
  } else if (step.kind == StepKind::kDense) {
    step.gemm = dense_gemm(step.dense, choice);
  } else {
    return;
  }
  step.kind = StepKind::kGemm;
  step.count = gemm_tiles(step.gemm);
}

}  // namespace cvm::cuda
