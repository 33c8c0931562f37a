// Production inference of the vision family (get_valid_counts, non_max_suppression): every
// validity rule of the contract (docs/ops/vision.md), the output shapes and precisions, checked
// before anything is allocated. Written independently of the reference's checks.
#pragma once

#include "infer/common.h"

namespace cvm::infer {

struct GetValidCountsInference {
  OutputSpec count;  // (B,)
  OutputSpec rows;   // (B, N, K)
  int64_t batches = 0, row_count = 0, row_length = 0;  // B, N, K
  int64_t score_threshold = 0;
};

// Also validates the input (contract 1.1) and both outputs.
GetValidCountsInference infer_get_valid_counts(const OpContext& ctx);

struct NmsInference {
  OutputSpec output;  // (B, N, 6)
  int64_t batches = 0, row_count = 0;
  int64_t iou_threshold = 0;
  int64_t max_output_size = 0;  // < 0: unlimited
  int64_t top_k = 0;            // < 0: every valid row
  bool force_suppress = false;
};

inline constexpr int64_t kNmsRowLength = 6;  // [id, score, x1, y1, x2, y2]

// Also validates both inputs (contract 1.1) and the output.
NmsInference infer_nms(const OpContext& ctx);

}  // namespace cvm::infer
