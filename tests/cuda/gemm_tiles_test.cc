// The tiled int8 GEMM of the CUDA backend (cuda/gemm_device.h) through cuda-host, which runs the
// device kernel's tiling, staging, fragment and predicate functions with mma.sync emulated:
// bit-exact against the reference at every tile boundary (M, N, K = one, tile - 1, tile,
// tile + 1, a multiple plus a tail) for both tile shapes, on dense and on conv2d as an implicit
// GEMM; and each planted fault (a dropped K tail, a dropped last row, a border predicate off by
// one, a dropped last column, swapped fragment registers) is caught by a short campaign.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "cuda/mma_device.h"
#include "cuda/plan.h"
#include "cvmcheck/compare.h"
#include "harness/campaign/campaign.h"
#include "registry/registry.h"
#include "support/call.h"
#include "support/cuda_kernels.h"

namespace cvm {
namespace {

struct TileSides {
  std::string backend;
  int64_t m, n, k;
};

const std::vector<TileSides> kTiles = {
    {"cuda-host", cuda::WideTile::kBM, cuda::WideTile::kBN, cuda::WideTile::kBK},
    {"cuda-host@tile", cuda::SmallTile::kBM, cuda::SmallTile::kBN, cuda::SmallTile::kBK}};

// The same tile shapes on the device (tests skip without one).
const std::vector<TileSides> kDeviceTiles = {
    {"cuda", cuda::WideTile::kBM, cuda::WideTile::kBN, cuda::WideTile::kBK},
    {"cuda@tile", cuda::SmallTile::kBM, cuda::SmallTile::kBN, cuda::SmallTile::kBK}};

// One, t - 1, t, t + 1, and two tiles plus a tail.
std::vector<int64_t> sides(int64_t t) {
  std::vector<int64_t> v = {1, t - 1, t, t + 1, 2 * t + 3};
  v.erase(std::remove(v.begin(), v.end(), 0), v.end());
  return v;
}
// Fewer for the device tests, which gpu.sh also runs under compute-sanitizer: below, above and
// past two tiles.
std::vector<int64_t> device_sides(int64_t t) { return {t - 1, t + 1, 2 * t + 3}; }

// Values over the whole int8 range, the extremes included (p = 8: [-127, 127]).
ExampleTensor random_tensor(const Shape& shape, int precision, std::mt19937& rng, bool int8) {
  ExampleTensor t;
  t.shape = shape;
  t.precision = precision;
  t.dtype = int8 ? DType::kInt8 : DType::kInt32;
  const int32_t top = (1 << (precision - 1)) - 1;
  std::uniform_int_distribution<int32_t> value(-top, top);
  for (int64_t i = 0; i < shape_size(shape); ++i) {
    const int32_t x = value(rng);
    t.values.push_back(i % 7 == 0 ? (i % 2 == 0 ? top : -top) : x);
  }
  return t;
}

// The call took the tiled kernels, not the per-element ones.
void expect_as_reference(const std::string& backend, const std::string& op,
                         const std::string& attrs, const std::vector<ExampleTensor>& inputs) {
  testing::expect_kernel_as_reference(backend, op, attrs, inputs,
                                      {"cuda.step.gemm", "cuda.conv2d.depthwise"});
}

void dense_sweep(const TileSides& t, std::vector<int64_t> (*sides_of)(int64_t)) {
  std::mt19937 rng(41);
  for (const int64_t m : sides_of(t.m)) {
    for (const int64_t n : sides_of(t.n)) {
      for (const int64_t k : sides_of(t.k)) {
        const bool bias = (m + n + k) % 2 == 0;
        std::vector<ExampleTensor> inputs = {random_tensor({m, k}, 8, rng, k % 2 == 0),
                                             random_tensor({n, k}, 8, rng, m % 2 == 0)};
        if (bias) inputs.push_back(random_tensor({n}, 16, rng, false));
        const std::string attrs = "{\"units\": \"" + std::to_string(n) +
                                  "\", \"use_bias\": \"" + (bias ? "true" : "false") + "\"}";
        expect_as_reference(t.backend, "dense", attrs, inputs);
      }
    }
  }
}

TEST(CudaGemmTiles, DenseAtEveryTileBoundaryMatchesTheReference) {
  for (const TileSides& t : kTiles) dense_sweep(t, sides);
}

struct ConvShape {
  int64_t batch, in_channels, height, width, channels, groups, kernel, stride, pad, dilation;
};

std::string conv_attrs(const ConvShape& c) {
  const auto pair = [](int64_t v) {
    return "\"(" + std::to_string(v) + ", " + std::to_string(v) + ")\"";
  };
  return "{\"channels\": \"" + std::to_string(c.channels) + "\", \"kernel_size\": " +
         pair(c.kernel) + ", \"strides\": " + pair(c.stride) + ", \"padding\": " + pair(c.pad) +
         ", \"dilation\": " + pair(c.dilation) + ", \"groups\": \"" + std::to_string(c.groups) +
         "\"}";
}

// Implicit GEMM: N = channels / groups, K = in_channels / groups * kernel^2, M = batch * out
// pixels; each drawn around the tile sides, with padding (border predicates), strides,
// dilation, groups and a depthwise case.
void conv_sweep(const TileSides& t) {
  std::mt19937 rng(4141);
  const std::vector<ConvShape> shapes = {
      {1, 1, 4, 4, t.n, 1, 1, 1, 0, 1},              // one input channel: depthwise, x t.n
      {2, t.k, 4, 4, t.n + 1, 1, 1, 1, 0, 1},        // K = tile, N = tile + 1
      {1, t.k + 1, 5, 3, t.n - 1, 1, 1, 1, 1, 1},    // K tail, padding, N = tile - 1
      {1, 2, 9, 9, t.n, 1, 3, 1, 1, 1},              // 3x3, K = 18, M = 81
      {2, 4, 11, 7, 2 * t.n + 2, 2, 3, 2, 2, 2},     // groups (N = tile + 1), stride, dilation
      {1, 3, 6, 10, 6, 3, 3, 1, 1, 1},               // depthwise, multiplier 2
      {1, 2 * t.k / 9 + 2, 8, 8, 4, 1, 3, 1, 1, 1},  // several K slices
  };
  for (const ConvShape& c : shapes) {
    const int64_t in_per_group = c.in_channels / c.groups;
    std::vector<ExampleTensor> inputs = {
        random_tensor({c.batch, c.in_channels, c.height, c.width}, 8, rng, c.batch == 1),
        random_tensor({c.channels, in_per_group, c.kernel, c.kernel}, 8, rng, false),
        random_tensor({c.channels}, 12, rng, false)};
    expect_as_reference(t.backend, "conv2d", conv_attrs(c), inputs);
  }
}

TEST(CudaGemmTiles, Conv2dAroundTileBoundariesMatchesTheReference) {
  for (const TileSides& t : kTiles) conv_sweep(t);
}

// The same sweeps on the device kernels (part of gpu.sh's device tests, so also under
// compute-sanitizer's memcheck, racecheck and synccheck): skipped without a GPU.
TEST(CudaDevice, TiledGemmMatchesTheReferenceAroundTileBoundaries) {
  for (const TileSides& t : kDeviceTiles) {
    const Backend* b = registry().find_backend(t.backend);
    ASSERT_NE(b, nullptr) << t.backend;
    if (!b->available) GTEST_SKIP() << t.backend << " unavailable: " << b->unavailable_reason;
    dense_sweep(t, device_sides);
    conv_sweep(t);
  }
}

// A campaign over dense and conv2d on a cuda-host backend with `fault` planted, small tiles so
// that small calls take every tile path; the fault must show as mismatches.
int64_t mismatches_with(int32_t fault, const std::vector<std::string>& ops) {
  return testing::campaign_mismatches(
      cuda::KernelChoice{.tile = cuda::kTileSmall, .planted = fault}, ops, 1500, 41);
}

TEST(CudaGemmTiles, WithoutAFaultTheCampaignFindsNothing) {
  EXPECT_EQ(mismatches_with(cuda::kNoFault, {"dense", "conv2d"}), 0);
}

struct Planted {
  int32_t fault;
  const char* what;
  std::vector<std::string> ops;
};

class CudaGemmPlanted : public ::testing::TestWithParam<Planted> {};

TEST_P(CudaGemmPlanted, TheCampaignCatchesIt) {
  EXPECT_GT(mismatches_with(GetParam().fault, GetParam().ops), 0) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    EachFault, CudaGemmPlanted,
    ::testing::Values(Planted{cuda::kFaultKTail, "a dropped K tail", {"dense"}},
                      Planted{cuda::kFaultPartialM, "a dropped last row", {"dense"}},
                      Planted{cuda::kFaultPartialN, "a dropped last column", {"conv2d"}},
                      Planted{cuda::kFaultBorder, "a border predicate off by one", {"conv2d"}},
                      Planted{cuda::kFaultFragment, "swapped A fragment registers", {"dense"}}),
    [](const ::testing::TestParamInfo<Planted>& info) {
      return "fault" + std::to_string(info.param.fault);
    });

// The kernels' register-form layout functions and the emulation's per-element PTX formulas
// describe one layout: A and B packed lane by lane with frag_a_* / frag_b_*, multiplied by
// mma_emulate, and read back with frag_c_*, give the plain product.
TEST(CudaMmaFragments, LoadersAndEmulationAgreeOnThePtxLayout) {
  std::mt19937 rng(32);
  std::uniform_int_distribution<int32_t> value(-127, 127);
  int8_t a[cuda::kMmaM][cuda::kMmaK], b[cuda::kMmaN][cuda::kMmaK];  // B stored n-major
  for (auto& row : a) {
    for (int8_t& x : row) x = static_cast<int8_t>(value(rng));
  }
  for (auto& col : b) {
    for (int8_t& x : col) x = static_cast<int8_t>(value(rng));
  }
  cuda::FragA fa[cuda::kWarp];
  cuda::FragB fb[cuda::kWarp];
  cuda::FragC fc[cuda::kWarp] = {};
  for (int32_t lane = 0; lane < cuda::kWarp; ++lane) {
    for (int32_t r = 0; r < 4; ++r) {
      fa[lane].r[r] = cuda::load_word(&a[cuda::frag_a_row(lane, r)][cuda::frag_a_col(lane, r)]);
    }
    for (int32_t r = 0; r < 2; ++r) {
      fb[lane].r[r] = cuda::load_word(&b[cuda::frag_b_col(lane)][cuda::frag_b_k(lane, r)]);
    }
  }
  cuda::mma_emulate(fc, fa, fb);
  for (int32_t lane = 0; lane < cuda::kWarp; ++lane) {
    for (int32_t i = 0; i < 4; ++i) {
      const int32_t m = cuda::frag_c_row(lane, i), n = cuda::frag_c_col(lane, i);
      int32_t expected = 0;
      for (int32_t k = 0; k < cuda::kMmaK; ++k) expected += a[m][k] * b[n][k];
      EXPECT_EQ(fc[lane].c[i], expected) << "lane " << lane << " element " << i;
    }
  }
}

}  // namespace
}  // namespace cvm
