#include "support/cuda_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "cvmcheck/compare.h"
#include "harness/campaign/campaign.h"
#include "registry/registry.h"
#include "support/call.h"

namespace cvm::testing {

void expect_kernel_as_reference(const std::string& backend, const std::string& op,
                                const std::string& attrs, const std::vector<ExampleTensor>& inputs,
                                const std::vector<std::string>& paths) {
  const Outcome expected = call(op, attrs, inputs);
  ASSERT_EQ(expected.kind, OutcomeKind::kOk) << op << " " << attrs << ": " << describe(expected);
  const Outcome actual = call(op, attrs, inputs, backend);
  std::string shapes;
  for (const ExampleTensor& t : inputs) shapes += " " + shape_str(t.shape);
  const auto difference = compare_outcomes(actual, expected, backend, "reference");
  EXPECT_FALSE(difference.has_value()) << backend << " " << op << " " << attrs << " inputs"
                                       << shapes << ": " << (difference ? difference->what : "");
  const bool took = std::any_of(paths.begin(), paths.end(), [&](const std::string& id) {
    return std::find(actual.paths.begin(), actual.paths.end(), id) != actual.paths.end();
  });
  EXPECT_TRUE(took) << backend << " " << op << " " << attrs << " inputs" << shapes
                    << " took none of " << ::testing::PrintToString(paths) << " but "
                    << ::testing::PrintToString(actual.paths);
}

int64_t campaign_mismatches(const cuda::KernelChoice& choice, const std::vector<std::string>& ops,
                            int64_t max_cases, uint64_t seed) {
  Registry r = registry();
  const std::string name = "cuda-host-planted-" + std::to_string(choice.planted);
  r.add_backend(cuda::make_host_backend(name, choice));
  CampaignOptions o;
  o.seconds = 20;
  o.max_cases = max_cases;
  o.seed = seed;
  o.shrink_seconds = 0;
  o.max_repros = 0;
  o.ops = ops;
  o.backends = {name};
  o.invalid_share = 0;
  const CampaignResult result = run_campaign(r, o);
  int64_t ok = 0;  // calls the backend computed (not only rejected)
  for (const std::string& op : ops) ok += result.table.at(op).at(name).ok;
  EXPECT_GT(ok, 100) << "fault " << choice.planted << ": too few valid calls to judge";
  std::cout << "fault " << choice.planted << ": " << result.calls << " calls, " << ok << " ok, "
            << result.mismatches << " mismatching\n";
  return result.mismatches;
}

}  // namespace cvm::testing
