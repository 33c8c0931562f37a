// ScopedTensorCap (cvmcheck/tensor_cap.h): the fuzz targets' bound on the tensors an operator
// makes. Over the cap the allocation throws TensorCapExceeded, which run_op passes unchanged (it
// must not turn into a runtime_error, which the fuzz targets would report as our bug).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/registry.h"
#include "cvmcheck/tensor.h"
#include "cvmcheck/tensor_cap.h"

namespace cvm {
namespace {

TEST(TensorCap, AllocationsOverTheCapThrowOnlyWhileItIsInScope) {
  EXPECT_EQ(tensor_cap(), -1);
  {
    const ScopedTensorCap cap(12);
    EXPECT_EQ(Tensor::zeros(DType::kInt32, {3, 4}, 8).size(), 12);
    EXPECT_THROW(Tensor::zeros(DType::kInt32, {13}, 8), TensorCapExceeded);
    EXPECT_THROW(Tensor::uninitialized(DType::kInt8, {2, 7}, 8), TensorCapExceeded);
    {
      const ScopedTensorCap inner(100);
      EXPECT_EQ(Tensor::zeros(DType::kInt32, {13}, 8).size(), 13);
    }
    EXPECT_EQ(tensor_cap(), 12);
  }
  EXPECT_EQ(tensor_cap(), -1);
  EXPECT_EQ(Tensor::zeros(DType::kInt32, {1000}, 8).size(), 1000);
}

TEST(TensorCap, AShapeBreakingTheContractIsStillALogicErrorUnderTheCap) {
  const ScopedTensorCap cap(4);
  EXPECT_THROW(Tensor::zeros(DType::kInt32, {0}, 8), LogicError);
}

TEST(TensorCap, RunOpPassesItThroughOnEveryBackend) {
  const Tensor x = Tensor::from_values({1, 1, 2, 2}, {1, 2, 3, 4}, 8);
  const nlohmann::json attrs = {{"scale", "100"}};  // a (1, 1, 200, 200) output
  int checked = 0;
  for (const Backend& backend : registry().backends()) {
    if (!backend.available || !backend.implements("upsampling")) continue;
    ++checked;
    const ScopedTensorCap cap(1000);
    EXPECT_THROW(run_op_outcome(registry(), backend.name, "upsampling", attrs, {x}),
                 TensorCapExceeded)
        << backend.name;
  }
  EXPECT_GE(checked, 2) << "the reference and the optimized backend at least";
}

}  // namespace
}  // namespace cvm
