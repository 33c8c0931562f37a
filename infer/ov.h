// Production inference of ov_strided_slice (OpenVINO StridedSlice-1, docs/ops/ov.md): the
// attributes resolved once into a plan, every validity rule checked before anything is
// allocated. Written independently of the reference's checks.
#pragma once

#include "infer/common.h"

namespace cvm::infer {

// How the slice reads each input axis: output coordinate d of that axis reads input index
// start + step * d, for d < count. A shrunk axis has count 1. New axes (output dims of size 1)
// and the order of the output dims do not change the row-major order of the output, so the
// copy only needs this per-input-axis view.
struct OvSliceAxis {
  int64_t start = 0;
  int64_t step = 0;  // 0 whenever count is 1 (a huge stride never enters any product)
  int64_t count = 1;
};

struct OvSlicePlan {
  OutputSpec output;
  std::vector<OvSliceAxis> axes;  // one per input axis
};

// Also validates the input (contract 1.1) and the output.
OvSlicePlan infer_ov_strided_slice(const OpContext& ctx);

}  // namespace cvm::infer
