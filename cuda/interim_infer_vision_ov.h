// INTERIM production inference of the vision family and of ov_strided_slice, for the CUDA
// backends only. The shared infer/vision.* and infer/ov.* are being written on other branches;
// once merged, cuda/plan_vision_ov.cc should call those instead and this file should be deleted.
// Written from the contract (docs/ops/vision.md, docs/ops/ov.md), independently of the
// reference. Each function validates the inputs, every rule and the outputs before allocation.
#pragma once

#include "cuda/vision_device.h"
#include "infer/common.h"

namespace cvm::cuda::interim {

struct ValidCountsInference {
  infer::OutputSpec count, boxes;  // valid_count (B,), Y (B, N, K)
  ValidCountsParams params;
};
ValidCountsInference infer_get_valid_counts(const OpContext& ctx);

struct NmsInference {
  infer::OutputSpec output;
  NmsParams params;
};
NmsInference infer_non_max_suppression(const OpContext& ctx);

// ov_strided_slice: how each output axis walks the input. in_axis -1 is a new axis (size 1).
struct OvAxis {
  int in_axis = -1;
  int64_t begin = 0, stride = 1;
};
struct OvSliceInference {
  infer::OutputSpec output;
  std::vector<OvAxis> axes;          // per output axis
  std::vector<int64_t> fixed_index;  // per input axis: the shrunk index, or -1
};
OvSliceInference infer_ov_strided_slice(const OpContext& ctx);

}  // namespace cvm::cuda::interim
