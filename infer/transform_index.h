// Production inference of the transform_index family: strided_slice (alias slice), take,
// cvm_lut, slice_like, where, pad (docs/ops/transform_index.md). Each function checks the
// attributes and input shapes and returns a validated output spec plus what the kernel needs.
// Attribute tuples hold int64 entries anywhere in [INT64_MIN, INT64_MAX]; nothing here overflows.
#pragma once

#include <optional>

#include "infer/common.h"

namespace cvm::infer {

// One axis of a strided slice: element d of the output reads input index begin + stride * d.
struct SliceAxis {
  int64_t begin = 0;
  int64_t stride = 1;  // the attribute's stride; |stride| may exceed the axis when size is 1
  int64_t size = 1;
};

struct SliceInference {
  OutputSpec output;
  std::vector<SliceAxis> axes;  // one per input axis
};
SliceInference infer_strided_slice(const OpContext& ctx);

struct TakeInference {
  OutputSpec output;
  std::optional<int> axis;  // none: index the flattened data
};
TakeInference infer_take(const OpContext& ctx);

// cvm_lut: inputs (indices, table); the output has the indices' shape and the table's precision.
OutputSpec infer_cvm_lut(const OpContext& ctx);

// slice_like: the leading box of X; the output shape says which.
OutputSpec infer_slice_like(const OpContext& ctx);

struct WhereInference {
  OutputSpec output;
  bool by_rows = false;  // a 1-D condition selecting whole rows of x / y
};
WhereInference infer_where(const OpContext& ctx);

struct PadInference {
  OutputSpec output;
  std::vector<int64_t> before, after;  // per axis, each in [0, 4096)
  int32_t value = 0;
};
PadInference infer_pad(const OpContext& ctx);

}  // namespace cvm::infer
