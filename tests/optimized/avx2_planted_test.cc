// The planted saturation fault of the AVX2 dispatch (nn::kAvx2FaultU8For8Bit: vpmaddubsw taken
// for a call whose data and weights both have precision 8, where its int16 pair sums saturate)
// is caught by a 20-s campaign of the native AVX2 variant: the proof that the generators reach
// the precision-8 x precision-8 calls at the saturation edge (path::kU8Precision's threshold,
// harness/gen/nn_gen.cc). Without the fault the same campaign finds nothing.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "harness/campaign/campaign.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "registry/registry.h"

namespace cvm {
namespace {

// A campaign (20 s at most, 1,500 valid calls of dense and conv2d, a fixed seed) of optimized/avx2
// with the fault planted or not: its mismatching calls. Fails the test when the backend computed
// under 100 calls (too few to judge).
int64_t mismatches(bool planted) {
  Registry r = registry();
  std::string name = "optimized/avx2";
  if (planted) {
    name = "optimized/avx2-planted-u8";
    Backend b = opt::make_planted_avx2_variant(*registry().find_backend("optimized"), name);
    b.declared_ops = registry().find_backend("optimized/avx2")->declared_ops;
    r.add_backend(std::move(b));
  }
  CampaignOptions o;
  o.seconds = 3600;  // the 1,500 calls bound it, never the machine's speed or load
  o.max_cases = 1500;
  o.seed = 54;
  o.shrink_seconds = 0;
  o.max_repros = 0;
  o.ops = {"dense", "conv2d"};
  o.backends = {name};
  o.invalid_share = 0;
  const CampaignResult result = run_campaign(r, o);
  int64_t ok = 0;  // calls the backend computed (not only rejected)
  for (const std::string& op : o.ops) ok += result.table.at(op).at(name).ok;
  EXPECT_GT(ok, 100) << name << ": too few valid calls to judge";
  std::cout << name << ": " << result.calls << " calls, " << ok << " ok, " << result.mismatches
            << " mismatching\n";
  return result.mismatches;
}

TEST(Avx2Planted, WithoutTheFaultTheCampaignFindsNothing) {
  if (!opt::isa_supported(opt::Isa::kAvx2)) GTEST_SKIP() << "this CPU lacks AVX2";
  EXPECT_EQ(mismatches(false), 0);
}

TEST(Avx2Planted, VpmaddubswOnEightBitsBothSidesIsCaught) {
  if (!opt::isa_supported(opt::Isa::kAvx2)) GTEST_SKIP() << "this CPU lacks AVX2";
  EXPECT_GT(mismatches(true), 0) << "vpmaddubsw taken for a precision-8 x precision-8 call";
}

}  // namespace
}  // namespace cvm
