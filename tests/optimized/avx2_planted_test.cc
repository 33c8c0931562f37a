// The planted saturation fault of the AVX2 dispatch (nn::kAvx2FaultU8For8Bit: vpmaddubsw taken
// for a call whose data and weights both have precision 8, where its int16 pair sums saturate)
// is caught by a campaign of 1,500 calls of the native AVX2 variant: the proof that the
// generators reach the precision-8 x precision-8 calls at the saturation edge
// (path::kU8Precision's threshold, harness/gen/nn_gen.cc). Without the fault the same campaign
// finds nothing.
#include <gtest/gtest.h>

#include <string>

#include "optimized/cpu_features.h"
#include "optimized/planted_faults.h"
#include "registry/registry.h"
#include "support/nn_planted.h"

namespace cvm {
namespace {

// The planted campaign (tests/support/nn_planted.h: 1,500 valid calls) of optimized/avx2, with
// the fault planted or not.
int64_t mismatches(bool planted) {
  if (!planted) return testing::nn_campaign_mismatches(std::nullopt, "optimized/avx2", 54, 1500);
  return testing::nn_campaign_mismatches(
      opt::make_planted_avx2_variant(*registry().find_backend("optimized"),
                                     "optimized/avx2-planted-u8"),
      "optimized/avx2", 54, 1500);
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
