// Planted faults in the NEON dot-product micro-kernel (nn::NeonDotFault: a lane, the K tail),
// each caught by a short campaign of optimized/neon-dotprod with the fault planted: the proof
// that the campaign judges that kernel. Without a fault the same campaign finds nothing. Runs
// where the CPU has the dot product: an aarch64 machine, or qemu-aarch64 on any x86 machine
// (ci/arm64.sh); skipped elsewhere (an x86 build holds no NEON kernels).
#include <gtest/gtest.h>

#include <string>

#include "optimized/cpu_features.h"
#include "optimized/planted_faults.h"
#include "registry/registry.h"
#include "support/nn_planted.h"

namespace cvm {
namespace {

// The planted campaign (tests/support/nn_planted.h: 800 valid calls) with `fault` planted.
int64_t mismatches_with(int fault) {
  const std::string name = "optimized/neon-dotprod-planted-" + std::to_string(fault);
  return testing::nn_campaign_mismatches(
      opt::make_planted_neon_variant(*registry().find_backend("optimized"), name, fault),
      "optimized/neon-dotprod", 55, 800);
}

bool has_neon_dot() { return opt::isa_supported(opt::Isa::kNeonDot); }

TEST(NeonDotPlanted, WithoutAFaultTheCampaignFindsNothing) {
  if (!has_neon_dot()) GTEST_SKIP() << "no NEON dot product here (run ci/arm64.sh)";
  EXPECT_EQ(mismatches_with(opt::nn::kNeonDotNoFault), 0);
}

struct Planted {
  int fault;
  const char* what;
};

class NeonDotPlantedFault : public ::testing::TestWithParam<Planted> {};

TEST_P(NeonDotPlantedFault, TheCampaignCatchesIt) {
  if (!has_neon_dot()) GTEST_SKIP() << "no NEON dot product here (run ci/arm64.sh)";
  EXPECT_GT(mismatches_with(GetParam().fault), 0) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    EachFault, NeonDotPlantedFault,
    ::testing::Values(Planted{opt::nn::kNeonDotFaultLane, "the last lane keeps its accumulator"},
                      Planted{opt::nn::kNeonDotFaultKTail, "an odd last k-step dropped"}),
    [](const ::testing::TestParamInfo<Planted>& info) {
      return "fault" + std::to_string(info.param.fault);
    });

}  // namespace
}  // namespace cvm
