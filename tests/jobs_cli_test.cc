// The --jobs option of golden verify and mrt on the command line: one process and two print the
// same tables and exit with the same status (the split itself: golden_jobs_test, mrt_jobs_test).
#include <gtest/gtest.h>


#include <cstdio>
#include <string>
#include "support/cli.h"
#include "support/paths.h"

namespace {

using Run = cvm::testing::CliRun;

Run run_cli(const std::string& args) { return cvm::testing::run_cli(args, false); }

void expect_same_for_one_and_two_jobs(const std::string& args, int status) {
  const Run one = run_cli(args + " --jobs 1");
  const Run two = run_cli(args + " --jobs 2");
  EXPECT_EQ(one.status, status) << args << "\n" << one.out;
  EXPECT_EQ(two.status, one.status) << args;
  EXPECT_EQ(two.out, one.out) << args;
}

TEST(JobsCli, GoldenVerifyPrintsTheSameTablesForOneAndTwoJobs) {
  const std::string suite = std::string(CVMCHECK_SOURCE_DIR) + "/golden-mrt";
  expect_same_for_one_and_two_jobs(
      "golden verify " + suite + " --backend reference --backend optimized", 0);
}

TEST(JobsCli, MrtPrintsTheSameTableForOneAndTwoJobs) {
  expect_same_for_one_and_two_jobs(
      "mrt --seed 11 --cases 7 --identity dense --backend optimized", 0);
  expect_same_for_one_and_two_jobs(
      "mrt --seed 11 --cases 7 --identity conv2d --backend reference "
      "--planted conv2d_drop_zp_product",
      1);
}

}  // namespace
