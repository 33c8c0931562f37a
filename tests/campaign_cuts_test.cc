// Same seed, same calls, however the campaign is cut (shards, a stop and a resume): the calls of
// N shards of a campaign bounded by --max-cases M are disjoint, each shard making the blocks of
// its residue modulo N (harness/campaign/call_blocks.h), and together they are the unsharded
// run's M calls, each drawn by the same operator and schedule arm as the same call (descriptor);
// and so they are with every shard stopped in the middle and resumed. The calls are seen
// through CampaignOptions::on_call, as descriptors (harness/engine/call_descriptor.h). Blocks
// of 8 calls, so that 40 calls a shard cross several blocks and stops fall inside them.
#include <gtest/gtest.h>

#include <map>

#include "harness/campaign/campaign.h"
#include "harness/engine/call_descriptor.h"
#include "registry/registry.h"

namespace cvm {
namespace {

// A call as drawn: its arm (aimed or not) and its descriptor.
struct DrawnCall {
  bool aimed = false;
  std::string op, descriptor;
  bool operator==(const DrawnCall&) const = default;
};
using Calls = std::map<uint64_t, DrawnCall>;  // by index in the campaign

constexpr int64_t kCallsPerShard = 40;
constexpr uint64_t kBlockCalls = 8;

CampaignOptions cut(int shard, int shards, int64_t max_cases) {
  CampaignOptions options;
  options.seconds = 600;
  options.max_cases = max_cases;
  options.ops = {"sum", "abs", "conv2d", "take"};
  options.backends = {"optimized"};
  options.seed = 2024;
  options.shrink_seconds = 0;
  options.shard_index = shard;
  options.shard_count = shards;
  options.block_calls = kBlockCalls;
  return options;
}

// Runs `options`, adding the calls it draws to `calls`; each index drawn twice is counted in
// `twice`. Returns the result.
CampaignResult run_seen(CampaignOptions options, Calls& calls, int& twice) {
  options.on_call = [&calls, &twice](uint64_t index, bool aimed, const Call& call) {
    DrawnCall drawn{aimed, call.op, format_call_descriptor(CallDescriptor{call, "", 0})};
    if (!calls.emplace(index, std::move(drawn)).second) ++twice;
  };
  return run_campaign(registry(), options);
}

// Shard k of n of a campaign of `total` calls, stopped after half of them (by index) and
// resumed, or run whole; the calls it made.
int64_t run_shard(int k, int n, int64_t total, bool stop_and_resume, Calls& calls, int& twice) {
  if (!stop_and_resume) return run_seen(cut(k, n, total), calls, twice).calls;
  const CampaignResult first = run_seen(cut(k, n, total / 2 + 3), calls, twice);
  CampaignOptions rest = cut(k, n, total);
  rest.resume_state = first.resume_state;
  return first.calls + run_seen(rest, calls, twice).calls;
}

// The cuts of one campaign: N shards, each whole or stopped and resumed in the middle.
void expect_the_same_calls(int shards, bool stop_and_resume) {
  SCOPED_TRACE(std::to_string(shards) + " shards" + (stop_and_resume ? ", stopped and resumed" : ""));
  const int64_t total = shards * kCallsPerShard;
  Calls whole;
  int twice = 0;
  const CampaignResult unsharded = run_seen(cut(0, 1, total), whole, twice);
  ASSERT_EQ(unsharded.generator_failures, 0);  // else --max-cases counts other indices
  ASSERT_EQ(whole.size(), static_cast<size_t>(total));
  Calls sharded;
  int64_t calls = 0;
  for (int k = 0; k < shards; ++k) {
    Calls mine;
    calls += run_shard(k, shards, total, stop_and_resume, mine, twice);
    EXPECT_FALSE(mine.empty()) << "shard " << k + 1 << " made no call";
    for (auto& [index, call] : mine) {
      EXPECT_EQ(index / kBlockCalls % static_cast<uint64_t>(shards), static_cast<uint64_t>(k))
          << index;
      if (!sharded.emplace(index, std::move(call)).second) ++twice;  // another shard's
    }
  }
  EXPECT_EQ(twice, 0);
  EXPECT_EQ(calls, unsharded.calls);
  EXPECT_EQ(sharded, whole);
}

TEST(CampaignCuts, ShardsMakeTheUnshardedCallsEachOnce) {
  for (int shards = 1; shards <= 5; ++shards) expect_the_same_calls(shards, false);
}

TEST(CampaignCuts, StoppedAndResumedShardsMakeTheUnshardedCallsEachOnce) {
  for (int shards = 1; shards <= 5; ++shards) expect_the_same_calls(shards, true);
}

// A stopped and resumed shard makes exactly the uninterrupted shard's calls (operator, arm,
// descriptor), each once.
TEST(CampaignCuts, AResumedShardMakesTheUninterruptedShardsCalls) {
  for (int shards = 1; shards <= 5; ++shards) {
    for (int k = 0; k < shards; ++k) {
      Calls whole, cut_twice;
      int twice = 0;
      run_shard(k, shards, shards * kCallsPerShard, false, whole, twice);
      run_shard(k, shards, shards * kCallsPerShard, true, cut_twice, twice);
      EXPECT_EQ(twice, 0);
      EXPECT_EQ(cut_twice, whole) << "shard " << k + 1 << "/" << shards;
    }
  }
}

}  // namespace
}  // namespace cvm
