// Reference kernels of the vision family: get_valid_counts, non_max_suppression
// (docs/ops/vision.md). Naive loops over the contract's definitions: rows are copied one value at
// a time, the NMS scan compares each candidate against every kept row, and the overlap ratio is
// the contract's integer percentage computed in int64.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

constexpr int64_t kMinRowLength = 2;
constexpr int64_t kMaxRowLength = 32;
constexpr int64_t kNmsRowLength = 6;  // [id, score, x1, y1, x2, y2]
constexpr int kMaxNmsPrecision = 30;  // coordinate differences then fit int32

std::vector<Tensor> get_valid_counts(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  verify_rule(x.ndim() == 3, "x_not_3d", "X must be 3-D (B, N, K), got ", shape_str(x.shape()));
  const int64_t batches = x.dim(0), rows = x.dim(1), row_length = x.dim(2);
  verify_rule(row_length >= kMinRowLength && row_length <= kMaxRowLength, "k_outside_2_32",
              "K = ", row_length, " is outside [2, 32]");
  const int64_t threshold = ctx.attrs.i("score_threshold");

  // valid_count can reach N; the contract fixes its precision at bitlen(N*K+1)+1 (at most 32,
  // since N*K <= 2^30). The -1 fill of Y needs 2 bits.
  const int count_precision = bitlen(static_cast<uint64_t>(rows * row_length + 1)) + 1;
  Tensor valid_count = make_output({batches}, count_precision);
  Tensor y = make_output(x.shape(), std::max(x.precision(), 2));

  for (int64_t b = 0; b < batches; ++b) {
    int64_t next = 0;  // next output row of this batch
    for (int64_t n = 0; n < rows; ++n) {
      const int64_t score = x.get((b * rows + n) * row_length + 1);
      if (score > threshold) {
        for (int64_t k = 0; k < row_length; ++k) {
          y.set((b * rows + next) * row_length + k, x.get((b * rows + n) * row_length + k));
        }
        ++next;
      }
    }
    valid_count.set(b, static_cast<int32_t>(next));
    for (int64_t n = next; n < rows; ++n) {
      for (int64_t k = 0; k < row_length; ++k) y.set((b * rows + n) * row_length + k, -1);
    }
  }
  return {valid_count, y};
}

struct Box {
  int64_t x1, y1, x2, y2;
};

// The contract's overlap ratio as an integer percentage in [0, 100]. Areas are signed products
// of coordinate differences; the overlap of one axis is min(ends) - max(starts), floored at 0.
// With |coordinate| <= 2^29 - 1 every difference is below 2^30 and every product and sum fits
// int64.
int64_t overlap_percent(const Box& a, const Box& b) {
  const int64_t area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
  const int64_t area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
  const int64_t area_sum = area_a + area_b;
  if (area_sum <= 0) return 0;
  const int64_t overlap_w = std::max<int64_t>(0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const int64_t overlap_h = std::max<int64_t>(0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const int64_t intersection = overlap_w * overlap_h;
  const int64_t union_area = area_sum - intersection;
  if (union_area <= 0) return 0;
  constexpr int64_t kLargest = std::numeric_limits<int64_t>::max();
  if (intersection > kLargest / 100) {
    // A positive intersection needs both boxes with positive width and height, and then
    // union >= intersection > 2^63/100, so union / 100 cannot be 0 (docs: Decisions).
    const int64_t divisor = union_area / 100;
    check(divisor > 0, "overlap ratio: union/100 is 0 with intersection ", intersection);
    return intersection / divisor;
  }
  return 100 * intersection / union_area;
}

void verify_fixed(const OpContext& ctx, const char* name, int64_t required) {
  const int64_t value = ctx.attrs.i(name);
  verify_rule(value == required, concat(name, "_not_", required), name, " = ", value,
              " is not supported (only ", required, ")");
}

std::vector<Tensor> non_max_suppression(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& valid_count = ctx.inputs[1];
  verify_rule(x.ndim() == 3, "x_not_3d", "X must be 3-D (B, N, 6), got ", shape_str(x.shape()));
  verify_rule(x.dim(2) == kNmsRowLength, "x_last_dim_not_6", "X's last dim must be 6, got ",
              x.dim(2));
  verify_rule(valid_count.ndim() == 1, "valid_count_not_1d", "valid_count must have shape (",
              x.dim(0), ",), got ", shape_str(valid_count.shape()));
  verify_rule(valid_count.dim(0) == x.dim(0), "valid_count_length_mismatch",
              "valid_count must have shape (", x.dim(0), ",), got ",
              shape_str(valid_count.shape()));
  verify_rule(x.precision() <= kMaxNmsPrecision, "x_precision_above_30", "X's precision ",
              x.precision(), " is above 30");
  const int64_t iou_threshold = ctx.attrs.i("iou_threshold");
  verify_rule(iou_threshold > 0, "iou_threshold_not_positive", "iou_threshold ", iou_threshold,
              " must be > 0");
  verify_fixed(ctx, "coord_start", 2);
  verify_fixed(ctx, "score_index", 1);
  verify_fixed(ctx, "id_index", 0);
  verify_rule(!ctx.attrs.b("return_indices"), "return_indices_true",
              "return_indices = true is not supported");
  verify_rule(ctx.attrs.b("invalid_to_bottom"), "invalid_to_bottom_false",
              "invalid_to_bottom = false is not supported");
  const int64_t max_output_size = ctx.attrs.i("max_output_size");
  const int64_t top_k = ctx.attrs.i("top_k");
  const bool force_suppress = ctx.attrs.b("force_suppress");

  const int64_t batches = x.dim(0), rows = x.dim(1);
  Tensor y = make_output(x.shape(), std::max(x.precision(), 2));
  auto at = [&](int64_t b, int64_t n, int64_t k) {
    return int64_t{x.get((b * rows + n) * kNmsRowLength + k)};
  };

  for (int64_t b = 0; b < batches; ++b) {
    const int64_t considered = std::clamp<int64_t>(valid_count.get(b), 0, rows);
    std::vector<int64_t> sorted(static_cast<size_t>(considered));
    for (int64_t i = 0; i < considered; ++i) sorted[static_cast<size_t>(i)] = i;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](int64_t p, int64_t q) { return at(b, p, 1) > at(b, q, 1); });
    const int64_t scanned = top_k < 0 ? considered : std::min(considered, top_k);

    std::vector<int64_t> kept;  // input row numbers, in kept order
    for (int64_t i = 0; i < scanned; ++i) {
      if (max_output_size >= 0 && static_cast<int64_t>(kept.size()) >= max_output_size) break;
      const int64_t row = sorted[static_cast<size_t>(i)];
      const int64_t id = at(b, row, 0);
      if (id < 0) continue;  // skipped, but it has used its top_k slot
      const Box box{at(b, row, 2), at(b, row, 3), at(b, row, 4), at(b, row, 5)};
      bool suppressed = false;
      for (int64_t other : kept) {
        if (!force_suppress && at(b, other, 0) != id) continue;
        const Box kept_box{at(b, other, 2), at(b, other, 3), at(b, other, 4), at(b, other, 5)};
        if (overlap_percent(kept_box, box) >= iou_threshold) suppressed = true;
      }
      if (!suppressed) kept.push_back(row);
    }

    for (int64_t n = 0; n < rows; ++n) {
      for (int64_t k = 0; k < kNmsRowLength; ++k) {
        const bool filled = n < static_cast<int64_t>(kept.size());
        const int64_t value = filled ? at(b, kept[static_cast<size_t>(n)], k) : -1;
        y.set((b * rows + n) * kNmsRowLength + k, static_cast<int32_t>(value));
      }
    }
  }
  return {y};
}

}  // namespace

void add_vision(Backend& backend) {
  backend.add("get_valid_counts", kernel(get_valid_counts));
  backend.add("non_max_suppression", kernel(non_max_suppression));
}

}  // namespace cvm::ref
