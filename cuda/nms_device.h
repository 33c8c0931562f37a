// The parallel vision kernels (the default; cuda/simple keeps the one-thread-per-batch ones of
// cuda/vision_device.h), bit-exact with them and with the contract (docs/ops/vision.md):
//
// - get_valid_counts: one warp per batch walks the rows 32 at a time; a ballot of the lanes'
//   "valid" predicates gives each valid row its place (the valid rows below it in the chunk,
//   by popcount), so the rows keep their input order with no serial scan over them.
// - non_max_suppression as five steps: keys (score and row of every considered row), a stable
//   segmented sort by descending score (CUB on the device, std::stable_sort on the host), the
//   suppression mask (one item per sorted box and mask word: which later boxes it would
//   suppress if kept), the greedy pass (one warp per batch: the only serial part, now one bit
//   test and a few word ORs per box instead of an IoU against every kept box), and the fill.
//
// Warp-level steps are written as per-lane CVM_HD phases; the device kernel joins them with
// ballot / shfl, cuda-host (cuda/nms_host.cc) runs the 32 lanes of each phase in turn and the
// emulated primitive in between, as cuda/warp_device.h describes.
#pragma once

#include "cuda/vision_device.h"
#include "cuda/warp_device.h"

namespace cvm::cuda {

// ---- get_valid_counts, one warp per batch -------------------------------------------------

struct ValidCountsWarpParams {
  ValidCountsParams v;
};

// Lane predicate: row `row` of batch b exists and its score passes the threshold.
CVM_HD bool valid_row(const ValidCountsParams& p, const InView& x, int64_t b, int64_t row) {
  if (row >= p.rows) return false;
  return load(x, (b * p.rows + row) * p.row_length + 1) > p.threshold;
}

// A valid lane's row to its place `to` among the batch's valid rows.
CVM_HD void valid_row_copy(const ValidCountsParams& p, const InView& x, int32_t* y, int64_t b,
                           int64_t row, int64_t to) {
  const int64_t first = b * p.rows * p.row_length;
  for (int64_t k = 0; k < p.row_length; ++k) {
    y[first + to * p.row_length + k] = load(x, first + row * p.row_length + k);
  }
}

// After the last chunk: the lanes fill the values past the `valid` rows with -1, lane 0 writes
// the count.
CVM_HD void valid_rows_fill(const ValidCountsParams& p, int32_t* count, int32_t* y, int64_t b,
                            int64_t valid, int32_t lane) {
  const int64_t first = b * p.rows * p.row_length;
  for (int64_t i = valid * p.row_length + lane; i < p.rows * p.row_length; i += kWarp) {
    y[first + i] = -1;
  }
  if (lane == 0) count[b] = static_cast<int32_t>(valid);
}

// ---- non_max_suppression ------------------------------------------------------------------

// Where the steps keep their data. int32 scratch, B * N each: keys in, rows in, keys sorted,
// rows sorted, kept rows; then B each: kept counts, segment begins, segment ends. int64
// scratch: the masks, B * scanned * words, then the removed bitmaps, B * words.
struct NmsLayout {
  int64_t batches = 0, rows = 0;
  int64_t top_k = 0;
  int64_t scanned = 0;  // the most rows any batch scans: rows, or min(rows, top_k)
  int64_t block = 0;    // boxes per mask word (<= 64)
  int64_t words = 0;    // mask words per sorted box: ceil(scanned / block)
};

CVM_HD int64_t nms_plane(const NmsLayout& l) { return l.batches * l.rows; }
CVM_HD int32_t* nms_keys_in(const NmsLayout&, int32_t* s) { return s; }
CVM_HD int32_t* nms_rows_in(const NmsLayout& l, int32_t* s) { return s + nms_plane(l); }
CVM_HD int32_t* nms_keys_sorted(const NmsLayout& l, int32_t* s) { return s + 2 * nms_plane(l); }
CVM_HD int32_t* nms_rows_sorted(const NmsLayout& l, int32_t* s) { return s + 3 * nms_plane(l); }
CVM_HD int32_t* nms_kept(const NmsLayout& l, int32_t* s) { return s + 4 * nms_plane(l); }
CVM_HD int32_t* nms_kept_count(const NmsLayout& l, int32_t* s) { return s + 5 * nms_plane(l); }
CVM_HD int32_t* nms_begins(const NmsLayout& l, int32_t* s) {
  return s + 5 * nms_plane(l) + l.batches;
}
CVM_HD int32_t* nms_ends(const NmsLayout& l, int32_t* s) {
  return s + 5 * nms_plane(l) + 2 * l.batches;
}
inline int64_t nms_scratch(const NmsLayout& l) { return 5 * nms_plane(l) + 3 * l.batches; }

// Masks as unsigned words (int64 and uint64 may alias each other).
CVM_HD uint64_t* nms_mask(const NmsLayout& l, int64_t* wide, int64_t b, int64_t i) {
  return reinterpret_cast<uint64_t*>(wide) + (b * l.scanned + i) * l.words;
}
CVM_HD uint64_t* nms_removed(const NmsLayout& l, int64_t* wide, int64_t b) {
  return reinterpret_cast<uint64_t*>(wide) + l.batches * l.scanned * l.words + b * l.words;
}
inline int64_t nms_wide_scratch(const NmsLayout& l) {
  return l.batches * (l.scanned + 1) * l.words;
}

// The rows of batch b that take part (T), and how many of them the greedy pass scans.
CVM_HD int64_t nms_considered(const NmsLayout& l, const InView& valid_count, int64_t b) {
  return clamp64(load(valid_count, b), 0, l.rows);
}
CVM_HD int64_t nms_scanned(const NmsLayout& l, const InView& valid_count, int64_t b) {
  const int64_t t = nms_considered(l, valid_count, b);
  return l.top_k < 0 ? t : min64(t, l.top_k);
}

// (a) One item per input row (b, r): a considered row's key (score) and value (r); item r = 0
// of each batch writes its segment's bounds for the sort.
struct NmsKeysParams {
  NmsLayout l;
};

CVM_HD void nms_key_item(const NmsKeysParams& p, const Views& v, int32_t* s, int64_t i) {
  const int64_t b = i / p.l.rows, r = i % p.l.rows;
  const int64_t considered = nms_considered(p.l, v.in[1], b);
  if (r == 0) {
    nms_begins(p.l, s)[b] = static_cast<int32_t>(b * p.l.rows);
    nms_ends(p.l, s)[b] = static_cast<int32_t>(b * p.l.rows + considered);
  }
  if (r >= considered) return;
  nms_keys_in(p.l, s)[i] = load(v.in[0], i * kNmsRow + 1);
  nms_rows_in(p.l, s)[i] = static_cast<int32_t>(r);
}

// (b) The sort: a library step (no per-item function), one segment per batch.
struct NmsSortParams {
  NmsLayout l;
};

// (c) One item per (b, sorted box i, word w): bit j of mask word w of box i is set when the
// box at sorted position p = w * block + j (i < p < scanned) would be suppressed by box i if
// box i is kept. Items past a batch's scanned boxes write nothing (the greedy pass never
// reads them).
struct NmsMaskParams {
  NmsLayout l;
  int64_t iou_threshold = 0;
  int32_t force_suppress = 0;
  int32_t planted = kNoFault;  // tests only: kFaultNmsMaskBit
};

CVM_HD void nms_mask_item(const NmsMaskParams& p, const Views& v, int32_t* s, int64_t* wide,
                          int64_t item) {
  const NmsLayout& l = p.l;
  const int64_t b = item / (l.scanned * l.words);
  const int64_t i = item / l.words % l.scanned, w = item % l.words;
  const int64_t scanned = nms_scanned(l, v.in[1], b);
  if (i >= scanned) return;
  const int32_t* sorted = nms_rows_sorted(l, s) + b * l.rows;
  const int64_t row_i = (b * l.rows + sorted[i]) * kNmsRow;
  const int32_t id_i = load(v.in[0], row_i);
  const int64_t last = planted_fault(p.planted) == kFaultNmsMaskBit ? l.block - 1 : l.block;
  uint64_t word = 0;
  for (int64_t j = 0; j < last; ++j) {
    const int64_t pos = w * l.block + j;
    if (pos <= i) continue;
    if (pos >= scanned) break;
    const int64_t row_p = (b * l.rows + sorted[pos]) * kNmsRow;
    if (p.force_suppress == 0 && load(v.in[0], row_p) != id_i) continue;
    if (overlap_percent(v.in[0], row_i, row_p) >= p.iou_threshold) word |= uint64_t{1} << j;
  }
  nms_mask(l, wide, b, i)[w] = word;
}

// (d) The greedy pass, one warp per batch: lane l owns the removed bitmap's words w = l
// (mod 32). Per sorted box i: the owner of i's word reads i's bit, a shuffle gives it to every
// lane, and a kept box's mask words are ORed into the bitmap by their owners.
struct NmsGreedyParams {
  NmsLayout l;
  int64_t max_output_size = 0;
};

CVM_HD void nms_greedy_clear(const NmsLayout& l, int64_t* wide, int64_t b, int32_t lane) {
  uint64_t* removed = nms_removed(l, wide, b);
  for (int64_t w = lane; w < l.words; w += kWarp) removed[w] = 0;
}

CVM_HD int32_t nms_owner(const NmsLayout& l, int64_t i) {
  return static_cast<int32_t>(i / l.block % kWarp);
}

// Box i's removed bit as lane `lane` sees it: the bit from its owner, 0 from any other lane.
CVM_HD uint64_t nms_owned_bit(const NmsLayout& l, int64_t* wide, int64_t b, int64_t i,
                              int32_t lane) {
  if (nms_owner(l, i) != lane) return 0;
  return (nms_removed(l, wide, b)[i / l.block] >> (i % l.block)) & 1;
}

// Whether sorted box i is kept, given its removed bit: an id < 0 uses its place but is never
// kept (so it never suppresses either).
CVM_HD bool nms_keeps(const NmsLayout& l, const Views& v, int32_t* s, int64_t b, int64_t i,
                      uint64_t removed_bit) {
  if (removed_bit != 0) return false;
  const int64_t row = b * l.rows + nms_rows_sorted(l, s)[b * l.rows + i];
  return load(v.in[0], row * kNmsRow) >= 0;
}

// Every lane: box i is kept as the batch's kept-th row; its mask joins the bitmap.
CVM_HD void nms_keep(const NmsLayout& l, int32_t* s, int64_t* wide, int64_t b, int64_t i,
                     int64_t kept, int32_t lane) {
  uint64_t* removed = nms_removed(l, wide, b);
  const uint64_t* mask = nms_mask(l, wide, b, i);
  for (int64_t w = lane; w < l.words; w += kWarp) removed[w] |= mask[w];
  if (lane == 0) nms_kept(l, s)[b * l.rows + kept] = nms_rows_sorted(l, s)[b * l.rows + i];
}

// Before box i: whether the pass stops (max_output_size rows kept already).
CVM_HD bool nms_full(const NmsGreedyParams& p, int64_t kept) {
  return p.max_output_size >= 0 && kept >= p.max_output_size;
}

// (e) One item per output value: the kept rows in order, then -1.
struct NmsFillParams {
  NmsLayout l;
};

CVM_HD int32_t nms_fill_value(const NmsFillParams& p, const Views& v, int32_t* s, int64_t i) {
  const NmsLayout& l = p.l;
  const int64_t b = i / (l.rows * kNmsRow), n = i / kNmsRow % l.rows, k = i % kNmsRow;
  if (n >= nms_kept_count(l, s)[b]) return -1;
  return load(v.in[0], (b * l.rows + nms_kept(l, s)[b * l.rows + n]) * kNmsRow + k);
}

}  // namespace cvm::cuda
