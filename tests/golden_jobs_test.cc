// golden verify --jobs: N processes each verify every N-th case of the manifest; the merged rows,
// per-operator counts, stale expected-failure entries and table equal one process's, and a job
// that crashes is an error naming it.
#include <gtest/gtest.h>

#include "registry/registry.h"
#include "cvmcheck/errors.h"
#include "harness/golden/golden_jobs.h"
#include "support/jobs.h"
#include "support/paths.h"

namespace cvm {
namespace {

using testing::crash_quietly;
using testing::one_thread;

const std::string kSuite = std::string(CVMCHECK_SOURCE_DIR) + "/golden";

ExpectationEntry entry(const std::string& op, const std::string& name, const std::string& line) {
  ExpectationEntry e;
  e.op_glob = op;
  e.case_glob = name;
  e.reason = "test entry";
  e.source = "test:" + line;
  return e;
}

// Entries that match cases of one job only (the manifest's first and second case), of both
// jobs, and of none: stale only the last, which needs every job's uses.
ExpectationSet expectations() {
  ExpectedFailures list;
  list.add(entry("sum", "example_seed_example_axis_1", "1"));  // case 0: job 1 of 2
  list.add(entry("sum", "example_all_axes", "2"));             // case 1: job 2 of 2
  list.add(entry("clip", "*", "3"));
  list.add(entry("no_such_op", "*", "4"));
  ExpectationSet set;
  set.by_backend[""] = list;
  return set;
}

void expect_same(const GoldenVerifyResult& a, const GoldenVerifyResult& b) {
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (size_t i = 0; i < a.cases.size(); ++i) {
    const GoldenCaseResult& x = a.cases[i];
    const GoldenCaseResult& y = b.cases[i];
    EXPECT_EQ(x.op + "/" + x.name, y.op + "/" + y.name) << "row " << i;
    EXPECT_EQ(x.status, y.status) << x.op << "/" << x.name;
    EXPECT_EQ(x.detail, y.detail) << x.op << "/" << x.name;
    EXPECT_EQ(x.expectation, y.expectation) << x.op << "/" << x.name;
  }
  EXPECT_EQ(a.per_op, b.per_op);
  EXPECT_EQ(a.stale, b.stale);
  EXPECT_EQ(a.ok(), b.ok());
  EXPECT_EQ(golden_table(a, "optimized"), golden_table(b, "optimized"));
}

TEST(GoldenJobs, AnyNumberOfJobsGivesTheRowsAndTableOfOne) {
  const ExpectationSet xfail = expectations();
  const GoldenVerifyResult one = verify_golden(registry(), kSuite, "optimized", xfail);
  ASSERT_GT(one.cases.size(), 100u);
  ASSERT_EQ(one.stale.size(), 1u);
  EXPECT_NE(one.stale[0].find("test:4"), std::string::npos) << one.stale[0];
  for (const int jobs : {2, 3}) {
    SCOPED_TRACE(std::to_string(jobs) + " jobs");
    const std::vector<GoldenVerifyResult> merged =
        verify_golden_jobs(registry(), kSuite, {"optimized"}, xfail, jobs, one_thread);
    ASSERT_EQ(merged.size(), 1u);
    expect_same(one, merged[0]);
  }
}

TEST(GoldenJobs, AJobAloneSeesOnlyItsShareOfTheUses) {
  // What the merge must undo: job 2 of 2 never sees case 0, so alone it calls entry 1 stale.
  const ExpectationSet xfail = expectations();
  const GoldenVerifyResult part =
      verify_golden(registry(), kSuite, "optimized", xfail, GoldenVerifyPart{1, 2});
  EXPECT_EQ(part.stale.size(), 2u);
  EXPECT_EQ(part.cases.front().name, "example_all_axes");
}

TEST(GoldenJobs, AJobThatCrashesIsReportedByName) {
  try {
    verify_golden_jobs(registry(), kSuite, {"optimized"}, {}, 2, [](int k) {
      one_thread(k);
      if (k == 1) crash_quietly();
    });
    FAIL() << "no error for a crashed job";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("golden verify job 2 of 2 failed (signal"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cvm
