// cvmcheck campaign --jobs: each job makes every jobs-th block of the campaign's calls
// (harness/campaign/call_blocks.h), so any number of jobs makes the same calls and --max-cases
// bounds them in all; findings merge by signature across jobs, keeping the earliest call's repro
// and removing the others.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "support/jobs.h"
#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_json.h"

namespace cvm {
namespace {

CampaignOptions small_campaign() {
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 300;
  options.block_calls = 50;  // so that every job makes calls
  options.ops = {"sum", "clip", "conv2d"};
  options.backends = {"optimized"};
  options.seed = 99;
  options.shrink_seconds = 0;
  return options;
}

TEST(CampaignJobs, TwoJobsReplayTheSameCallsAndMakeMaxCasesInAll) {
  const auto two_jobs = [] {
    return run_campaign_jobs(registry(), small_campaign(), 2, [] { testing::one_thread(0); });
  };
  const CampaignResult a = two_jobs();
  const CampaignResult b = two_jobs();
  EXPECT_LE(a.calls + a.generator_failures, 300);
  EXPECT_GE(a.calls + a.generator_failures, 299);  // a call whose draw failed counts no outcome
  EXPECT_EQ(b.calls, a.calls);
  ASSERT_EQ(b.table.size(), a.table.size());
  for (const auto& [op, row] : a.table) {
    for (const auto& [backend, cell] : row) {
      const CampaignCell& other = b.table.at(op).at(backend);
      EXPECT_GT(cell.cases, 0) << op << " " << backend;  // each job draws every operator
      EXPECT_EQ(other.cases, cell.cases) << op << " " << backend;
      EXPECT_EQ(other.ok, cell.ok) << op << " " << backend;
      EXPECT_EQ(other.logic_error, cell.logic_error) << op << " " << backend;
    }
  }
}

// One job or three, blocks of 25 calls: the same calls, so the same counts in every cell.
TEST(CampaignJobs, AnyNumberOfJobsMakesTheSameCalls) {
  CampaignOptions options = small_campaign();
  options.block_calls = 25;
  const CampaignResult one = run_campaign(registry(), options);
  const CampaignResult three =
      run_campaign_jobs(registry(), options, 3, [] { testing::one_thread(0); });
  EXPECT_EQ(three.calls, one.calls);
  for (const auto& [op, row] : one.table) {
    for (const auto& [backend, cell] : row) {
      const CampaignCell& other = three.table.at(op).at(backend);
      EXPECT_EQ(other.cases, cell.cases) << op << " " << backend;
      EXPECT_EQ(other.ok, cell.ok) << op << " " << backend;
      EXPECT_EQ(other.logic_error, cell.logic_error) << op << " " << backend;
      EXPECT_EQ(other.runtime_error, cell.runtime_error) << op << " " << backend;
    }
  }
}

TEST(CampaignJobs, AJsonReportReadsBackWhole) {
  const CampaignResult one = run_campaign(registry(), small_campaign());
  EXPECT_EQ(campaign_json(campaign_from_json(nlohmann::json::parse(campaign_json(one)))),
            campaign_json(one));
}

TEST(CampaignJobs, FindingsMergeBySignatureKeepingTheEarliestRepro) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cvmcheck-jobs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  std::ofstream(dir / "a" / "case.json") << "{}";
  std::ofstream(dir / "b" / "case.json") << "{}";
  CampaignResult a, b;
  a.backends = b.backends = {"reference", "x"};
  a.calls = 10;
  b.calls = 12;
  Finding f;
  f.key = "sum|x|value|output 0";
  f.calls = 3;
  f.first_index = 7;
  f.repro_dir = (dir / "a").string();
  f.repro_dirs = {f.repro_dir};
  a.findings.push_back(f);
  a.repros_written = 1;
  f.calls = 4;
  f.first_index = 2;
  f.repro_dir = (dir / "b").string();
  f.repro_dirs = {f.repro_dir};
  b.findings.push_back(f);
  b.repros_written = 1;
  const CampaignResult m = merge_campaign_jobs({a, b});
  EXPECT_EQ(m.calls, 22);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].calls, 7);
  EXPECT_EQ(m.findings[0].first_index, 2u);
  EXPECT_EQ(m.findings[0].repro_dir, (dir / "b").string());
  EXPECT_FALSE(std::filesystem::exists(dir / "a"));  // the per-signature bound holds
  EXPECT_TRUE(std::filesystem::exists(dir / "b"));
  EXPECT_EQ(m.repros_written, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cvm
