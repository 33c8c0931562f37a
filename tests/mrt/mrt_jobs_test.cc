// cvmcheck mrt --jobs: case k of an identity comes from the seed and k alone, so N processes
// each making the cases k % N == j give the rows, first mismatches and table of one process; a
// job that crashes is an error naming it.
#include <gtest/gtest.h>

#include "registry/registry.h"
#include "cvmcheck/errors.h"
#include "harness/mrt/mrt_run.h"
#include "support/jobs.h"

namespace cvm::mrt {
namespace {

using testing::crash_quietly;
using testing::one_thread;

MrtRunOptions small_run(PlantedBug bug) {
  MrtRunOptions options;
  options.schemes = all_schemes();
  options.backend = "optimized";
  options.seed = 4242;
  options.cases = 12;
  options.bug = bug;
  return options;
}

void expect_same(const std::vector<MrtRow>& a, const std::vector<MrtRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].identity, b[i].identity);
    EXPECT_EQ(a[i].backend, b[i].backend);
    EXPECT_EQ(a[i].skipped, b[i].skipped);
    EXPECT_EQ(a[i].cases, b[i].cases) << a[i].identity;
    EXPECT_EQ(a[i].mismatches, b[i].mismatches) << a[i].identity;
    EXPECT_EQ(a[i].first_mismatch, b[i].first_mismatch) << a[i].identity;
  }
  EXPECT_EQ(mrt_table(a, 4242, ""), mrt_table(b, 4242, ""));
}

TEST(MrtJobs, AnyNumberOfJobsGivesTheTableOfOne) {
  const std::vector<MrtRow> one = run_mrt(registry(), small_run(PlantedBug::kNone));
  ASSERT_FALSE(one.empty());
  for (const MrtRow& row : one) {
    EXPECT_EQ(row.cases, row.skipped.empty() ? 12 : 0) << row.identity;
  }
  for (const int jobs : {2, 3}) {
    SCOPED_TRACE(std::to_string(jobs) + " jobs");
    expect_same(one, run_mrt_jobs(registry(), small_run(PlantedBug::kNone), jobs, one_thread));
  }
}

TEST(MrtJobs, APlantedBugGivesTheSameMismatchesAndFirstCase) {
  const PlantedBug bug = all_planted_bugs().front();
  const std::vector<MrtRow> one = run_mrt(registry(), small_run(bug));
  int64_t mismatches = 0;
  for (const MrtRow& row : one) mismatches += row.mismatches;
  ASSERT_GT(mismatches, 0) << "the planted bug " << planted_bug_name(bug) << " was not seen";
  expect_same(one, run_mrt_jobs(registry(), small_run(bug), 2, one_thread));
}

TEST(MrtJobs, AJobThatCrashesIsReportedByName) {
  try {
    run_mrt_jobs(registry(), small_run(PlantedBug::kNone), 2, [](int k) {
      one_thread(k);
      if (k == 1) crash_quietly();
    });
    FAIL() << "no error for a crashed job";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("mrt job 2 of 2 failed (signal"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cvm::mrt
