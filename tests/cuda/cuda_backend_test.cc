// The CUDA backends. "cuda-host" (the kernels' per-item functions in a CPU loop) runs in every
// build: besides the generic examples, properties and golden replay, it is diffed against the
// reference on the robustness suite's edge attributes and odd input shapes, and on cases large
// enough to cross the device's grid-stride bound. "cuda" needs a GPU: its tests skip with the
// reason when none is present (or the build has no nvcc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "support/call.h"

namespace cvm {
namespace {

// Runs one call on the reference and on `backend`; the backend must give the same class and,
// for ok, the same bytes.
// max_output: a larger reference result is not re-run on the backend (a rule-breaking
// example's extreme attributes on a smaller input can make a 2^30-element output, which a
// single-threaded emulation needs most of a minute for).
void expect_same_as_reference(const std::string& backend, const std::string& op,
                              const std::string& attrs, const std::vector<ExampleTensor>& inputs,
                              int64_t max_output = int64_t{1} << 30) {
  // These calls are free-form (edge attributes, unrelated shapes) and may break several rules,
  // which the backend may check in another order: the class is compared, not the rule id
  // (docs/contract.md, "Rule ids").
  Outcome expected = testing::call(op, attrs, inputs);
  expected.rule.clear();
  for (const Tensor& y : expected.outputs) {
    if (y.size() > max_output) return;
  }
  const Outcome actual = testing::call(op, attrs, inputs, backend);
  const auto difference = compare_outcomes(actual, expected, backend, "reference");
  EXPECT_FALSE(difference.has_value())
      << op << " " << attrs << ": " << (difference ? difference->what : "") << " ("
      << testing::describe(actual) << " vs " << testing::describe(expected) << ")";
}

std::vector<std::string> edge_texts(const AttrSpec& spec) {
  switch (spec.kind) {
    case AttrKind::kInt:
    case AttrKind::kOptInt:
      return {"-2147483648", "2147483647", "-4097", "-1", "0", "1", "2", "4096", "33", "None"};
    case AttrKind::kBool:
      return {"0", "1"};
    case AttrKind::kTuple:
      return {"()",
              "(0,)",
              "(-1,)",
              "(1, 1)",
              "(-9223372036854775808,)",
              "(9223372036854775807,)",
              "(-1, -1, -1, -1, -1, -1, -1, -1)",
              "(0, 0, 0, 0)",
              "(4096, 4096)",
              "(-4, -4, -4)",
              "(-3, -3)",
              "(-2, -1)",
              "(-4, -1, -1, 0)",
              "(16777216, 16777216)",
              "(2, 2)",
              "(1, 0, 1)",
              "(0, 1)",
              "(-1, 0, -1, 1)"};
    case AttrKind::kString: {
      std::vector<std::string> v = spec.choices;
      v.push_back("bogus");
      return v;
    }
  }
  return {};
}

// Every example with each attribute replaced by each of its edge texts.
void expect_edge_attributes_as_reference(const std::string& backend, int64_t max_output) {
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      expect_same_as_reference(backend, op.name, example.attrs_json, example.inputs, max_output);
      for (const AttrSpec& spec : op.attrs) {
        for (const std::string& text : edge_texts(spec)) {
          nlohmann::json attrs = parse_attrs_json(example.attrs_json);
          attrs[spec.name] = text;
          expect_same_as_reference(backend, op.name, attrs.dump(), example.inputs, max_output);
        }
      }
    }
  }
}

TEST(Robustness, CudaHostMatchesTheReferenceOnEdgeAttributes) {
  expect_edge_attributes_as_reference("cuda-host", int64_t{1} << 30);
}

// Every example with each input replaced by tensors of unrelated shapes and dtypes.
void expect_unrelated_shapes_as_reference(const std::string& backend) {
  const std::vector<ExampleTensor> odd = {
      ops::T({1}, {7}, 4),
      ops::T({2, 3}, {1, -2, 3, -4, 5, -6}, 8),
      ops::T({1, 1, 1, 1, 1, 1}, {-1}, 2),
      ops::T({3, 1, 2, 1}, {0, 1, 0, -1, 1, 0}, 2),
      ops::T({2, 1, 4, 4}, std::vector<int32_t>(32, -1), 8),
      ops::T({1, 5, 6}, {0, 9, 1, 1,  5, 5, 0, 8, 2, 2, 6, 6, 1, 7, 1,
                         1, 5, 5, -1, 6, 0, 0, 1, 1, 0, 5, 1, 1, 5, 5},
             8),
      ops::T8({4}, {-127, 127, 0, 1}, 8),
  };
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      for (size_t slot = 0; slot < example.inputs.size(); ++slot) {
        for (const ExampleTensor& replacement : odd) {
          std::vector<ExampleTensor> inputs = example.inputs;
          inputs[slot] = replacement;
          expect_same_as_reference(backend, op.name, example.attrs_json, inputs, 1 << 24);
        }
      }
    }
  }
}

TEST(Robustness, CudaHostMatchesTheReferenceOnUnrelatedInputShapes) {
  expect_unrelated_shapes_as_reference("cuda-host");
}

// Cases bigger than one launch's grid (65535 blocks of 256 threads) and larger fibers and
// windows than the generators draw.
std::vector<std::pair<std::string, std::string>> large_cases() {
  return {{"abs", "{}"},
          {"broadcast_add", "{}"},
          {"sum", R"J({"axis": "(1,)"})J"},
          {"conv2d", R"J({"channels": "8", "kernel_size": "(3, 3)", "padding": "(1, 1)"})J"},
          {"dense", R"J({"units": "64"})J"},
          {"transpose", "{}"}};
}

std::vector<ExampleTensor> large_inputs(const std::string& op, int64_t elementwise_size) {
  auto ramp = [](Shape shape, int modulus, int precision, bool int8) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<int32_t> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      values[static_cast<size_t>(i)] =
          static_cast<int32_t>((i * 7919) % (2 * modulus + 1)) - modulus;
    return int8 ? ops::T8(shape, values, precision) : ops::T(shape, values, precision);
  };
  // Dims are at most 2^24 (docs/contract.md): the elements in rows of 4096.
  if (op == "abs") return {ramp({elementwise_size / 4096, 4096}, 1000, 12, false)};
  if (op == "broadcast_add")
    return {ramp({elementwise_size / 64, 64}, 100, 8, true), ramp({64}, 100, 8, false)};
  if (op == "sum") return {ramp({64, 4096, 4}, 100, 8, true)};
  if (op == "conv2d") {
    return {ramp({2, 16, 33, 35}, 127, 8, true), ramp({8, 16, 3, 3}, 127, 8, true),
            ramp({8}, 1000, 16, false)};
  }
  if (op == "dense")
    return {ramp({33, 1000}, 127, 8, true), ramp({64, 1000}, 127, 8, true),
            ramp({64}, 5, 4, false)};
  return {ramp({17, 64, 129}, 500, 11, false)};  // transpose
}

TEST(Robustness, CudaHostMatchesTheReferenceOnLargeCases) {
  for (const auto& [op, attrs] : large_cases()) {
    expect_same_as_reference("cuda-host", op, attrs, large_inputs(op, int64_t{1} << 20));
  }
}

// The device backend: registered always, available only with a GPU.
const Backend& cuda_backend() {
  const Backend* backend = registry().find_backend("cuda");
  if (backend == nullptr) throw std::runtime_error("no cuda backend registered");
  return *backend;
}

TEST(CudaDevice, IsRegisteredForEveryOperatorWithItsAvailability) {
  const Backend& cuda = cuda_backend();
  for (const OpInfo& op : registry().ops()) EXPECT_TRUE(cuda.implements(op.name)) << op.name;
  if (!cuda.available) {
    EXPECT_FALSE(cuda.unavailable_reason.empty());
    const Outcome outcome = testing::call("abs", "{}", {ops::T({1}, {-1}, 2)}, "cuda");
    EXPECT_EQ(outcome.kind, OutcomeKind::kRuntimeError) << "an unavailable backend must not run";
  }
}

#define REQUIRE_CUDA_DEVICE()                                                                   \
  if (!cuda_backend().available) {                                                              \
    GTEST_SKIP() << "backend cuda skipped, unavailable: " << cuda_backend().unavailable_reason; \
  }

TEST(CudaDevice, EveryExampleMatchesTheReference) {
  REQUIRE_CUDA_DEVICE();
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      expect_same_as_reference("cuda", op.name, example.attrs_json, example.inputs);
    }
  }
}

TEST(CudaDevice, EdgeAttributesMatchTheReference) {
  REQUIRE_CUDA_DEVICE();
  expect_edge_attributes_as_reference("cuda", int64_t{1} << 24);
}

TEST(CudaDevice, UnrelatedInputShapesMatchTheReference) {
  REQUIRE_CUDA_DEVICE();
  expect_unrelated_shapes_as_reference("cuda");
}

TEST(CudaDevice, LargeCasesBeyondOneGridMatchTheReference) {
  REQUIRE_CUDA_DEVICE();
  // 2^25 elements: twice what one launch's grid covers, so the grid-stride loop runs twice.
  for (const auto& [op, attrs] : large_cases()) {
    expect_same_as_reference("cuda", op, attrs, large_inputs(op, int64_t{1} << 25));
  }
}

TEST(CudaDevice, InvalidCallsAreLogicErrorsBeforeAnyDeviceWork) {
  REQUIRE_CUDA_DEVICE();
  const Outcome outcome = testing::call(
      "elemwise_add", "{}", {ops::T({2}, {1, 2}, 4), ops::T({3}, {1, 2, 3}, 4)}, "cuda");
  EXPECT_EQ(outcome.kind, OutcomeKind::kLogicError) << testing::describe(outcome);
}

}  // namespace
}  // namespace cvm
