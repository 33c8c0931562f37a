// Planted faults in the AVX-VNNI micro-kernel (nn::AvxVnniFault: a lane, the K tail, the pair
// order), each caught by a short campaign of the emulated twin, optimized/avxvnni~simde, which
// runs on any x86-64 CPU: the proof that the twin judges that kernel on machines without
// AVX-VNNI. Without a fault the same campaign finds nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimized/cpu_features.h"
#include "optimized/planted_faults.h"
#include "registry/registry.h"
#include "support/nn_planted.h"

namespace cvm {
namespace {

// The planted campaign (tests/support/nn_planted.h: 1,500 valid calls) on the twin with `fault`
// planted.
int64_t mismatches_with(int fault) {
  const std::string name = "optimized/avxvnni~simde-planted-" + std::to_string(fault);
  return testing::nn_campaign_mismatches(
      opt::make_planted_avxvnni_variant(*registry().find_backend("optimized"), name, fault),
      "optimized/avxvnni~simde", 53, 1500);
}

TEST(AvxVnniPlanted, WithoutAFaultTheCampaignFindsNothing) {
  if (!opt::isa_has_twin(opt::Isa::kAvxVnni)) GTEST_SKIP() << "no emulated twins (not x86)";
  EXPECT_EQ(mismatches_with(opt::nn::kAvxVnniNoFault), 0);
}

struct Planted {
  int fault;
  const char* what;
};

class AvxVnniPlantedFault : public ::testing::TestWithParam<Planted> {};

TEST_P(AvxVnniPlantedFault, TheTwinsCampaignCatchesIt) {
  if (!opt::isa_has_twin(opt::Isa::kAvxVnni)) GTEST_SKIP() << "no emulated twins (not x86)";
  EXPECT_GT(mismatches_with(GetParam().fault), 0) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    EachFault, AvxVnniPlantedFault,
    ::testing::Values(Planted{opt::nn::kAvxVnniFaultLane, "the last lane keeps its accumulator"},
                      Planted{opt::nn::kAvxVnniFaultKTail, "an odd last k-step dropped"},
                      Planted{opt::nn::kAvxVnniFaultPairOrder, "u8 and s8 operands swapped"}),
    [](const ::testing::TestParamInfo<Planted>& info) {
      return "fault" + std::to_string(info.param.fault);
    });

}  // namespace
}  // namespace cvm
