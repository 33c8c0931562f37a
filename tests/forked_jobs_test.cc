// harness/jobs/forked_jobs.h, the generic part of --jobs: results come back in job order, counters
// reach the parent, and a job that crashes or throws is an error naming it, never a hang (the
// other jobs are stopped).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cvmcheck/errors.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/worker_client/worker_client.h"
#include "support/jobs.h"

namespace cvm {
namespace {

// A job that would run for a minute unless it is stopped.
std::string wait_long(int k) {
  for (int i = 0; i < 600; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return "job " + std::to_string(k) + " was not stopped";
}

TEST(ForkedJobs, ResultsComeBackInJobOrderWithTheirCounters) {
  ForkedJobsOptions options;
  options.counters_per_job = 2;
  int64_t last_sum = -1;
  options.progress = [&last_sum](const JobCounters& counters, double) {
    last_sum = counters.sum(1);
  };
  const std::vector<std::string> results = run_forked_jobs(
      3,
      [](int k, const JobCounters& counters) {
        counters.at(k, 1) = 10 * (k + 1);
        return "result of job " + std::to_string(k);
      },
      options);
  ASSERT_EQ(results.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(results[k], "result of job " + std::to_string(k));
  EXPECT_EQ(last_sum, 60);  // the last progress call comes after every job ended
}

TEST(ForkedJobs, AJobThatCrashesIsReportedByNameAndTheOthersAreStopped) {
  ForkedJobsOptions options;
  options.what = "test";
  try {
    run_forked_jobs(
        2,
        [](int k, const JobCounters&) {
          if (k == 1) testing::crash_quietly();
          return wait_long(k);
        },
        options);
    FAIL() << "no error for a crashed job";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("test job 2 of 2 failed (signal"), std::string::npos)
        << e.what();
  }
}

TEST(ForkedJobs, AJobsExceptionComesBackWithItsKindAndMessage) {
  ForkedJobsOptions options;
  options.what = "test";
  try {
    run_forked_jobs(
        2,
        [](int k, const JobCounters&) -> std::string {
          if (k == 0) throw WorkerStartError("no such worker");
          return wait_long(k);
        },
        options);
    FAIL() << "no error for a failed job";
  } catch (const WorkerStartError& e) {  // main turns it into exit status 4, as in one process
    EXPECT_EQ(std::string(e.what()), "test job 1 of 2: no such worker");
  }
}

}  // namespace
}  // namespace cvm
