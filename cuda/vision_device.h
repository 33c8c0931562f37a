// Per-batch formulas of the vision kernels: one thread per batch runs the contract's sequential
// definition (a scan for get_valid_counts; sort, greedy scan and fill for NMS), so the greedy
// suppression needs no cross-thread cooperation. Correctness before speed.
#pragma once

#include "cuda/device_common.h"

namespace cvm::cuda {

// Boxes per word of the NMS suppression mask: the default, and the small block of the @nms8
// variant, which makes the campaign's small cases span several words.
inline constexpr int32_t kNmsBlock = 64;
inline constexpr int32_t kNmsBlockSmall = 8;

// get_valid_counts: X (B, N, K). Output 0 is valid_count (B,), output 1 is Y (B, N, K).
struct ValidCountsParams {
  int64_t batches = 0, rows = 0, row_length = 0;
  int64_t threshold = 0;
};

CVM_HD void valid_counts_batch(const ValidCountsParams& p, const InView& x, int32_t* count,
                               int32_t* y, int64_t b) {
  const int64_t first = b * p.rows * p.row_length;
  int64_t next = 0;
  for (int64_t n = 0; n < p.rows; ++n) {
    const int64_t row = first + n * p.row_length;
    if (load(x, row + 1) <= p.threshold) continue;
    for (int64_t k = 0; k < p.row_length; ++k)
      y[first + next * p.row_length + k] = load(x, row + k);
    ++next;
  }
  count[b] = static_cast<int32_t>(next);
  for (int64_t i = first + next * p.row_length; i < first + p.rows * p.row_length; ++i) y[i] = -1;
}

// non_max_suppression: X (B, N, 6) rows [id, score, x1, y1, x2, y2], valid_count (B,).
// scratch: 3 * N int32 per batch (sorted order, merge buffer, kept rows).
struct NmsParams {
  int64_t batches = 0, rows = 0;
  int64_t iou_threshold = 0, max_output_size = 0, top_k = 0;
  int32_t force_suppress = 0;
};

constexpr int64_t kNmsRow = 6;

// The contract's integer overlap percentage (int64; coordinates are within precision 30).
CVM_HD int64_t overlap_percent(const InView& x, int64_t a, int64_t b) {
  const int64_t ax1 = load(x, a + 2), ay1 = load(x, a + 3), ax2 = load(x, a + 4),
                ay2 = load(x, a + 5);
  const int64_t bx1 = load(x, b + 2), by1 = load(x, b + 3), bx2 = load(x, b + 4),
                by2 = load(x, b + 5);
  const int64_t sum = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1);
  if (sum <= 0) return 0;
  const int64_t w = max64(0, min64(ax2, bx2) - max64(ax1, bx1));
  const int64_t h = max64(0, min64(ay2, by2) - max64(ay1, by1));
  const int64_t inter = w * h;
  const int64_t uni = sum - inter;
  if (uni <= 0) return 0;
  // Large intersections divide by U / 100 (never 0 there: docs/ops/vision.md, Decisions).
  if (inter > INT64_MAX / 100) return inter / (uni / 100);
  return 100 * inter / uni;
}

// Stable bottom-up merge sort of order[0..count) by descending score (ties keep input order).
CVM_HD void sort_by_score(const InView& x, int64_t first_row, int32_t* order, int32_t* buffer,
                          int64_t count) {
  for (int64_t width = 1; width < count; width *= 2) {
    for (int64_t lo = 0; lo < count; lo += 2 * width) {
      const int64_t mid = min64(lo + width, count), hi = min64(lo + 2 * width, count);
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const int32_t si = load(x, (first_row + order[i]) * kNmsRow + 1);
        const int32_t sj = load(x, (first_row + order[j]) * kNmsRow + 1);
        buffer[k++] = sj > si ? order[j++] : order[i++];  // equal scores: the left one first
      }
      while (i < mid) buffer[k++] = order[i++];
      while (j < hi) buffer[k++] = order[j++];
    }
    for (int64_t k = 0; k < count; ++k) order[k] = buffer[k];
  }
}

CVM_HD void nms_batch(const NmsParams& p, const Views& v, int32_t* y, int32_t* scratch, int64_t b) {
  const InView& x = v.in[0];
  const int64_t first_row = b * p.rows;
  const int64_t considered = clamp64(load(v.in[1], b), 0, p.rows);
  int32_t* order = scratch + b * 3 * p.rows;
  int32_t* buffer = order + p.rows;
  int32_t* kept = buffer + p.rows;
  for (int64_t i = 0; i < considered; ++i) order[i] = static_cast<int32_t>(i);
  sort_by_score(x, first_row, order, buffer, considered);
  const int64_t scanned = p.top_k < 0 ? considered : min64(considered, p.top_k);
  int64_t kept_count = 0;
  for (int64_t i = 0; i < scanned; ++i) {
    if (p.max_output_size >= 0 && kept_count >= p.max_output_size) break;
    const int64_t row = (first_row + order[i]) * kNmsRow;
    const int32_t id = load(x, row);
    if (id < 0) continue;  // uses its top_k place, never kept
    bool suppressed = false;
    for (int64_t k = 0; k < kept_count && !suppressed; ++k) {
      const int64_t other = (first_row + kept[k]) * kNmsRow;
      if (p.force_suppress == 0 && load(x, other) != id) continue;
      suppressed = overlap_percent(x, other, row) >= p.iou_threshold;
    }
    if (!suppressed) kept[kept_count++] = order[i];
  }
  for (int64_t n = 0; n < p.rows; ++n) {
    for (int64_t k = 0; k < kNmsRow; ++k) {
      y[(first_row + n) * kNmsRow + k] =
          n < kept_count ? load(x, (first_row + kept[n]) * kNmsRow + k) : -1;
    }
  }
}

}  // namespace cvm::cuda
