// Planted faults in the NEON dot-product micro-kernel (nn::NeonDotFault: a lane, the K tail),
// each caught by a short campaign of optimized/neon-dotprod with the fault planted: the proof
// that the campaign judges that kernel. Without a fault the same campaign finds nothing. Runs
// where the CPU has the dot product: an aarch64 machine, or qemu-aarch64 on any x86 machine
// (ci/arm64.sh); skipped elsewhere (an x86 build holds no NEON kernels).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "harness/campaign/campaign.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/nn_gemm.h"
#include "registry/registry.h"

namespace cvm {
namespace {

// A campaign (800 valid calls of dense and conv2d at most, a fixed seed; the time cap only
// bounds a slow emulator) with `fault` planted: its mismatching calls. Fails the test when the
// backend computed under 100 calls (too few to judge).
int64_t mismatches_with(int fault) {
  Registry r = registry();
  const std::string name = "optimized/neon-dotprod-planted-" + std::to_string(fault);
  Backend planted =
      opt::make_planted_neon_variant(*registry().find_backend("optimized"), name, fault);
  planted.declared_ops = registry().find_backend("optimized/neon-dotprod")->declared_ops;
  r.add_backend(std::move(planted));
  CampaignOptions o;
  o.seconds = 120;
  o.max_cases = 800;
  o.seed = 55;
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
