#include "support/nn_planted.h"

#include <gtest/gtest.h>

#include <iostream>
#include <utility>

#include "harness/campaign/campaign.h"
#include "registry/registry.h"

namespace cvm::testing {

int64_t nn_campaign_mismatches(std::optional<Backend> planted, const std::string& like,
                               uint64_t seed, int64_t max_cases) {
  Registry r = registry();
  std::string name = like;
  if (planted) {
    name = planted->name;
    planted->declared_ops = registry().find_backend(like)->declared_ops;
    r.add_backend(std::move(*planted));
  }
  CampaignOptions o;
  o.seconds = 3600;  // the calls bound it
  o.max_cases = max_cases;
  o.seed = seed;
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

}  // namespace cvm::testing
