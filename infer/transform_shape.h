// Production inference of the transform_shape family: repeat, tile, flatten, concatenate,
// expand_dims, reshape, squeeze, transpose (docs/ops/transform_shape.md). Each function checks
// the operator's attributes and input shapes, infers the output shape in int64 with every
// attribute entry range-checked before it is multiplied, and validates the output spec before
// returning, so a kernel may allocate right away. The values are copies: precision p (the
// maximum over the inputs for concatenate).
#pragma once

#include "infer/common.h"

namespace cvm::infer {

struct RepeatInference {
  OutputSpec output;
  int axis = 0;
  int64_t repeats = 1;
};
RepeatInference infer_repeat(const OpContext& ctx);

struct TileInference {
  OutputSpec output;
  Shape source;  // the input shape right-aligned to the output's ndim, padded with leading 1s
};
TileInference infer_tile(const OpContext& ctx);

struct ConcatInference {
  OutputSpec output;
  int axis = 0;
};
ConcatInference infer_concatenate(const OpContext& ctx);

// The four operators that keep the row-major sequence and only change the shape.
OutputSpec infer_flatten(const OpContext& ctx);
OutputSpec infer_expand_dims(const OpContext& ctx);
OutputSpec infer_reshape(const OpContext& ctx);
OutputSpec infer_squeeze(const OpContext& ctx);

struct TransposeInference {
  OutputSpec output;
  std::vector<int> axes;  // output axis i is input axis axes[i]
};
TransposeInference infer_transpose(const OpContext& ctx);

}  // namespace cvm::infer
