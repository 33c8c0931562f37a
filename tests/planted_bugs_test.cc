// A harness that cannot fail is worthless: each planted-bug backend (harness/planted/planted.h) must be
// caught by the properties within a bounded number of cases, the repro it leaves must replay
// the failure through the case runner, and the campaign must report it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "registry/registry.h"
#include "cvmcheck/case.h"
#include "support/planted_registry.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_report.h"
#include "harness/gen/generators.h"
#include "harness/planted/planted.h"
#include "harness/engine/property.h"
#include "harness/findings/finding.h"
#include "harness/findings/shrink.h"
#include "harness/engine/verdict.h"
#include "ops/schema.h"
#include "reference/kernels.h"

namespace cvm {
namespace {

constexpr int kCaseBound = 2000;  // a planted bug must be caught within this many cases

using testing::registry_with;

// A campaign over the planted bug's operator and backend, bounded by `max_cases`.
CampaignOptions campaign_on(const PlantedBug& bug, uint64_t seed, int64_t max_cases) {
  CampaignOptions options;
  options.seconds = 120;  // bounded by max_cases long before
  options.max_cases = max_cases;
  options.ops = {bug.op};
  options.backends = {bug.backend};
  options.seed = seed;
  options.invalid_share = bug.invalid_calls ? 1.0 : 0.0;
  return options;
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
          // Every rule alike, as the campaign draws them (inRange alone scales with the
          // case's size and would keep early cases on the first rules).
          const auto k = *rc::gen::resize(100, rc::gen::inRange<size_t>(0, gens->invalid.size()));
          call = *gens->invalid[k].gen;
        } else {
          call = *gens->valid;
        }
        CallVerdict v = judge_call(*r, call, {bug.backend});
        if (!v.passed) {
          save_repro(call, repro_root + "/" + bug.backend, v);
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
  const CaseResult planted = judge_case(*r, last_repro, bug.backend);
  ASSERT_TRUE(planted.matches.has_value());
  EXPECT_FALSE(*planted.matches) << "the repro does not reproduce the failure";
  const CaseResult reference = judge_case(*r, last_repro, "reference");
  EXPECT_TRUE(reference.matches.value_or(false)) << "the repro's expectation is not the oracle's";
}

TEST_P(PlantedBugTest, CampaignReportsIt) {
  const PlantedBug& bug = GetParam();
  if (!registry().find_backend("reference")->implements(bug.op)) {
    GTEST_SKIP() << bug.op << " has no reference kernel in this build";
  }
  const auto r = registry_with(bug);
  const CampaignOptions options = campaign_on(bug, 12345, kCaseBound);
  const CampaignResult result = run_campaign(*r, options);
  ASSERT_FALSE(result.findings.empty()) << bug.description << " not found in " << result.calls
                                        << " campaign calls";
  EXPECT_EQ(result.findings.front().backend, bug.backend);
  EXPECT_GT(result.table.at(bug.op).at(bug.backend).mismatches, 0);
}

// One bug repeating on every call is one finding (one signature with its count of calls), and
// the repros it writes are bounded: one per signature, however many calls fail.
TEST_P(PlantedBugTest, CampaignGroupsARepeatingBugAndBoundsItsRepros) {
  const PlantedBug& bug = GetParam();
  const auto r = registry_with(bug);
  const std::string root = ::testing::TempDir() + "/grouped-" + bug.backend;
  std::filesystem::remove_all(root);
  CampaignOptions options = campaign_on(bug, 777, kCaseBound);
  options.repro_root = root;
  const CampaignResult result = run_campaign(*r, options);
  ASSERT_EQ(result.findings.size(), 1u) << campaign_table(result);
  const Finding& finding = result.findings.front();
  EXPECT_EQ(finding.calls, result.mismatches);
  EXPECT_GT(finding.calls, 1) << "the bug should repeat within " << kCaseBound << " calls";
  EXPECT_EQ(finding.key.find("index"), std::string::npos) << finding.key;
  int64_t dirs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) dirs += entry.is_directory();
  EXPECT_EQ(dirs, 1);
  EXPECT_EQ(result.repros_written, 1);
  ASSERT_EQ(finding.repro_dirs.size(), 1u);
  EXPECT_EQ(finding.repro_dir, finding.repro_dirs.front());
  EXPECT_GT(result.repro_bytes, 0);
  const CaseResult replay = judge_case(*r, finding.repro_dir, bug.backend);
  EXPECT_FALSE(replay.matches.value_or(true)) << "the one repro kept does not replay the bug";
  // Saved shrunk: never larger than drawn, and the case says both sizes.
  EXPECT_LE(finding.shrunk_elements, finding.original_elements);
  EXPECT_GT(finding.shrunk_elements, 0);
  EXPECT_NE(read_case(finding.repro_dir).note.find("shrunk from"), std::string::npos);
}

// A finding drawn large is saved small: the generator's shrink tree is walked while the call
// still fails with the same signature.
TEST(ShrinkFinding, ALargeDrawShrinksAndKeepsItsSignature) {
  PlantedBug bug;
  for (const PlantedBug& b : planted_bugs()) {
    if (b.op == "cvm_right_shift") bug = b;
  }
  const auto r = registry_with(bug);
  const OpGenerators* gens = generators_for(registry().op(bug.op));
  ASSERT_NE(gens, nullptr);
  for (uint64_t seed = 1; seed < 5000; ++seed) {
    const rc::Shrinkable<Call> drawn = gens->valid(rc::Random(seed), 100);
    const Call call = drawn.value();
    if (input_elements(call) < 200) continue;
    const CallVerdict verdict = judge_call(*r, call, {bug.backend});
    if (verdict.passed) continue;
    const std::string signature = finding_signature(call.op, verdict, call.rule);
    const ShrinkResult shrunk = shrink_finding(*r, drawn, verdict, {bug.backend}, signature, 30);
    std::cout << "shrunk " << shrunk.original_elements << " -> " << shrunk.shrunk_elements
              << " input elements in " << shrunk.steps << " steps, " << shrunk.tried
              << " candidates\n";
    EXPECT_FALSE(shrunk.verdict.passed);
    EXPECT_EQ(finding_signature(shrunk.call.op, shrunk.verdict, shrunk.call.rule), signature);
    EXPECT_LT(shrunk.shrunk_elements, shrunk.original_elements);
    EXPECT_LE(shrunk.shrunk_elements, 20);
    return;
  }
  FAIL() << "no large failing draw found";
}

// A finding that hangs on one value of a large input, with no shrinks of the generator's left
// (as when a redrawn shape loses the value), is cut around that value down to one element.
TEST(ShrinkFinding, CutsKeepTheValueTheFindingHangsOn) {
  PlantedBug bug;
  for (const PlantedBug& b : planted_bugs()) {
    if (b.op == "cvm_right_shift") bug = b;
  }
  const auto r = registry_with(bug);
  Call call;
  call.op = "cvm_right_shift";
  call.attrs = {{"precision", "8"}, {"shift_bit", "1"}};
  std::vector<int32_t> values(5 * 4 * 6, 0);
  values[67] = 3;  // a positive tie, which the planted backend rounds toward zero
  call.inputs = {Tensor::from_values({5, 4, 6}, values, 8)};
  const CallVerdict verdict = judge_call(*r, call, {bug.backend});
  ASSERT_FALSE(verdict.passed);
  const std::string signature = finding_signature(call.op, verdict, call.rule);
  const ShrinkResult shrunk =
      shrink_finding(*r, rc::shrinkable::just(call), verdict, {bug.backend}, signature, 30);
  EXPECT_EQ(shrunk.original_elements, 120);
  ASSERT_EQ(shrunk.shrunk_elements, 1);
  EXPECT_EQ(shrunk.call.inputs[0].get(0), 3);
  EXPECT_EQ(finding_signature(shrunk.call.op, shrunk.verdict, shrunk.call.rule), signature);
  EXPECT_EQ(shrunk.steps, 3);  // one cut per axis
}

// The campaign-wide bounds hold whatever the per-signature cap: no more directories than
// max_repros beyond each finding's first, none with max_repros 0 or once the byte bound is
// reached.
TEST(CampaignRepros, GlobalBoundsHoldWhateverThePerSignatureCap) {
  const PlantedBug& bug = planted_bugs().front();
  const auto r = registry_with(bug);
  const std::string root = ::testing::TempDir() + "/bounded-repros";
  for (const auto& [max_repros, max_bytes] : {std::pair<int, int64_t>{0, 1 << 20}, {5, 1}}) {
    std::filesystem::remove_all(root);
    CampaignOptions options = campaign_on(bug, 99, 500);
    options.repro_root = root;
    options.max_repros = max_repros;
    options.max_repro_bytes = max_bytes;
    options.repros_per_signature = 1000;
    const CampaignResult result = run_campaign(*r, options);
    ASSERT_GT(result.mismatches, 1);
    // A byte bound of 1 lets the first repro through (the bound is checked before writing).
    EXPECT_EQ(result.repros_written, max_repros == 0 ? 0 : 1);
  }
}

// Every finding gets a repro, however many findings there are: the bound on directories counts
// only the repros beyond each finding's first.
TEST(CampaignRepros, EveryFindingGetsARepro) {
  const std::string root = ::testing::TempDir() + "/every-finding-repros";
  std::filesystem::remove_all(root);
  ::setenv("CVMCHECK_PLANTED", "all", 1);
  Registry r = registry();
  add_planted_from_env(r);
  ::unsetenv("CVMCHECK_PLANTED");
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 3000;
  options.seed = 8;
  options.repro_root = root;
  options.max_repros = 1;
  options.shrink_seconds = 0.2;
  for (const PlantedBug& bug : planted_bugs()) {
    options.backends.push_back(bug.backend);
    options.ops.push_back(bug.op);
  }
  const CampaignResult result = run_campaign(r, options);
  ASSERT_GT(result.findings.size(), 2u);
  for (const Finding& f : result.findings) EXPECT_FALSE(f.repro_dir.empty()) << f.key;
  EXPECT_EQ(result.repros_written, static_cast<int64_t>(result.findings.size()));
  std::filesystem::remove_all(root);
}

// A backend that compares no call (it implements none of the selected operators) is reported,
// never a silent pass; the same for a campaign that made no call.
TEST(CampaignNothingCompared, ABackendThatComparedNothingIsReported) {
  const PlantedBug* clip = nullptr;
  for (const PlantedBug& bug : planted_bugs()) {
    if (bug.op == "cvm_clip") clip = &bug;
  }
  ASSERT_NE(clip, nullptr);
  const auto r = registry_with(*clip);
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 200;
  options.ops = {"clip"};
  options.backends = {clip->backend};
  const CampaignResult result = run_campaign(*r, options);
  EXPECT_EQ(result.mismatches, 0);
  ASSERT_EQ(result.nothing_compared.count(clip->backend), 1u) << campaign_table(result);
  EXPECT_NE(campaign_table(result).find("nothing compared for backend " + clip->backend),
            std::string::npos);
  EXPECT_NE(campaign_junit(result).find("nothing compared"), std::string::npos);

  options.ops = {"cvm_clip"};
  options.max_cases = 0;
  EXPECT_EQ(run_campaign(*r, options).nothing_compared.at(clip->backend), "no call was made");

  options.max_cases = 50;
  options.backends = {"reference"};  // the oracle alone: nothing else selected, nothing to report
  EXPECT_TRUE(run_campaign(*r, options).nothing_compared.empty());
}

// CVMCHECK_PLANTED=all registers every planted backend, each with its kernel (a dangling pointer
// into the registry's backends once left all but the first empty).
TEST(PlantedFromEnv, EveryPlantedBackendHasItsKernel) {
  Registry r;
  ops::add_all_ops(r);
  r.add_backend(ref::make_backend());
  ::setenv("CVMCHECK_PLANTED", "all", 1);
  add_planted_from_env(r);
  ::unsetenv("CVMCHECK_PLANTED");
  for (const PlantedBug& bug : planted_bugs()) {
    const Backend* b = r.find_backend(bug.backend);
    ASSERT_NE(b, nullptr) << bug.backend;
    EXPECT_TRUE(b->implements(bug.op)) << bug.backend << " lacks its " << bug.op << " kernel";
  }
}

INSTANTIATE_TEST_SUITE_P(All, PlantedBugTest, ::testing::ValuesIn(planted_bugs()),
                         [](const ::testing::TestParamInfo<PlantedBug>& info) {
                           std::string name;
                           for (char c : info.param.backend) name += c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace cvm
