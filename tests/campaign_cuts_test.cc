// Same seed, same calls, however the campaign is cut (shards, a stop and a resume): the calls of
// N shards (--shard K/N, --max-cases M each) are disjoint, each of its own residue modulo N, and
// together hold every index of the unsharded run of N x M calls, each once; a call is a pure
// function of the seed, its index, its operator and its schedule arm (the same index drawn by the
// same arm is the same call, sharded or not); one shard is the unsharded campaign; and a shard
// stopped in the middle and resumed makes the uninterrupted shard's calls, each once. The calls
// are seen through CampaignOptions::on_call, as descriptors (harness/engine/call_descriptor.h).
//
// What it does not claim: each shard runs its own schedule (docs/campaign-schedule.md, "Jobs and
// shards"), so the operator and arm that draw index i in a shard are in general not those of the
// unsharded run; the count of such indices is printed.
#include <gtest/gtest.h>

#include <iostream>
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

// Shard k of n, stopped after half its calls and resumed (or run whole); the calls it made.
int64_t run_shard(int k, int n, bool stop_and_resume, Calls& calls, int& twice) {
  if (!stop_and_resume) return run_seen(cut(k, n, kCallsPerShard), calls, twice).calls;
  const CampaignResult first = run_seen(cut(k, n, kCallsPerShard / 2), calls, twice);
  CampaignOptions rest = cut(k, n, kCallsPerShard);
  rest.resume_state = first.resume_state;
  return first.calls + run_seen(rest, calls, twice).calls;
}

// The cuts of one campaign: N shards, each whole or stopped and resumed in the middle.
void expect_the_same_calls(int shards, bool stop_and_resume) {
  SCOPED_TRACE(std::to_string(shards) + " shards" + (stop_and_resume ? ", stopped and resumed" : ""));
  Calls whole;
  int twice = 0;
  const CampaignResult unsharded = run_seen(cut(0, 1, shards * kCallsPerShard), whole, twice);
  ASSERT_EQ(unsharded.generator_failures, 0);  // else --max-cases counts other positions
  Calls sharded;
  int64_t calls = 0;
  for (int k = 0; k < shards; ++k) {
    Calls mine;
    calls += run_shard(k, shards, stop_and_resume, mine, twice);
    for (auto& [index, call] : mine) {
      EXPECT_EQ(index % static_cast<uint64_t>(shards), static_cast<uint64_t>(k)) << index;
      if (!sharded.emplace(index, std::move(call)).second) ++twice;  // another shard's
    }
  }
  EXPECT_EQ(twice, 0);
  EXPECT_EQ(calls, unsharded.calls);
  ASSERT_EQ(sharded.size(), whole.size());
  int other_arm = 0;
  for (const auto& [index, call] : whole) {
    const auto it = sharded.find(index);
    ASSERT_NE(it, sharded.end()) << "index " << index << " made by no shard";
    if (it->second.op != call.op || it->second.aimed != call.aimed) {
      ++other_arm;
      continue;
    }
    EXPECT_EQ(it->second.descriptor, call.descriptor) << "index " << index;
  }
  if (shards == 1) {
    EXPECT_EQ(sharded, whole);
  }
  std::cout << shards << " shards" << (stop_and_resume ? " stopped and resumed" : "") << ": "
            << whole.size() << " calls, " << other_arm
            << " drawn by another operator or arm than unsharded\n";
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
      run_shard(k, shards, false, whole, twice);
      run_shard(k, shards, true, cut_twice, twice);
      EXPECT_EQ(twice, 0);
      EXPECT_EQ(cut_twice, whole) << "shard " << k + 1 << "/" << shards;
    }
  }
}

}  // namespace
}  // namespace cvm
