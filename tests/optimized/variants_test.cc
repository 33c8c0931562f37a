// The dispatch variants of the optimized backend: registered for every CPU path, each with every
// operator, unavailable (with why) above the CPU's ISA, and leaving the process's dispatch as it
// found it after each call, also when the kernel throws.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "support/call.h"

namespace cvm {
namespace {

TEST(DispatchVariants, EveryIsaAndAThreadVariantIsRegistered) {
  for (const char* name : {"optimized/avx512vnni", "optimized/avx2", "optimized/portable",
                           "optimized@3"}) {
    const Backend* b = registry().find_backend(name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->variant_of, "optimized");
    EXPECT_EQ(b->kernels.size(), registry().find_backend("optimized")->kernels.size()) << name;
  }
  const opt::Isa best = opt::detected_isa();
  EXPECT_TRUE(registry().find_backend(std::string("optimized/") + opt::isa_name(best))->available);
  EXPECT_TRUE(registry().find_backend("optimized/portable")->available);
  if (best != opt::Isa::kAvx512Vnni) {
    const Backend* vnni = registry().find_backend("optimized/avx512vnni");
    EXPECT_FALSE(vnni->available);
    EXPECT_NE(vnni->unavailable_reason.find("lacks avx512vnni"), std::string::npos);
  }
}

TEST(DispatchVariants, ACallLeavesTheDispatchAsItFoundIt) {
  const int cap = opt::isa_cap_state();
  const int threads = opt::threads();
  const int64_t threshold = opt::work_threshold();
  const Tensor x = Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  for (const char* name : {"optimized/portable", "optimized@3"}) {
    // A valid call, then one that throws (axis out of range) inside the kernel.
    EXPECT_EQ(run_op_outcome(registry(), name, "sum", nlohmann::json{{"axis", "(1,)"}}, {x}).kind,
              OutcomeKind::kOk);
    EXPECT_EQ(run_op_outcome(registry(), name, "sum", nlohmann::json{{"axis", "(5,)"}}, {x}).kind,
              OutcomeKind::kLogicError);
    EXPECT_EQ(opt::isa_cap_state(), cap) << name;
    EXPECT_EQ(opt::threads(), threads) << name;
    EXPECT_EQ(opt::work_threshold(), threshold) << name;
  }
}

}  // namespace
}  // namespace cvm
