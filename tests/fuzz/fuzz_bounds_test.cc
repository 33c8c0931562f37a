// The fuzz targets' bound on the work of one call (kFuzzMaxTensorElements): a call whose
// reference would make a tensor over the cap is skipped before any kernel arithmetic; one at the
// cap still runs on every backend, so the bound hides no finding inside it. (CI once timed out
// on an upsampling with a scale of thousands: a single call took over 10 s.)
#include <gtest/gtest.h>

#include <algorithm>

#include "registry/registry.h"
#include "harness/engine/call.h"
#include "harness/gen/fuzz_input.h"
#include "harness/gen/generators.h"
#include "ops/records.h"

namespace cvm {
namespace {

Call upsampling(int64_t side, int64_t scale) {
  Call call;
  call.op = "upsampling";
  call.attrs = {{"scale", std::to_string(scale)}};
  call.inputs.push_back(
      Tensor::from_values({1, 1, side, side}, std::vector<int32_t>(side * side, 7), 8));
  return call;
}

TEST(FuzzBounds, ACallWhoseOutputIsOverTheCapIsSkipped) {
  const Call huge = upsampling(4, 4095);  // 268 million outputs: tens of seconds per backend
  EXPECT_FALSE(bounded_reference(registry(), huge).has_value());
  EXPECT_FALSE(fuzz_one(registry(), huge).has_value());
}

TEST(FuzzBounds, ACallAtTheCapRunsAndItsOutcomeIsTheReferences) {
  const Call at_cap = upsampling(4, 64);  // (1, 1, 256, 256): exactly kFuzzMaxTensorElements
  ASSERT_EQ(256 * 256, kFuzzMaxTensorElements);
  const std::optional<Outcome> reference = bounded_reference(registry(), at_cap);
  ASSERT_TRUE(reference.has_value());
  ASSERT_EQ(reference->kind, OutcomeKind::kOk);
  EXPECT_EQ(reference->outputs.at(0).size(), kFuzzMaxTensorElements);
  EXPECT_FALSE(fuzz_one(registry(), at_cap).has_value());
}

TEST(FuzzBounds, AnInvalidCallIsStillCheckedWhateverItsSize) {
  // A scale at the attribute limit is a logic_error before any allocation, so the cap does not
  // hide the error-class check.
  const std::optional<Outcome> reference = bounded_reference(registry(), upsampling(4, 4096));
  ASSERT_TRUE(reference.has_value());
  EXPECT_EQ(reference->kind, OutcomeKind::kLogicError);
}

TEST(FuzzBounds, GeneratorModeDrawsNoTensorOverTheCap) {
  // flatten's output_dim_over_limit needs an input of 2^24+ elements: 0.5 s per exec under ASan.
  // The cap stops it before it is allocated; the operator's valid calls still decode.
  const FuzzTarget& all = *find_fuzz_target("all");
  const OpGenerators& gens = *generators_for(*ops::records().find_op("flatten"));
  const auto rule = std::find_if(gens.invalid.begin(), gens.invalid.end(),
                                 [](const InvalidGenerator& g) { return g.rule == "output_dim_over_limit"; });
  ASSERT_NE(rule, gens.invalid.end());
  const auto rule_byte = static_cast<uint8_t>(rule - gens.invalid.begin() + 1);
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const std::string big = encode_generator_input(all, "flatten", seed, 50, rule_byte);
    EXPECT_FALSE(decode_fuzz_input(all, reinterpret_cast<const uint8_t*>(big.data()), big.size()));
    const std::string valid = encode_generator_input(all, "flatten", seed, 50, 0);
    const std::optional<Call> call =
        decode_fuzz_input(all, reinterpret_cast<const uint8_t*>(valid.data()), valid.size());
    ASSERT_TRUE(call.has_value());
    EXPECT_EQ(call->op, "flatten");
  }
}

}  // namespace
}  // namespace cvm
