// The dispatch variants of the optimized backend: registered for every CPU path, each with every
// operator, unavailable (with why) above the CPU's ISA, and leaving the process's dispatch as it
// found it after each call, also when the kernel throws.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "support/call.h"
#include "support/isas.h"

namespace cvm {
namespace {

// The variants of the ISAs this binary holds: the x86 ones (and the twins) in an x86 build, the
// NEON one in an aarch64 build; never another processor's.
TEST(DispatchVariants, EveryIsaAndAThreadVariantIsRegistered) {
  std::vector<std::string> names = {"optimized@3"};
  for (opt::Isa isa : testing::all_isas()) {
    const std::string name = std::string("optimized/") + opt::isa_name(isa);
    if (!opt::isa_built(isa)) {
      EXPECT_EQ(registry().find_backend(name), nullptr) << name;
      continue;
    }
    names.push_back(name);
    if (opt::isa_has_twin(isa)) names.push_back(name + "~simde");
  }
  EXPECT_EQ(opt::isa_built(opt::Isa::kAvx2), !opt::isa_built(opt::Isa::kNeonDot));
  for (const std::string& name : names) {
    const Backend* b = registry().find_backend(name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->variant_of, "optimized");
    EXPECT_EQ(b->kernels.size(), registry().find_backend("optimized")->kernels.size()) << name;
  }
  const opt::Isa best = opt::detected_isa();
  EXPECT_TRUE(registry().find_backend(std::string("optimized/") + opt::isa_name(best))->available);
  EXPECT_TRUE(registry().find_backend("optimized/portable")->available);
  for (opt::Isa isa : testing::all_isas()) {
    if (!opt::isa_has_twin(isa)) continue;  // none, or not an x86 build
    const std::string name = std::string("optimized/") + opt::isa_name(isa);
    const Backend* native = registry().find_backend(name);
    EXPECT_EQ(native->available, opt::isa_supported(isa)) << name;
    if (!native->available) {
      EXPECT_NE(native->unavailable_reason.find(std::string("lacks ") + opt::isa_name(isa)),
                std::string::npos);
    }
    // The twin runs everywhere and declares the native variant's paths.
    const Backend* twin = registry().find_backend(name + "~simde");
    EXPECT_TRUE(twin->available) << name;
    EXPECT_EQ(twin->paths, native->paths) << name;
  }
}

// A call on a twin runs the emulated kernels (their path is the ISA's) and restores the
// dispatch.
TEST(DispatchVariants, ATwinRunsItsIsaPathAndRestoresTheDispatch) {
  if (!opt::isa_has_twin(opt::Isa::kAvxVnni)) GTEST_SKIP() << "no emulated twins (not x86)";
  const int cap = opt::isa_cap_state();
  const Tensor x = Tensor::from_values({2, 8}, std::vector<int32_t>(16, 3), 8);
  const Tensor w = Tensor::from_values({24, 8}, std::vector<int32_t>(192, -2), 8);
  const nlohmann::json attrs{{"units", "24"}, {"use_bias", "False"}};
  for (const auto& [name, path] :
       {std::pair{"optimized/avx512vnni~simde", "dense.gemm.vnni"},
        std::pair{"optimized/avxvnni~simde", "dense.gemm.avxvnni"}}) {
    const Outcome got = run_op_outcome(registry(), name, "dense", attrs, {x, w});
    ASSERT_EQ(got.kind, OutcomeKind::kOk) << name << ": " << got.message;
    EXPECT_EQ(got.outputs[0].get(0), -48) << name;
    EXPECT_NE(std::find(got.paths.begin(), got.paths.end(), path), got.paths.end()) << name;
    EXPECT_EQ(opt::isa_cap_state(), cap) << name;
  }
}

// optimized/neon-dotprod runs the SDOT kernels (their path) and restores the dispatch; on an
// aarch64 CPU with the dot product, or under qemu-aarch64 (ci/arm64.sh).
TEST(DispatchVariants, TheNeonVariantRunsItsPathAndRestoresTheDispatch) {
  if (!opt::isa_supported(opt::Isa::kNeonDot)) GTEST_SKIP() << "no NEON dot product here";
  const int cap = opt::isa_cap_state();
  const Tensor x = Tensor::from_values({2, 8}, std::vector<int32_t>(16, 3), 8);
  const Tensor w = Tensor::from_values({24, 8}, std::vector<int32_t>(192, -2), 8);
  const nlohmann::json attrs{{"units", "24"}, {"use_bias", "False"}};
  const Outcome got = run_op_outcome(registry(), "optimized/neon-dotprod", "dense", attrs, {x, w});
  ASSERT_EQ(got.kind, OutcomeKind::kOk) << got.message;
  EXPECT_EQ(got.outputs[0].get(0), -48);
  EXPECT_NE(std::find(got.paths.begin(), got.paths.end(), "dense.gemm.neon_dotprod"),
            got.paths.end());
  EXPECT_EQ(opt::isa_cap_state(), cap);
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
