// cvmcheck merge, as the Actions nightly and a cluster's merge job run it: shards' report folders
// merged into one campaign.json and junit.xml, the table, one run in the findings store, the
// campaign's exit status; reports that are not shards of one campaign, an unreadable one, or a
// lacking shard under --expect-shards: exit 2 naming them.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

using testing::CliRun;
using testing::run_cli;

class MergeCli : public testing::TempDirTest {
 protected:
  MergeCli() : TempDirTest("cvmcheck-merge") {}
  // The planted backends are registered only where the environment names them.
  void SetUp() override {
    TempDirTest::SetUp();
    ::setenv("CVMCHECK_PLANTED", "planted-max-clamps-at-zero", 1);
  }
  void TearDown() override {
    ::unsetenv("CVMCHECK_PLANTED");
    TempDirTest::TearDown();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Shard k of n of a campaign of the planted max bug (exit 1: it finds it), 60 calls in blocks
  // of 10, its report in shard-k (or `folder`).
  CliRun shard(int k, int n, int seed, const std::string& folder = "") {
    const std::string report = path(folder.empty() ? "shard-" + std::to_string(k) : folder);
    return run_cli("campaign --ops max --backends planted-max-clamps-at-zero --block-calls 10 "
                   "--max-cases " + std::to_string(60 * n) +
                   " --shrink-seconds 0 --jobs 1 --quiet --commit c1 --seed " +
                       std::to_string(seed) + " --shard " + std::to_string(k) + "/" +
                       std::to_string(n) + " --report " + report,
                   true);
  }
  nlohmann::json merged_json() const {
    return nlohmann::json::parse(testing::file_text(path("merged/campaign.json")));
  }
};

TEST_F(MergeCli, ShardsMergeIntoOneReportAndOneStoreRun) {
  ASSERT_EQ(shard(1, 2, 31).status, 1);
  ASSERT_EQ(shard(2, 2, 31).status, 1);
  // Moved since they ran (an artifact download): the repros are found in the folder given.
  std::filesystem::rename(path("shard-2"), path("moved-2"));
  const CliRun m = run_cli("merge --report " + path("merged") + " --store " + path("s.sqlite") +
                               " " + path("moved-2") + " " + path("shard-1"),
                           true);
  EXPECT_EQ(m.status, 1) << m.out;  // the planted bug's mismatches
  EXPECT_NE(m.out.find("merged 2 of 2 shards of seed 31 (2 reports)"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("finding max|planted-max-clamps-at-zero"), std::string::npos) << m.out;
  const nlohmann::json json = merged_json();
  EXPECT_EQ(json["shard"], "merged 2 of 2");
  EXPECT_EQ(json["shards"]["held"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(json["shards"]["lacking"], nlohmann::json::array());
  const nlohmann::json one = nlohmann::json::parse(testing::file_text(path("shard-1/campaign.json")));
  const nlohmann::json two = nlohmann::json::parse(testing::file_text(path("moved-2/campaign.json")));
  EXPECT_EQ(json["calls"], one["calls"].get<int64_t>() + two["calls"].get<int64_t>());
  EXPECT_EQ(json["run"]["commit"], "c1");
  ASSERT_FALSE(json["findings"].empty());
  for (const auto& f : json["findings"]) {
    for (const auto& dir : f["repro_dirs"]) {
      EXPECT_TRUE(std::filesystem::exists(dir.get<std::string>())) << dir;
    }
  }
  EXPECT_TRUE(std::filesystem::exists(path("merged/junit.xml")));
  EXPECT_EQ(testing::store_int(path("s.sqlite"), "SELECT count(*) FROM runs"), 1);
  // The merged report merges again (a merge of merges), and records like a campaign's.
  const CliRun again = run_cli("merge --quiet --report " + path("again") + " " + path("merged"), true);
  EXPECT_EQ(again.status, 1) << again.out;
  EXPECT_EQ(nlohmann::json::parse(testing::file_text(path("again/campaign.json")))["calls"],
            json["calls"]);
}

TEST_F(MergeCli, NotShardsOfOneCampaignIsExit2NamingThem) {
  ASSERT_EQ(shard(1, 2, 31).status, 1);
  ASSERT_EQ(shard(2, 2, 32).status, 1);
  const auto merge = [this](const std::string& args) {
    return run_cli("merge --report " + path("merged") + " " + args, true);
  };
  CliRun m = merge(path("shard-1") + " " + path("shard-2"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.out.find("different seeds: seed 31 (" + path("shard-1") + "); seed 32 (" +
                       path("shard-2") + ")"),
            std::string::npos)
      << m.out;
  EXPECT_FALSE(std::filesystem::exists(path("merged")));  // nothing written
  m = merge(path("shard-1") + " " + path("shard-1/campaign.json"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.out.find("shard 1 is given 2 times"), std::string::npos) << m.out;
  m = merge("--commit c2 " + path("shard-1"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.out.find("is of commit c1, not of --commit c2"), std::string::npos) << m.out;
  m = merge(path("nowhere"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.out.find("cannot read " + path("nowhere")), std::string::npos) << m.out;
  // A lacking shard: a warning, or under --expect-shards an error naming it.
  m = merge("--quiet " + path("shard-1"));
  EXPECT_EQ(m.status, 1) << m.out;
  EXPECT_NE(m.out.find("warning: shard 2 of 2 lacking"), std::string::npos) << m.out;
  EXPECT_EQ(merged_json()["shards"]["lacking"], nlohmann::json::array({2}));
  m = merge("--expect-shards 2 " + path("shard-1"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.out.find("cvmcheck merge: shard 2 of 2 lacking"), std::string::npos) << m.out;
}

TEST_F(MergeCli, CleanShardsExitZero) {
  for (int k = 1; k <= 3; ++k) {
    const CliRun c = run_cli("campaign --ops abs,relu --backends optimized --max-cases 90 --jobs 1 "
                             "--block-calls 10 "
                             "--quiet --seed 5 --shard " + std::to_string(k) + "/3 --report " +
                                 path("clean-" + std::to_string(k)),
                             true);
    ASSERT_EQ(c.status, 0) << c.out;
  }
  const CliRun m = run_cli("merge --expect-shards 3 --table full --report " + path("merged") + " " +
                               path("clean-3") + " " + path("clean-1") + " " + path("clean-2"),
                           true);
  EXPECT_EQ(m.status, 0) << m.out;
  EXPECT_NE(m.out.find("3 of 3 shards"), std::string::npos) << m.out;
}

}  // namespace
}  // namespace cvm
