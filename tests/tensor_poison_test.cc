// Tensor::uninitialized poisoning (cvmcheck/tensor_poison.h): without it a kernel that skips an
// output element can pass, because the allocator hands back the block the reference just freed,
// already holding the expected values (found by a transpose-tile mutant that left one column of
// every 64 unwritten and passed every test: docs/mutation.md).
#include <gtest/gtest.h>

#include <vector>

#include "cvmcheck/tensor.h"
#include "cvmcheck/tensor_poison.h"

namespace cvm {
namespace {

TEST(TensorPoison, IsOnByDefaultAndConsecutiveTensorsHoldDifferentFills) {
  ASSERT_TRUE(poison_uninitialized());
  for (DType dtype : {DType::kInt32, DType::kInt8}) {
    const Tensor a = Tensor::uninitialized(dtype, {3, 5}, 8);
    const Tensor b = Tensor::uninitialized(dtype, {3, 5}, 8);
    for (int64_t i = 1; i < a.size(); ++i) EXPECT_EQ(a.get(i), a.get(0)) << "one fill a tensor";
    EXPECT_NE(a.get(0), b.get(0)) << dtype_name(dtype);
  }
}

// The skipping kernel: the expected output copied into a fresh tensor, all but the last element.
Tensor skip_last(const Tensor& expected) {
  Tensor y = Tensor::uninitialized(DType::kInt32, expected.shape(), expected.precision());
  for (int64_t i = 0; i + 1 < expected.size(); ++i) y.set(i, expected.get(i));
  return y;
}

TEST(TensorPoison, AKernelThatSkipsAnElementDiffersFromTheExpectedOutput) {
  // The worst case for the harness: the expected values were just freed at the same size.
  std::vector<int32_t> values(4096);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i % 255) - 127;
  const Tensor expected = Tensor::from_values({64, 64}, values, 8);
  int caught = 0;
  for (int call = 0; call < 2; ++call) {
    { Tensor freed = Tensor::from_values({64, 64}, values, 8); }
    caught += !skip_last(expected).identical(expected);
  }
  EXPECT_EQ(caught, 2);
}

}  // namespace
}  // namespace cvm
