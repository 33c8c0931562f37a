// golden verify's exit status (harness/golden/golden_exit.h), one rule per test on results made
// by hand; tests/golden_store_test.cc and tests/golden_verify_test.cc run golden verify itself.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/golden/golden_exit.h"

namespace cvm {
namespace {

const std::optional<StoreDelta> kNoStore;

// One backend's results with one case of each status given.
std::vector<GoldenVerifyResult> cases(const std::vector<std::string>& statuses,
                                      const std::string& signature = "sum optimized value") {
  GoldenVerifyResult result;
  for (const std::string& status : statuses) {
    GoldenCaseResult c;
    c.op = "sum";
    c.name = "case-" + std::to_string(result.cases.size());
    c.status = status;
    if (status == "fail" || status == "xfail") c.signature = signature;
    result.cases.push_back(c);
  }
  return {result};
}

TEST(GoldenExit, PassingAndSkippedCasesPass) {
  EXPECT_EQ(golden_exit_status(cases({"pass", "skipped", "xpass"}), kNoStore, "unexpected", false),
            kRunPassed);
}

TEST(GoldenExit, AFailingCaseFails) {
  EXPECT_EQ(golden_exit_status(cases({"pass", "fail"}), kNoStore, "unexpected", false), kRunFailed);
}

TEST(GoldenExit, AListedFailurePassesUnlessFailOnAny) {
  EXPECT_EQ(golden_exit_status(cases({"xfail"}), kNoStore, "unexpected", false), kRunPassed);
  EXPECT_EQ(golden_exit_status(cases({"xfail"}), kNoStore, "any", false), kRunFailed);
}

TEST(GoldenExit, FailOnNewFailsOnNewFindingsOnly) {
  StoreDelta delta;
  delta.open = {"sum optimized value"};
  EXPECT_EQ(golden_exit_status(cases({"fail"}), delta, "new", false), kRunPassed);
  delta.fresh = {"sum optimized value"};
  EXPECT_EQ(golden_exit_status(cases({"fail"}), delta, "new", false), kRunFailed);
}

// A corrupt case, or a failing one the store cannot hold (no signature), fails whatever
// --fail-on says.
TEST(GoldenExit, ACorruptCaseOrAFailureWithoutSignatureFailsUnderAnyFailOn) {
  const StoreDelta nothing_new;
  EXPECT_EQ(golden_exit_status(cases({"corrupt"}), nothing_new, "new", false), kRunFailed);
  EXPECT_EQ(golden_exit_status(cases({"fail"}, ""), nothing_new, "new", false), kRunFailed);
}

TEST(GoldenExit, AStoppedRunIsInterruptedUnlessSomethingFailed) {
  EXPECT_EQ(golden_exit_status(cases({"pass"}), kNoStore, "unexpected", true), kRunInterrupted);
  EXPECT_EQ(golden_exit_status(cases({"fail"}), kNoStore, "unexpected", true), kRunFailed);
}

}  // namespace
}  // namespace cvm
