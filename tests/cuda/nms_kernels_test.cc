// The parallel vision kernels of the CUDA backend (cuda/nms_device.h) through cuda-host, which
// runs their per-lane phases with the warp primitives emulated and the sort as a stable sort:
// bit-exact against the reference for NMS around the mask-word boundaries of both word sizes
// (64 boxes, and 8 with @nms8; past 32 words, where the greedy pass's lanes wrap), with tied
// scores, ids < 0, top_k and max_output_size cuts and force_suppress either way; and for
// get_valid_counts around the warp's 32-row chunks. A campaign catches a planted mask bug.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "cuda/plan.h"
#include "cvmcheck/compare.h"
#include "harness/campaign/campaign.h"
#include "registry/registry.h"
#include "support/call.h"
#include "support/cuda_kernels.h"

namespace cvm {
namespace {

// The call took the parallel kernels, not the per-batch ones.
void expect_as_reference(const std::string& backend, const std::string& op,
                         const std::string& attrs, const std::vector<ExampleTensor>& inputs,
                         const char* path) {
  testing::expect_kernel_as_reference(backend, op, attrs, inputs, {path});
}

// Boxes near a few anchors (overlaps across the whole iou range), scores from a small range
// (ties), ids in [-1, 2] (some never kept), counts around N.
std::vector<ExampleTensor> nms_inputs(int64_t batches, int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> jitter(-3, 3), score(0, 6), id(-1, 2), anchor(0, 2);
  std::uniform_int_distribution<int64_t> count(-1, n + 2);
  const int32_t anchors[3][4] = {{0, 0, 20, 20}, {10, 5, 30, 25}, {-15, -15, 5, 10}};
  ExampleTensor x;
  x.shape = {batches, n, 6};
  x.precision = 16;
  for (int64_t r = 0; r < batches * n; ++r) {
    const int32_t* a = anchors[anchor(rng)];
    x.values.push_back(id(rng) == -1 && r % 3 == 0 ? -1 : std::max(0, id(rng)));
    x.values.push_back(score(rng));
    for (int k = 0; k < 4; ++k) x.values.push_back(a[k] + jitter(rng));
  }
  ExampleTensor counts;
  counts.shape = {batches};
  counts.precision = 32;
  for (int64_t b = 0; b < batches; ++b) {
    counts.values.push_back(static_cast<int32_t>(b == 0 ? n : count(rng)));
  }
  return {x, counts};
}

std::string nms_attrs(int64_t iou, int64_t top_k, int64_t max_output, bool force) {
  return "{\"iou_threshold\": \"" + std::to_string(iou) + "\", \"top_k\": \"" +
         std::to_string(top_k) + "\", \"max_output_size\": \"" + std::to_string(max_output) +
         "\", \"force_suppress\": \"" + (force ? "true" : "false") + "\"}";
}

void nms_sweep(const std::string& backend, const std::vector<int64_t>& boxes) {
  std::mt19937 rng(42);
  for (const int64_t n : boxes) {
    const std::vector<int64_t> top_ks = {-1, 0, n / 2, n - 1};
    const std::vector<int64_t> max_outputs = {-1, 0, 1, n / 3 + 1};
    for (size_t c = 0; c < 8; ++c) {
      const int64_t iou = std::vector<int64_t>{1, 30, 50, 90}[c % 4];
      const int64_t top_k = top_ks[c % top_ks.size()];
      const int64_t max_output = max_outputs[(c / 2) % max_outputs.size()];
      const std::string attrs = nms_attrs(iou, top_k, max_output, c % 3 == 1);
      expect_as_reference(backend, "non_max_suppression", attrs, nms_inputs(2, n, rng),
                          "cuda.nms.fill");
    }
  }
}

// 300 boxes: 38 words of 8, so the greedy pass's lanes own more than one word each.
const std::vector<int64_t> kBoxes = {1, 7, 8, 9, 63, 64, 65, 130, 300};

TEST(CudaNmsKernels, NmsAroundMaskWordsMatchesTheReference) {
  nms_sweep("cuda-host", kBoxes);
  nms_sweep("cuda-host@nms8", kBoxes);
}

void valid_counts_sweep(const std::string& backend) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> value(-9, 9);
  for (const int64_t n : {1, 31, 32, 33, 64, 70}) {
    for (const int64_t k : {2, 6, 32}) {
      ExampleTensor x;
      x.shape = {3, n, k};
      x.precision = 8;
      x.dtype = (n + k) % 2 == 0 ? DType::kInt8 : DType::kInt32;
      for (int64_t i = 0; i < 3 * n * k; ++i) x.values.push_back(value(rng));
      const std::string attrs =
          "{\"score_threshold\": \"" + std::to_string(static_cast<int>(n % 5) - 2) + "\"}";
      expect_as_reference(backend, "get_valid_counts", attrs, {x}, "cuda.valid_counts.warp");
    }
  }
}

TEST(CudaNmsKernels, GetValidCountsAroundWarpChunksMatchesTheReference) {
  valid_counts_sweep("cuda-host");
}

// The same sweeps on the device kernels (gpu.sh's device tests, also under compute-sanitizer):
// skipped without a GPU.
TEST(CudaDevice, ParallelVisionKernelsMatchTheReference) {
  for (const std::string name : {"cuda", "cuda@nms8"}) {
    const Backend* b = registry().find_backend(name);
    ASSERT_NE(b, nullptr) << name;
    if (!b->available) GTEST_SKIP() << name << " unavailable: " << b->unavailable_reason;
    nms_sweep(name, kBoxes);
  }
  valid_counts_sweep("cuda");
}

// A campaign over non_max_suppression on cuda-host with 8-box words (the campaign's boxes span
// two words) and `fault` planted.
int64_t nms_mismatches_with(int32_t fault) {
  return testing::campaign_mismatches(
      cuda::KernelChoice{.nms_block = cuda::kNmsBlockSmall, .planted = fault},
      {"non_max_suppression"}, 3000, 42);
}

TEST(CudaNmsKernels, WithoutAFaultTheCampaignFindsNothing) {
  EXPECT_EQ(nms_mismatches_with(cuda::kNoFault), 0);
}

TEST(CudaNmsKernels, TheCampaignCatchesAMaskWordsLastBitNeverSet) {
  EXPECT_GT(nms_mismatches_with(cuda::kFaultNmsMaskBit), 0);
}

}  // namespace
}  // namespace cvm
