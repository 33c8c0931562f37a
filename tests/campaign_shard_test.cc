// Campaign shards (cvmcheck campaign --shard K/N): a shard replays from its seed; each shard
// draws every selected operator; shards of one seed make different calls (disjoint blocks of
// call indices); a shard out of range is an error. Each shard here makes 120 calls: 3 blocks of
// 40 of a campaign of 120 x N.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/errors.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_merge.h"

namespace cvm {
namespace {

CampaignOptions options_for(int index, int count) {
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 120 * count;
  options.block_calls = 40;
  options.ops = {"sum", "conv2d", "take"};
  options.backends = {"optimized"};
  options.seed = 4242;
  options.shard_index = index;
  options.shard_count = count;
  return options;
}

std::map<std::string, int64_t> ok_counts(const CampaignResult& r) {
  std::map<std::string, int64_t> counts;
  for (const auto& [op, row] : r.table) counts[op] = row.at("reference").ok;
  return counts;
}

TEST(CampaignShard, AShardReplaysFromItsSeed) {
  const CampaignResult a = run_campaign(registry(), options_for(1, 2));
  const CampaignResult b = run_campaign(registry(), options_for(1, 2));
  EXPECT_EQ(ok_counts(a), ok_counts(b));
  EXPECT_EQ(a.calls, 120);
}

TEST(CampaignShard, EveryShardDrawsEveryOperatorAndShardsDiffer) {
  std::vector<CampaignResult> shards;
  for (int k = 0; k < 3; ++k) shards.push_back(run_campaign(registry(), options_for(k, 3)));
  for (const CampaignResult& r : shards) {
    EXPECT_EQ(r.shard_count, 3);
    for (const auto& [op, row] : r.table) EXPECT_GT(row.at("reference").cases, 0) << op;
  }
  // The same seed: were the shards' calls the same, their outcome counts would be too.
  const std::string json0 = campaign_json(shards[0]), json1 = campaign_json(shards[1]);
  EXPECT_NE(ok_counts(shards[0]), ok_counts(shards[1])) << json0 << json1;
  EXPECT_NE(json0.find("\"shard\": \"1/3\""), std::string::npos);
  // Their reports merge into the campaign's: every shard held, the calls and cells summed.
  const CampaignResult merged =
      merge_campaign({campaign_from_json(nlohmann::json::parse(json1)), shards[2],
                      campaign_from_json(nlohmann::json::parse(json0))},
                     MergeOf::kShards)
          .result;
  EXPECT_EQ(merged.merged_shards, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(merged.calls, shards[0].calls + shards[1].calls + shards[2].calls);
  for (const auto& [op, row] : merged.table) {
    int64_t ok = 0;
    for (const CampaignResult& r : shards) ok += r.table.at(op).at("reference").ok;
    EXPECT_EQ(row.at("reference").ok, ok) << op;
  }
}

TEST(CampaignShard, AShardOutOfRangeIsAnError) {
  EXPECT_THROW(run_campaign(registry(), options_for(3, 3)), RuntimeError);
  EXPECT_THROW(run_campaign(registry(), options_for(0, 0)), RuntimeError);
}

}  // namespace
}  // namespace cvm
