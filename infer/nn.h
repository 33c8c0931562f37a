// Production inference of the nn family (conv2d, dense, relu, max_pool2d, upsampling): every
// validity rule of the contract (docs/ops/nn.md), the output shape and precision, checked before
// anything is allocated. Written independently of the reference's checks.
#pragma once

#include "infer/common.h"

namespace cvm::infer {

struct Conv2dInference {
  OutputSpec output;
  bool use_bias = false;
  int64_t batch = 0, in_channels = 0, height = 0, width = 0;
  int64_t channels = 0, groups = 0;             // OC, groups
  int64_t in_per_group = 0, out_per_group = 0;  // ICG, OPG
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 0, stride_w = 0;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 0, dilation_w = 0;
  int64_t out_h = 0, out_w = 0;
};

// Every infer_* function also validates the inputs (contract 1.1: precision, int8 storage,
// values within +-alpha(p)) and the output (limits, precision <= 32).
// data_values_deferred (conv2d, dense): the values of inputs 0 and 1 (data and weights) are left
// to the caller, which checks them fused into the passes that read them anyway (dense reads W
// from memory once) with check_value_range, and raises the LogicError before returning.
Conv2dInference infer_conv2d(const OpContext& ctx, bool data_values_deferred = false);

struct DenseInference {
  OutputSpec output;
  bool use_bias = false;
  int64_t rows = 0, depth = 0, units = 0;  // M, K, units
};

DenseInference infer_dense(const OpContext& ctx, bool data_values_deferred = false);

// LogicError unless [lo, hi] (the values seen in input `index`) is within +-alpha(precision).
void check_value_range(size_t index, int64_t lo, int64_t hi, int precision);

OutputSpec infer_relu(const OpContext& ctx);

struct MaxPool2dInference {
  OutputSpec output;
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t pool_h = 0, pool_w = 0;
  int64_t stride_h = 0, stride_w = 0;
  int64_t pad_h = 0, pad_w = 0;
  int64_t out_h = 0, out_w = 0;
};

MaxPool2dInference infer_max_pool2d(const OpContext& ctx);

struct UpsamplingInference {
  OutputSpec output;
  int64_t scale = 0;
};

UpsamplingInference infer_upsampling(const OpContext& ctx);

}  // namespace cvm::infer
