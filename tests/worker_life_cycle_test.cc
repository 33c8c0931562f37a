// A finding's life across nightly runs against an implementation we did not write: a worker
// gains one bug (planted_workers/breaking_proxy.cc in front of it), the campaign names exactly
// that finding as new and fails; the next run, the worker alone again, marks it fixed and passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/cli.h"
#include "support/paths.h"

namespace {

// --worker-memory 0: a sanitized build's worker reserves terabytes of address space at its start,
// which an address-space limit refuses; this worker is our own reference.
std::string campaign_args(const std::string& worker, const std::string& store,
                          const std::string& report) {
  return "campaign --ops abs,sum --seconds 60 --max-cases 400 --jobs 1 --seed 3 --report " +
         report + " --store " + store + " --worker-memory 0 --backend-def 'w=" + worker +
         "' --backends w";
}

TEST(WorkerLifeCycle, ABugPlantedInAWorkerIsNewThenFixed) {
  const std::string root = ::testing::TempDir() + "/worker-life-cycle";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  const std::string store = root + "/findings.sqlite";
  const std::string inner = std::string(CVMCHECK_BINARY) + " worker --backend reference";
  const std::string broken = std::string(CVMCHECK_BREAKING_PROXY) + " --break sum -- " + inner;

  const cvm::testing::CliRun first =
      cvm::testing::run_cli(campaign_args(broken, store, root + "/r1"), true);
  EXPECT_EQ(first.status, 1) << first.out;
  EXPECT_NE(first.out.find(": 1 new, 0 regressed, 0 still open, 0 fixed"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("  new        sum|w|value"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("abs|w|"), std::string::npos) << "only sum was broken\n" << first.out;

  const cvm::testing::CliRun second =
      cvm::testing::run_cli(campaign_args(inner, store, root + "/r2"), true);
  EXPECT_EQ(second.status, 0) << second.out;
  EXPECT_NE(second.out.find(": 0 new, 0 regressed, 0 still open, 1 fixed"), std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("  fixed      sum|w|value"), std::string::npos) << second.out;
  std::filesystem::remove_all(root);
}

}  // namespace
