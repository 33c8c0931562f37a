// The fast memory-bound kernels of the CUDA backend through cuda-host, which runs their per-item
// and per-lane functions with the warp shuffle emulated: the vector map and the run gather
// (16-byte vectors, scalar tails), the warp reduction (an aligned head, vectors, a tail, the
// shuffle tree) and the split reduction (chunks, int64 partials, the combine step), bit-exact
// against the reference at every vector, warp and chunk boundary; and each planted fault (a
// dropped vector tail, a wrong split, a shuffle tree missing its last level) is caught by a
// 20-second campaign.
#include <gtest/gtest.h>

#include <random>

#include "cuda/device_common.h"
#include "cuda/plan.h"
#include "support/cuda_kernels.h"

namespace cvm {
namespace {

ExampleTensor random_tensor(const Shape& shape, int precision, std::mt19937& rng, bool int8) {
  ExampleTensor t;
  t.shape = shape;
  t.precision = precision;
  t.dtype = int8 ? DType::kInt8 : DType::kInt32;
  const int32_t top = (1 << (precision - 1)) - 1;
  std::uniform_int_distribution<int32_t> value(-top, top);
  for (int64_t i = 0; i < shape_size(shape); ++i) t.values.push_back(value(rng));
  return t;
}

void expect_as_reference(const std::string& backend, const std::string& op,
                         const std::string& attrs, const std::vector<ExampleTensor>& inputs,
                         const std::string& path) {
  testing::expect_kernel_as_reference(backend, op, attrs, inputs, {path});
}

// Around the vector (4), the warp (32 lanes, 128 elements of vectors) and beyond.
const std::vector<int64_t> kExtents = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 127, 128, 129, 131, 260};

TEST(CudaFastKernels, VectorMapAtEveryTailLength) {
  std::mt19937 rng(42);
  for (const int64_t n : kExtents) {
    for (const bool int8 : {false, true}) {
      const ExampleTensor a = random_tensor({n}, 8, rng, int8), b = random_tensor({n}, 8, rng, int8);
      expect_as_reference("cuda-host", "elemwise_add", "{}", {a, b}, "cuda.map.vector");
      expect_as_reference("cuda-host", "relu", "{}", {a}, "cuda.map.vector");
    }
  }
}

// Broadcasts whose innermost axis holds whole vectors read each input once per vector: as a
// vector (a full axis), as one value (a broadcast axis); the rest element by element.
TEST(CudaFastKernels, VectorBroadcastsOfRowsColumnsAndScalars) {
  std::mt19937 rng(46);
  for (const int64_t w : {1, 3, 4, 8, 12, 36, 130}) {
    for (const bool int8 : {false, true}) {
      const ExampleTensor x = random_tensor({3, w}, 8, rng, int8);
      for (const Shape& other : {Shape{3, 1}, Shape{1, w}, Shape{1, 1}, Shape{w}, Shape{2, 3, w}}) {
        const ExampleTensor y = random_tensor(other, 8, rng, !int8);
        expect_as_reference("cuda-host", "broadcast_add", "{}", {x, y}, "cuda.map.vector");
        expect_as_reference("cuda-host", "broadcast_max", "{}", {y, x}, "cuda.map.vector");
      }
      expect_as_reference("cuda-host", "where", "{}",
                          {random_tensor({3, w}, 2, rng, int8), x, x}, "cuda.map.vector");
    }
  }
}

TEST(CudaFastKernels, RunGatherWithMisalignedSourcesAndTails) {
  std::mt19937 rng(43);
  for (const int64_t w : kExtents) {
    if (w == 1) continue;  // a column is no run: the strided gather takes it
    const ExampleTensor x = random_tensor({3, w + 2}, 16, rng, false);
    // Rows of w elements from column 1 or 2: sources off the 16-byte grid, and tails.
    for (const int begin : {0, 1, 2}) {
      const std::string attrs = "{\"begin\": \"(0, " + std::to_string(begin) +
                                ")\", \"end\": \"(3, " + std::to_string(begin + w) + ")\"}";
      expect_as_reference("cuda-host", "strided_slice", attrs, {x}, "cuda.gather.run");
    }
    expect_as_reference("cuda-host", "concatenate", R"({"axis": "1"})",
                        {x, random_tensor({3, w}, 16, rng, false)}, "cuda.gather.run");
  }
}

// A 4-element vector access off the 4-element grid faults on the device (a misaligned
// address); cuda-host, which reads element by element, must fail there too, not hide it.
TEST(CudaFastKernels, AMisalignedVectorAccessFailsOnTheHostAsOnTheDevice) {
  std::vector<int32_t> data(16, 7);
  const cuda::InView view{data.data(), 0};
  int32_t got[4] = {};
  EXPECT_NO_THROW(cuda::load4(view, 4, got));
  EXPECT_EQ(got[3], 7);
  EXPECT_NO_THROW(cuda::store4(data.data(), 8, got));
  for (const int64_t i : {1, 2, 3, 5, 10}) {
    EXPECT_THROW(cuda::load4(view, i, got), RuntimeError) << i;
    EXPECT_THROW(cuda::store4(data.data(), i, got), RuntimeError) << i;
  }
}

// The 32-bit index math shows only as a path: int64 gives the same outputs.
TEST(CudaFastKernels, SmallCallsComputeTheirIndicesInInt32) {
  std::mt19937 rng(45);
  const ExampleTensor x = random_tensor({2, 3, 8, 8}, 8, rng, false);
  expect_as_reference("cuda-host", "elemwise_add", "{}", {x, x}, "cuda.index.int32");
  expect_as_reference("cuda-host", "transpose", "{}", {x}, "cuda.index.int32");
  expect_as_reference("cuda-host", "max_pool2d", R"J({"pool_size": "(2, 2)", "strides": "(2, 2)"})J",
                      {x}, "cuda.index.int32");
}

// Sum and max over the inner (warp), middle and outer (split) axes of (a, fiber, c) shapes,
// fibers at every boundary, on the automatic choice and on each forced strategy.
TEST(CudaFastKernels, ReductionsAtWarpVectorAndChunkBoundaries) {
  std::mt19937 rng(44);
  struct Case {
    const char* backend;
    const char* axis;
    const char* path;
  };
  const Case cases[] = {{"cuda-host", "(2,)", "cuda.reduce.warp"},
                        {"cuda-host", "(1,)", "cuda.reduce.split"},
                        {"cuda-host", "(0,)", "cuda.reduce.split"},
                        {"cuda-host@warp", "(1,)", "cuda.reduce.warp"},
                        {"cuda-host@split", "(2,)", "cuda.reduce.split"},
                        {"cuda-host@split", "(0, 2)", "cuda.reduce.combine"}};
  for (const int64_t f : kExtents) {
    for (const Case& c : cases) {
      const std::string axis = c.axis;
      const Shape shape = axis == "(2,)" ? Shape{3, 2, f} : (axis == "(1,)" ? Shape{2, f, 3}
                                                                            : Shape{f, 3, 2});
      if (axis == "(2,)" && f == 1) continue;  // a fiber of one is a copy, not a warp's
      const bool int8 = f % 2 == 0;
      const ExampleTensor x = random_tensor(shape, int8 ? 8 : 16, rng, int8);
      for (const char* op : {"sum", "max"}) {
        expect_as_reference(c.backend, op, R"({"axis": ")" + axis + R"("})", {x}, c.path);
      }
    }
  }
}

int64_t mismatches_with(const cuda::KernelChoice& choice, const std::vector<std::string>& ops) {
  return testing::campaign_mismatches(choice, ops, 1500, 42);
}

const std::vector<std::string> kFastOps = {"sum", "max", "elemwise_add", "relu", "strided_slice",
                                           "concatenate"};

TEST(CudaFastKernels, WithoutAFaultTheCampaignFindsNothing) {
  EXPECT_EQ(mismatches_with(cuda::KernelChoice{}, kFastOps), 0);
  EXPECT_EQ(mismatches_with(cuda::KernelChoice{.reduce = cuda::kReduceSplit}, {"sum", "max"}), 0);
  EXPECT_EQ(mismatches_with(cuda::KernelChoice{.reduce = cuda::kReduceWarp}, {"sum", "max"}), 0);
}

struct Planted {
  cuda::KernelChoice choice;
  const char* what;
  std::vector<std::string> ops;
};

class CudaFastPlanted : public ::testing::TestWithParam<Planted> {};

TEST_P(CudaFastPlanted, TheCampaignCatchesIt) {
  EXPECT_GT(mismatches_with(GetParam().choice, GetParam().ops), 0) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    EachFault, CudaFastPlanted,
    ::testing::Values(
        Planted{{.planted = cuda::kFaultVectorTail}, "a dropped map tail", {"elemwise_add"}},
        Planted{{.planted = cuda::kFaultVectorTail}, "a dropped run tail", {"strided_slice"}},
        Planted{{.planted = cuda::kFaultVectorTail}, "a dropped reduction tail", {"sum"}},
        Planted{{.reduce = cuda::kReduceSplit, .planted = cuda::kFaultReduceSplit},
                "a wrong reduction split", {"sum"}},
        Planted{{.reduce = cuda::kReduceWarp, .planted = cuda::kFaultWarpShuffle},
                "a shuffle tree missing its last level", {"max"}}),
    [](const ::testing::TestParamInfo<Planted>& info) {
      return std::string(info.param.ops[0]) + "_fault" + std::to_string(info.param.choice.planted);
    });

}  // namespace
}  // namespace cvm
