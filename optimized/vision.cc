// Optimized vision family. get_valid_counts is one compaction pass per batch. non_max_suppression
// sorts each batch once (a total order on 64-bit keys: descending score, then input row, which
// is the contract's stable order), keeps the candidate boxes with their areas precomputed in
// int64, and stops comparing a candidate at the first kept box that suppresses it. Threads split
// the batches; each batch writes only its own output rows, so results never depend on them.
#include <algorithm>
#include <limits>

#include "infer/vision.h"
#include "optimized/kernels.h"

namespace cvm::opt {
namespace {

template <typename T>
void compact_valid_rows(const T* x, const infer::GetValidCountsInference& inf, int32_t* counts,
                        int32_t* y) {
  const int64_t k = inf.row_length, rows = inf.row_count;
  const int team = inf.batches > 1 ? threads_for(inf.batches * rows * k) : 1;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t b = 0; b < inf.batches; ++b) {
    const T* in = x + b * rows * k;
    int32_t* out = y + b * rows * k;
    int64_t kept = 0;
    for (int64_t n = 0; n < rows; ++n) {
      const T* row = in + n * k;
      if (int64_t{row[1]} <= inf.score_threshold) continue;
      int32_t* dst = out + kept * k;
      for (int64_t j = 0; j < k; ++j) dst[j] = row[j];
      ++kept;
    }
    std::fill(out + kept * k, out + rows * k, -1);
    counts[b] = static_cast<int32_t>(kept);
  }
}

std::vector<Tensor> get_valid_counts(const OpContext& ctx) {
  const infer::GetValidCountsInference inf = infer::infer_get_valid_counts(ctx);
  Tensor counts = infer::allocate(inf.count);
  Tensor y = infer::allocate(inf.rows);
  const Tensor& x = ctx.inputs[0];
  if (x.dtype() == DType::kInt8) {
    compact_valid_rows(x.i8(), inf, counts.i32(), y.i32());
  } else {
    compact_valid_rows(x.i32(), inf, counts.i32(), y.i32());
  }
  return results(std::move(counts), std::move(y));
}

struct Candidate {
  int64_t x1, y1, x2, y2, area;
  int64_t id;
};

// True when the contract's integer overlap percentage iou(kept, c) reaches `threshold` (> 0).
// Every early "false" is a case where the percentage is 0. p0 <= 30 keeps every difference
// below 2^30, every area below 2^60 and every sum below 2^61: exact in int64.
bool suppresses(const Candidate& kept, const Candidate& c, int64_t threshold) {
  const int64_t area_sum = kept.area + c.area;
  if (area_sum <= 0) return false;
  const int64_t w = std::min(kept.x2, c.x2) - std::max(kept.x1, c.x1);
  if (w <= 0) return false;
  const int64_t h = std::min(kept.y2, c.y2) - std::max(kept.y1, c.y1);
  if (h <= 0) return false;
  const int64_t inter = w * h;
  const int64_t uni = area_sum - inter;
  if (uni <= 0) return false;
  // The contract's large-intersection branch, kept as written (it can round up by one).
  // There uni >= inter > (2^63 - 1) / 100, so uni / 100 > 0.
  constexpr int64_t kLarge = std::numeric_limits<int64_t>::max() / 100;
  const int64_t percent = inter > kLarge ? inter / (uni / 100) : 100 * inter / uni;
  return percent >= threshold;
}

// Per-thread scratch of one batch.
struct NmsScratch {
  std::vector<uint64_t> order;
  std::vector<Candidate> kept;
  std::vector<int64_t> kept_rows;
};

template <typename T>
void nms_batch(const T* x, int64_t valid, const infer::NmsInference& inf, int32_t* y,
               NmsScratch& s) {
  constexpr int64_t kRow = infer::kNmsRowLength;
  const int64_t rows = inf.row_count;
  const int64_t considered = std::clamp<int64_t>(valid, 0, rows);
  // Key: (INT32_MAX - score) above the row number. Scores are within +-(2^29 - 1), so the high
  // half is positive and below 2^32; rows are distinct, so sorting the keys ascending is the
  // stable descending sort by score.
  s.order.resize(static_cast<size_t>(considered));
  for (int64_t n = 0; n < considered; ++n) {
    const int64_t score = x[n * kRow + 1];
    const auto high = static_cast<uint64_t>(int64_t{std::numeric_limits<int32_t>::max()} - score);
    s.order[static_cast<size_t>(n)] = high << 32 | static_cast<uint64_t>(n);
  }
  std::sort(s.order.begin(), s.order.end());
  const int64_t scanned = inf.top_k < 0 ? considered : std::min(considered, inf.top_k);
  s.kept.clear();
  s.kept_rows.clear();
  for (int64_t i = 0; i < scanned; ++i) {
    if (inf.max_output_size >= 0 && static_cast<int64_t>(s.kept.size()) >= inf.max_output_size) {
      break;
    }
    const int64_t n = static_cast<int64_t>(s.order[static_cast<size_t>(i)] & 0xffffffffu);
    const T* row = x + n * kRow;
    const int64_t id = row[0];
    if (id < 0) continue;  // never kept, never suppresses; it has used its top_k place
    Candidate c{row[2], row[3], row[4], row[5], 0, id};
    c.area = (c.x2 - c.x1) * (c.y2 - c.y1);
    bool suppressed = false;
    for (const Candidate& k : s.kept) {
      if ((inf.force_suppress || k.id == id) && suppresses(k, c, inf.iou_threshold)) {
        suppressed = true;
        break;
      }
    }
    if (suppressed) continue;
    s.kept.push_back(c);
    s.kept_rows.push_back(n);
  }
  const auto kept = static_cast<int64_t>(s.kept_rows.size());
  for (int64_t i = 0; i < kept; ++i) {
    const T* row = x + s.kept_rows[static_cast<size_t>(i)] * kRow;
    for (int64_t j = 0; j < kRow; ++j) y[i * kRow + j] = row[j];
  }
  std::fill(y + kept * kRow, y + rows * kRow, -1);
}

template <typename T>
void nms_all(const T* x, const Tensor& counts, const infer::NmsInference& inf, int32_t* y) {
  constexpr int64_t kRow = infer::kNmsRowLength;
  const int64_t rows = inf.row_count;
  const int team = inf.batches > 1 ? threads_for(inf.batches * rows * kRow) : 1;
#pragma omp parallel num_threads(team) if (team > 1)
  {
    NmsScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < inf.batches; ++b) {
      nms_batch(x + b * rows * kRow, counts.get(b), inf, y + b * rows * kRow, scratch);
    }
  }
}

std::vector<Tensor> non_max_suppression(const OpContext& ctx) {
  const infer::NmsInference inf = infer::infer_nms(ctx);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  if (x.dtype() == DType::kInt8) {
    nms_all(x.i8(), ctx.inputs[1], inf, y.i32());
  } else {
    nms_all(x.i32(), ctx.inputs[1], inf, y.i32());
  }
  return results(std::move(y));
}

}  // namespace

void add_vision(Backend& backend) {
  backend.add("get_valid_counts", get_valid_counts);
  backend.add("non_max_suppression", non_max_suppression);
}

}  // namespace cvm::opt
