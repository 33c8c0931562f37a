// A backend that loses operators it declares must fail the campaign (Backend::declared_ops):
// before, its rows turned to "skipped" and only a backend that skipped every operator failed.
#include <gtest/gtest.h>

#include "cuda/plan.h"

#include <set>

#include "registry/registry.h"
#include "cvmcheck/op_list.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_report.h"

namespace cvm {
namespace {

CampaignOptions options() {
  CampaignOptions o;
  o.seconds = 60;
  o.max_cases = 60;
  o.ops = {"sum", "max", "abs"};
  o.backends = {"cuda-host"};
  o.seed = 11;
  o.shrink_seconds = 0;
  return o;
}

// The registry with cuda-host's reduce family dropped from its kernels, as a packaging mistake
// or a broken plan table would drop it.
Registry without_reduce_kernels() {
  Registry r = registry();
  Backend* host = r.find_backend("cuda-host");
  host->kernels.erase("sum");
  host->kernels.erase("max");
  return r;
}

TEST(CampaignDeclared, EveryBuiltInBackendDeclaresEveryListedOperator) {
  for (const Backend& b : registry().backends()) {
    if (b.external || b.name.rfind("planted", 0) == 0) continue;
    // cuda's kernel-choice variants: the operators whose plans the choice changes (all of them
    // for /simple).
    const cuda::VariantChoice* choice = nullptr;
    for (const cuda::VariantChoice& v : cuda::variant_choices()) {
      if (b.name == "cuda" + v.suffix || b.name == "cuda-host" + v.suffix) choice = &v;
    }
    if (choice != nullptr && !choice->ops.empty()) {
      EXPECT_EQ(b.declared_ops, choice->ops) << b.name;
      continue;
    }
    EXPECT_EQ(b.declared_ops.size(), kOperatorList.size()) << b.name;
  }
}

TEST(CampaignDeclared, ABackendThatDropsAFamilyFailsTheCampaign) {
  const CampaignResult result = run_campaign(without_reduce_kernels(), options());
  EXPECT_EQ(result.mismatches, 0);
  EXPECT_TRUE(result.nothing_compared.empty());  // abs was compared
  ASSERT_EQ(result.declared_not_compared.count("cuda-host"), 1u) << campaign_json(result);
  EXPECT_EQ(result.declared_not_compared.at("cuda-host"), (std::set<std::string>{"sum", "max"}));
  EXPECT_NE(campaign_table(result).find("nothing compared for backend cuda-host on max, sum"),
            std::string::npos)
      << campaign_table(result);
  EXPECT_NE(campaign_junit(result).find("cvmcheck.declared_not_compared"), std::string::npos);
}

TEST(CampaignDeclared, ABackendThatDeclaresNothingMayImplementPart) {
  Registry r = without_reduce_kernels();
  r.find_backend("cuda-host")->declared_ops.clear();
  const CampaignResult result = run_campaign(r, options());
  EXPECT_TRUE(result.declared_not_compared.empty()) << campaign_json(result);
}

TEST(CampaignDeclared, TheIntactRegistryPasses) {
  const CampaignResult result = run_campaign(registry(), options());
  EXPECT_TRUE(result.declared_not_compared.empty()) << campaign_json(result);
}

}  // namespace
}  // namespace cvm
