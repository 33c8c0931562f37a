#include "cuda/nms_host.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace cvm::cuda {
namespace {

// __shfl_sync from one source lane: every lane gets that lane's value.
uint64_t shfl_emulated(const uint64_t (&lanes)[kWarp], int32_t source) { return lanes[source]; }

// The device kernel's warp loop (cuda/device_runner.cu) for one batch, lane by lane.
void valid_counts_warp(const ValidCountsParams& p, const InView& x, int32_t* count, int32_t* y,
                       int64_t b) {
  int64_t base = 0;
  for (int64_t r0 = 0; r0 < p.rows; r0 += kWarp) {
    bool valid[kWarp];
    for (int32_t lane = 0; lane < kWarp; ++lane) valid[lane] = valid_row(p, x, b, r0 + lane);
    const uint32_t mask = ballot_emulated(valid);
    for (int32_t lane = 0; lane < kWarp; ++lane) {
      if (valid[lane]) {
        valid_row_copy(p, x, y, b, r0 + lane, base + count_bits(mask & lanes_below(lane)));
      }
    }
    base += count_bits(mask);
  }
  for (int32_t lane = 0; lane < kWarp; ++lane) valid_rows_fill(p, count, y, b, base, lane);
}

// The greedy pass of one batch, as the device kernel's warp runs it.
void nms_greedy(const NmsGreedyParams& p, const Views& v, const StepOutputs& o, int64_t b) {
  const NmsLayout& l = p.l;
  for (int32_t lane = 0; lane < kWarp; ++lane) nms_greedy_clear(l, o.wide, b, lane);
  const int64_t scanned = nms_scanned(l, v.in[1], b);
  int64_t kept = 0;
  for (int64_t i = 0; i < scanned && !nms_full(p, kept); ++i) {
    uint64_t bits[kWarp];
    for (int32_t lane = 0; lane < kWarp; ++lane) bits[lane] = nms_owned_bit(l, o.wide, b, i, lane);
    const uint64_t removed = shfl_emulated(bits, nms_owner(l, i));
    if (!nms_keeps(l, v, o.scratch, b, i, removed)) continue;
    for (int32_t lane = 0; lane < kWarp; ++lane) nms_keep(l, o.scratch, o.wide, b, i, kept, lane);
    ++kept;
  }
  nms_kept_count(l, o.scratch)[b] = static_cast<int32_t>(kept);
}

// Each batch's segment [begin, end) of (key, row) pairs, sorted into the sorted arrays.
void nms_sort(const NmsLayout& l, int32_t* s) {
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (int64_t b = 0; b < l.batches; ++b) {
    const int64_t begin = nms_begins(l, s)[b], end = nms_ends(l, s)[b];
    pairs.clear();
    for (int64_t i = begin; i < end; ++i) {
      pairs.emplace_back(nms_keys_in(l, s)[i], nms_rows_in(l, s)[i]);
    }
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& c) { return a.first > c.first; });
    for (size_t k = 0; k < pairs.size(); ++k) {
      nms_keys_sorted(l, s)[begin + static_cast<int64_t>(k)] = pairs[k].first;
      nms_rows_sorted(l, s)[begin + static_cast<int64_t>(k)] = pairs[k].second;
    }
  }
}

}  // namespace

bool run_vision_host(const Step& step, const Views& v, const StepOutputs& o) {
  switch (step.kind) {
    case StepKind::kValidCountsWarp:
      for (int64_t b = 0; b < step.count; ++b) {
        valid_counts_warp(step.valid_counts_warp.v, v.in[0], o.count, o.y, b);
      }
      return true;
    case StepKind::kNmsSort:
      nms_sort(step.nms_sort.l, o.scratch);
      return true;
    case StepKind::kNmsGreedy:
      for (int64_t b = 0; b < step.count; ++b) nms_greedy(step.nms_greedy, v, o, b);
      return true;
    default:
      return false;
  }
}

}  // namespace cvm::cuda
