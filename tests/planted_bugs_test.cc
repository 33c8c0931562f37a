// A harness that cannot fail is worthless: each planted-bug backend (harness/planted.h) must be
// caught by the properties within a bounded number of cases, the repro it leaves must replay
// the failure through the case runner, and the campaign must report it.
#include <gtest/gtest.h>

#include <filesystem>

#include "backends/registry.h"
#include "cvmcheck/case.h"
#include "harness/campaign.h"
#include "harness/generators.h"
#include "harness/planted.h"
#include "harness/property.h"
#include "harness/verdict.h"
#include "ops/schema.h"
#include "reference/kernels.h"

namespace cvm {
namespace {

constexpr int kCaseBound = 2000;  // a planted bug must be caught within this many cases

// A registry with every operator, the reference and one planted backend.
std::unique_ptr<Registry> registry_with(const PlantedBug& bug) {
  auto r = std::make_unique<Registry>();
  ops::add_all_ops(*r);
  r->add_backend(ref::make_backend());
  r->add_backend(make_planted_backend(*r->find_backend("reference"), bug));
  return r;
}

class PlantedBugTest : public ::testing::TestWithParam<PlantedBug> {};

TEST_P(PlantedBugTest, PropertiesCatchItAndTheReproReplays) {
  const PlantedBug& bug = GetParam();
  if (!registry().find_backend("reference")->implements(bug.op)) {
    GTEST_SKIP() << bug.op << " has no reference kernel in this build";
  }
  const auto r = registry_with(bug);
  const OpGenerators* gens = generators_for(registry().op(bug.op));
  ASSERT_NE(gens, nullptr) << bug.op << " has no generator record";
  const std::string repro_root = "planted-repros";
  std::string last_repro;
  const PropertyVerdict verdict = check_property(
      bug.backend,
      [&] {
        Call call;
        if (bug.invalid_calls) {
          const auto k = *rc::gen::inRange<size_t>(0, gens->invalid.size());
          call = *gens->invalid[k].gen;
        } else {
          call = *gens->valid;
        }
        const CallVerdict v = judge_call(*r, call, {bug.backend}, repro_root, bug.backend);
        if (!v.passed) {
          last_repro = v.repro_dir;
          RC_FAIL(v.report);
        }
      },
      {kCaseBound});
  ASSERT_FALSE(verdict.passed) << bug.description << " survived " << kCaseBound << " cases";
  EXPECT_LT(verdict.successes, kCaseBound);
  std::cout << bug.backend << ": caught after " << verdict.successes << " passing cases\n"
            << verdict.message << "\n";

  // The repro directory (the shrunk counterexample) replays: the planted backend does not match
  // the expectation, the reference does.
  ASSERT_FALSE(last_repro.empty());
  ASSERT_TRUE(std::filesystem::exists(last_repro + "/case.json"));
  const CaseResult planted = run_case(*r, last_repro, bug.backend);
  ASSERT_TRUE(planted.matches.has_value());
  EXPECT_FALSE(*planted.matches) << "the repro does not reproduce the failure";
  const CaseResult reference = run_case(*r, last_repro, "reference");
  EXPECT_TRUE(reference.matches.value_or(false)) << "the repro's expectation is not the oracle's";
}

TEST_P(PlantedBugTest, CampaignReportsIt) {
  const PlantedBug& bug = GetParam();
  if (!registry().find_backend("reference")->implements(bug.op)) {
    GTEST_SKIP() << bug.op << " has no reference kernel in this build";
  }
  const auto r = registry_with(bug);
  CampaignOptions options;
  options.seconds = 120;  // bounded by max_cases long before
  options.max_cases = kCaseBound;
  options.ops = {bug.op};
  options.backends = {bug.backend};
  options.seed = 12345;
  options.invalid_share = bug.invalid_calls ? 1.0 : 0.0;
  const CampaignResult result = run_campaign(*r, options);
  ASSERT_FALSE(result.findings.empty()) << bug.description << " not found in " << result.calls
                                        << " campaign calls";
  EXPECT_EQ(result.findings.front().backend, bug.backend);
  EXPECT_GT(result.table.at(bug.op).at(bug.backend).mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(All, PlantedBugTest, ::testing::ValuesIn(planted_bugs()),
                         [](const ::testing::TestParamInfo<PlantedBug>& info) {
                           std::string name;
                           for (char c : info.param.backend) name += c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace cvm
