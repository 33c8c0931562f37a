// INTERIM production inference of the transform_shape and transform_index families, for the
// CUDA backends only. The shared infer/transform_shape.* and infer/transform_index.* are being
// written on other branches; once merged, cuda/plan_transform.cc should call those instead and
// this file should be deleted. Written from the contract (docs/ops/transform_*.md), independently
// of the reference's checks. Every function validates the inputs (contract 1.1), every rule of
// its operator and the output (limits, precision) before anything is allocated.
#pragma once

#include <optional>

#include "infer/common.h"

namespace cvm::cuda::interim {

struct RepeatInference {
  infer::OutputSpec output;
  int axis = 0;
  int64_t repeats = 1;
};
RepeatInference infer_repeat(const OpContext& ctx);

// tile: the output has K = max(N, len(reps)) dims; input axis i is output axis K - N + i.
infer::OutputSpec infer_tile(const OpContext& ctx);

// Row-major copies under a new shape.
infer::OutputSpec infer_flatten(const OpContext& ctx);
infer::OutputSpec infer_expand_dims(const OpContext& ctx);
infer::OutputSpec infer_reshape(const OpContext& ctx);
infer::OutputSpec infer_squeeze(const OpContext& ctx);

struct TransposeInference {
  infer::OutputSpec output;
  std::vector<int> axes;  // output axis i is input axis axes[i]
};
TransposeInference infer_transpose(const OpContext& ctx);

struct ConcatInference {
  infer::OutputSpec output;
  int axis = 0;
};
ConcatInference infer_concatenate(const OpContext& ctx);

struct SliceInference {
  infer::OutputSpec output;
  std::vector<int64_t> begin, stride;  // per axis: first index read and its step
};
SliceInference infer_strided_slice(const OpContext& ctx);

struct TakeInference {
  infer::OutputSpec output;
  std::optional<int> axis;  // nullopt: the flat take
};
TakeInference infer_take(const OpContext& ctx);
infer::OutputSpec infer_cvm_lut(const OpContext& ctx);
infer::OutputSpec infer_slice_like(const OpContext& ctx);  // the leading box of X

struct WhereInference {
  infer::OutputSpec output;
  bool by_rows = false;  // a 1-D condition selecting whole rows
};
WhereInference infer_where(const OpContext& ctx);

struct PadInference {
  infer::OutputSpec output;
  std::vector<int64_t> before;  // per axis
  int32_t value = 0;
};
PadInference infer_pad(const OpContext& ctx);

}  // namespace cvm::cuda::interim
