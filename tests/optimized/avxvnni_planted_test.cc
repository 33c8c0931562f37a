// Planted faults in the AVX-VNNI micro-kernel (nn::AvxVnniFault: a lane, the K tail, the pair
// order), each caught by a short campaign of the emulated twin, optimized/avxvnni~simde, which
// runs on any x86-64 CPU: the proof that the twin judges that kernel on machines without
// AVX-VNNI. Without a fault the same campaign finds nothing.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/nn_gemm.h"
#include "registry/registry.h"

namespace cvm {
namespace {

// A campaign (20 s at most, 1,500 valid calls of dense and conv2d, a fixed seed) on the twin
// with `fault` planted: its mismatching calls. Fails the test when the backend computed under
// 100 calls (too few to judge).
int64_t mismatches_with(int fault) {
  Registry r = registry();
  const std::string name = "optimized/avxvnni~simde-planted-" + std::to_string(fault);
  Backend planted =
      opt::make_planted_avxvnni_variant(*registry().find_backend("optimized"), name, fault);
  planted.declared_ops = registry().find_backend("optimized/avxvnni~simde")->declared_ops;
  r.add_backend(std::move(planted));
  CampaignOptions o;
  o.seconds = 20;
  o.max_cases = 1500;
  o.seed = 53;
  o.shrink_seconds = 0;
  o.max_repros = 0;
  o.ops = {"dense", "conv2d"};
  o.backends = {name};
  o.invalid_share = 0;
  const CampaignResult result = run_campaign(r, o);
  int64_t ok = 0;  // calls the backend computed (not only rejected)
  for (const std::string& op : o.ops) ok += result.table.at(op).at(name).ok;
  EXPECT_GT(ok, 100) << "fault " << fault << ": too few valid calls to judge";
  std::cout << "fault " << fault << ": " << result.calls << " calls, " << ok << " ok, "
            << result.mismatches << " mismatching\n";
  return result.mismatches;
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
