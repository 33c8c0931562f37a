// The campaign's exit status (harness/campaign/campaign_exit.h), one rule per test on a result
// made by hand: each rule gives its status and says why, and a result with nothing wrong passes.
// tests/narrow_run_test.cc and tests/main_job_verdict_test.cc check the same rules end to end.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/campaign/campaign_exit.h"

namespace cvm {
namespace {

const std::optional<StoreDelta> kNoStore;

// The default scope's rules (the main job: every operator, the default backends).
CampaignExitRules main_job() {
  CampaignExitRules rules;
  rules.default_scope = true;
  return rules;
}

CampaignResult stopped_by_sigterm() {
  CampaignResult result;
  result.stopped = "signal:SIGTERM";
  return result;
}

CampaignResult with_unreached_path() {
  CampaignResult result;
  result.paths.not_reached["optimized"] = {"fused.one_chunk"};
  return result;
}

// One line, the messages joined, for a failure's report.
std::string said(const CampaignExit& ending) {
  std::string text;
  for (const std::string& line : ending.messages) text += line + "\n";
  return text;
}

TEST(CampaignExit, AResultWithNothingWrongPasses) {
  for (const CampaignExitRules& rules : {CampaignExitRules{}, main_job()}) {
    CampaignResult result;
    result.stopped = "time";
    result.paths.calls["optimized"]["fused.one_chunk"] = 3;
    const CampaignExit ending = campaign_exit(result, kNoStore, rules);
    EXPECT_EQ(ending.status, kRunPassed);
    EXPECT_TRUE(ending.messages.empty()) << said(ending);
  }
}

TEST(CampaignExit, AnUnexpectedMismatchFails) {
  CampaignResult result;
  result.mismatches = 1;
  EXPECT_EQ(campaign_exit(result, kNoStore, {}).status, kRunFailed);
}

TEST(CampaignExit, ExpectedFailuresPassUnlessFailOnAny) {
  CampaignResult result;
  result.mismatches = 0;
  result.expected_failures = 4;
  EXPECT_EQ(campaign_exit(result, kNoStore, {}).status, kRunPassed);
  CampaignExitRules any;
  any.fail_on = "any";
  EXPECT_EQ(campaign_exit(result, kNoStore, any).status, kRunFailed);
}

// --fail-on new: only findings the store has not seen open before fail; without a store every
// unexpected finding is new.
TEST(CampaignExit, FailOnNewFailsOnNewAndRegressedFindingsOnly) {
  CampaignResult result;
  result.mismatches = 2;
  CampaignExitRules rules;
  rules.fail_on = "new";
  StoreDelta delta;
  delta.open = {"sum optimized value output 0"};
  EXPECT_EQ(campaign_exit(result, delta, rules).status, kRunPassed);
  delta.regressed = {"sum optimized value output 0"};
  EXPECT_EQ(campaign_exit(result, delta, rules).status, kRunFailed);
  delta.regressed.clear();
  delta.fresh = {"max optimized value output 0"};
  EXPECT_EQ(campaign_exit(result, delta, rules).status, kRunFailed);
  EXPECT_EQ(campaign_exit(result, kNoStore, rules).status, kRunFailed);
}

// Wrong marks fail any run, narrow or stopped, and name the first refuting row.
TEST(CampaignExit, WrongPathMarksFailAnyRun) {
  CampaignResult result = stopped_by_sigterm();
  result.paths.wrong_marks["optimized"] = {"row 1: conv2d.direct marked", "row 2"};
  const CampaignExit ending = campaign_exit(result, kNoStore, {});
  EXPECT_EQ(ending.status, kRunFailed);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0], "backend optimized marks kernel paths wrongly (2 rows of the path "
                                "oracle fail): row 1: conv2d.direct marked");
}

TEST(CampaignExit, AnUnreachedPathFailsARunOfTheDefaultScope) {
  const CampaignExit ending = campaign_exit(with_unreached_path(), kNoStore, main_job());
  EXPECT_EQ(ending.status, kRunFailed);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0], "backend optimized declares kernel paths no call reached: "
                                "fused.one_chunk (--allow-unreached-paths accepts that)");
}

TEST(CampaignExit, AnUnreachedPathIsAWarningInANarrowRun) {
  const CampaignExit ending = campaign_exit(with_unreached_path(), kNoStore, {});
  EXPECT_EQ(ending.status, kRunPassed);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0], "warning: backend optimized declares kernel paths no call "
                                "reached: fused.one_chunk (not a failure of a narrow or stopped "
                                "run; --require-paths makes it one)");
}

TEST(CampaignExit, AllowUnreachedPathsMakesItAWarning) {
  CampaignExitRules rules = main_job();
  rules.allow_unreached_paths = true;
  const CampaignExit ending = campaign_exit(with_unreached_path(), kNoStore, rules);
  EXPECT_EQ(ending.status, kRunPassed);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0].rfind("warning: ", 0), 0u) << said(ending);
}

TEST(CampaignExit, RequirePathsFailsANarrowRunOnAnUnreachedPath) {
  CampaignExitRules rules;
  rules.require_paths = true;
  const CampaignExit ending = campaign_exit(with_unreached_path(), kNoStore, rules);
  EXPECT_EQ(ending.status, kRunFailed);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0], "backend optimized declares kernel paths no call reached: "
                                "fused.one_chunk (--require-paths)");
}

// Too few calls to judge a path is no verdict on the tree (the table's warning says so), except
// with --require-paths.
TEST(CampaignExit, PathsWithTooFewCallsFailWithRequirePathsAlone) {
  CampaignResult result;
  result.paths.too_few_calls["optimized"] = {"conv2d.direct", "conv2d.gemm"};
  const CampaignExit lenient = campaign_exit(result, kNoStore, main_job());
  EXPECT_EQ(lenient.status, kRunPassed);
  EXPECT_TRUE(lenient.messages.empty()) << said(lenient);
  CampaignExitRules rules;
  rules.require_paths = true;
  const CampaignExit strict = campaign_exit(result, kNoStore, rules);
  EXPECT_EQ(strict.status, kRunFailed);
  ASSERT_EQ(strict.messages.size(), 1u);
  EXPECT_EQ(strict.messages[0], "backend optimized made too few calls to judge kernel paths it "
                                "never reached: conv2d.direct, conv2d.gemm (--require-paths)");
}

// A result that fails saying `line` alone, and passes with --allow-nothing-compared.
void expect_nothing_compared_failure(const CampaignResult& result, const std::string& line) {
  const CampaignExit ending = campaign_exit(result, kNoStore, {});
  EXPECT_EQ(ending.status, kRunFailed);
  EXPECT_EQ(ending.messages, std::vector<std::string>{line});
  CampaignExitRules allowed;
  allowed.allow_nothing_compared = true;
  EXPECT_EQ(campaign_exit(result, kNoStore, allowed).status, kRunPassed);
}

TEST(CampaignExit, ABackendThatComparedNothingFails) {
  CampaignResult result;
  result.nothing_compared["cuda-host@nms8"] = "implements none of the selected operators";
  expect_nothing_compared_failure(result, "nothing compared for backend cuda-host@nms8: implements "
                                          "none of the selected operators "
                                          "(--allow-nothing-compared accepts that)");
}

TEST(CampaignExit, ABackendThatSkippedEveryCallOfDeclaredOperatorsFails) {
  CampaignResult result;
  result.declared_not_compared["cuda-host"] = {"max", "sum"};
  expect_nothing_compared_failure(result, "backend cuda-host declares but skipped every call of "
                                          "max, sum (--allow-nothing-compared accepts that)");
}

// A run stopped by a signal is interrupted: what it could not reach or compare is no failure,
// a mismatch in what it did still is.
TEST(CampaignExit, ARunStoppedByASignalIsInterrupted) {
  EXPECT_EQ(campaign_exit(stopped_by_sigterm(), kNoStore, main_job()).status, kRunInterrupted);
  CampaignResult unreached = stopped_by_sigterm();
  unreached.paths.not_reached = with_unreached_path().paths.not_reached;
  unreached.nothing_compared["cuda"] = "stopped before its first call";
  const CampaignExit ending = campaign_exit(unreached, kNoStore, main_job());
  EXPECT_EQ(ending.status, kRunInterrupted);
  ASSERT_EQ(ending.messages.size(), 1u);
  EXPECT_EQ(ending.messages[0].rfind("warning: ", 0), 0u) << said(ending);
  CampaignResult mismatch = stopped_by_sigterm();
  mismatch.mismatches = 1;
  EXPECT_EQ(campaign_exit(mismatch, kNoStore, main_job()).status, kRunFailed);
}

// The rules apply in order and the first failing one decides: a mismatch says nothing more.
TEST(CampaignExit, AMismatchDecidesBeforeThePathRules) {
  CampaignResult result = with_unreached_path();
  result.mismatches = 1;
  const CampaignExit ending = campaign_exit(result, kNoStore, main_job());
  EXPECT_EQ(ending.status, kRunFailed);
  EXPECT_TRUE(ending.messages.empty()) << said(ending);
}

}  // namespace
}  // namespace cvm
