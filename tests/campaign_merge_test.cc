// The one merge of campaign results (harness/campaign/campaign_merge.h) on shards' reports: tables
// and counts summed, findings by signature (calls summed, the earliest repro kept, every repro
// listed), paths reached by any shard reached, the profile summed, expected-failure entries
// judged on every shard's calls; only shards of one campaign (one seed, shard count and commit,
// no shard twice but a stopped run and its resumption), in any order and in merges of merges.
// The merge of --jobs is in campaign_jobs_test.cc, the command in merge_cli_test.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_merge.h"
#include "harness/campaign/campaign_report.h"
#include "harness/campaign/campaign_shards.h"

namespace cvm {
namespace {

// Shard `index` (1-based) of `count` of seed 9: `calls` calls of sum, `finding_calls` of them
// failing on optimized (one finding), one expected failure; as tools/gate's merge tests made.
CampaignResult shard(int index, int count, int64_t calls, int64_t finding_calls) {
  CampaignResult r;
  r.seed = 9;
  r.shard_index = index - 1;
  r.shard_count = count;
  r.seconds = 1.0 * index;
  r.calls = calls;
  r.mismatches = finding_calls;
  r.expected_failures = 1;
  r.backends = {"reference", "optimized"};
  CampaignCell cell;
  cell.cases = cell.ok = calls;
  cell.mismatches = finding_calls;
  cell.expected = 1;
  r.table["sum"]["optimized"] = cell;
  cell.mismatches = 0;
  r.table["sum"]["reference"] = cell;
  if (finding_calls > 0) {
    Finding f;
    f.op = "sum";
    f.backend = "optimized";
    f.key = "sum|optimized|value";
    f.calls = finding_calls;
    f.summary = "r";
    f.repro_dir = "d" + std::to_string(index);
    f.repro_dirs = {f.repro_dir};
    f.case_seed = static_cast<uint64_t>(index);
    f.first_index = static_cast<uint64_t>(100 - index);  // the later shard saw it first
    r.findings.push_back(f);
    r.repros_written = 1;
  }
  r.phase_seconds = {{"draw", 1.0 * index}, {"bookkeeping", 0.5}};
  r.minor_faults = 10 * index;
  r.cpu_seconds = 1;
  r.commit = "abc";
  r.started = "T" + std::to_string(index);
  return r;
}

CampaignResult merged(const std::vector<CampaignResult>& parts) {
  return merge_campaign(parts, MergeOf::kShards).result;
}

std::string error_of(const std::vector<CampaignResult>& parts) {
  try {
    merge_campaign(parts, MergeOf::kShards, {"a", "b", "c"});
  } catch (const LogicError& e) {
    return e.what();
  }
  return "";
}

TEST(CampaignMerge, TablesSumAndFindingsGroupBySignature) {
  const CampaignResult m = merged({shard(1, 2, 10, 2), shard(2, 2, 5, 3)});
  EXPECT_EQ(m.calls, 15);
  EXPECT_EQ(m.mismatches, 5);
  EXPECT_EQ(m.table.at("sum").at("optimized").mismatches, 5);
  EXPECT_EQ(m.table.at("sum").at("optimized").expected, 2);
  EXPECT_EQ(m.expected_failures, 2);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].calls, 5);
  // The earliest failing call's repro kept (shard 2's), every shard's listed.
  EXPECT_EQ(m.findings[0].repro_dir, "d2");
  EXPECT_EQ(m.findings[0].repro_dirs, (std::vector<std::string>{"d2", "d1"}));
  EXPECT_EQ(m.findings[0].first_index, 98u);
  EXPECT_EQ(m.repros_written, 2);
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("draw"), 3.0);
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("bookkeeping"), 1.0);
  EXPECT_EQ(m.minor_faults, 30);
  EXPECT_DOUBLE_EQ(m.cpu_seconds, 2.0);
  EXPECT_DOUBLE_EQ(m.seconds, 2.0);  // side by side: the longest
  EXPECT_EQ(m.commit, "abc");
  EXPECT_EQ(m.started, "T1");
  EXPECT_EQ(m.merged_shards, (std::vector<int>{0, 1}));
  const std::string junit = campaign_junit(m);
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
}

TEST(CampaignMerge, TheJsonSaysWhichShardsItHoldsAndLacksAndReadsBack) {
  const CampaignResult m = merged({shard(3, 4, 10, 0), shard(1, 4, 10, 0)});
  const nlohmann::json json = nlohmann::json::parse(campaign_json(m));
  EXPECT_EQ(json["shard"], "merged 2 of 4");
  EXPECT_EQ(json["shards"]["held"], nlohmann::json::array({1, 3}));
  EXPECT_EQ(json["shards"]["lacking"], nlohmann::json::array({2, 4}));
  const CampaignResult back = campaign_from_json(json);
  EXPECT_EQ(back.merged_shards, m.merged_shards);
  EXPECT_EQ(back.shard_count, 4);
  EXPECT_EQ(campaign_json(back), campaign_json(m));
  EXPECT_NE(campaign_table(m).find("2 of 4 shards"), std::string::npos) << campaign_table(m);
}

TEST(CampaignMerge, OnlyShardsOfOneCampaign) {
  EXPECT_EQ(error_of({shard(1, 2, 1, 0), shard(2, 2, 1, 0)}), "");
  CampaignResult other = shard(2, 2, 1, 0);
  other.seed = 10;
  EXPECT_NE(error_of({shard(1, 2, 1, 0), other}).find("different seeds: seed 9 (a); seed 10 (b)"),
            std::string::npos)
      << error_of({shard(1, 2, 1, 0), other});
  EXPECT_NE(error_of({shard(1, 2, 1, 0), shard(1, 2, 1, 0)}).find("shard 1 is given 2 times"),
            std::string::npos);
  EXPECT_NE(error_of({shard(1, 2, 1, 0), shard(1, 3, 1, 0)}).find("different shard counts"),
            std::string::npos);
  other = shard(2, 2, 1, 0);
  other.commit = "def";
  EXPECT_NE(error_of({shard(1, 2, 1, 0), other}).find("different commits: commit abc (a); "
                                                      "commit def (b)"),
            std::string::npos);
  // A merge of shards holds its shards: given again beside one of them, one is twice.
  const CampaignResult both = merged({shard(1, 3, 1, 0), shard(2, 3, 1, 0)});
  EXPECT_NE(error_of({both, shard(2, 3, 1, 0)}).find("shard 2 is held by a, b"),
            std::string::npos);
}

// The order the reports come in changes nothing, and merging merges of shards gives what
// merging the shards gives.
TEST(CampaignMerge, AnyOrderAndMergesOfMergesGiveOneResult) {
  std::vector<CampaignResult> shards;
  for (int k = 1; k <= 4; ++k) shards.push_back(shard(k, 4, 10 * k, k));
  const CampaignResult flat = merged(shards);
  const CampaignResult reversed = merged({shards[3], shards[2], shards[1], shards[0]});
  EXPECT_EQ(campaign_json(reversed), campaign_json(flat));
  const CampaignResult nested =
      merged({merged({shards[2], shards[3]}), merged({shards[0], shards[1]})});
  EXPECT_EQ(nested.calls, flat.calls);
  EXPECT_EQ(nested.merged_shards, flat.merged_shards);
  ASSERT_EQ(nested.findings.size(), 1u);
  EXPECT_EQ(nested.findings[0].calls, flat.findings[0].calls);
  EXPECT_EQ(nested.findings[0].repro_dir, flat.findings[0].repro_dir);
  EXPECT_EQ(nested.findings[0].repro_dirs, flat.findings[0].repro_dirs);
  EXPECT_EQ(nested.table.at("sum").at("optimized").ok, flat.table.at("sum").at("optimized").ok);
}

// A shard stopped by a signal and the run that resumed it are one shard: their calls add up, the
// merge is not interrupted; without the stopped run's report the shard is partial.
TEST(CampaignMerge, AStoppedRunAndItsResumptionAreOneShard) {
  CampaignResult stopped = shard(2, 2, 30, 0);
  stopped.stopped = "signal:SIGTERM";
  stopped.resume_state = R"({"at":30})";
  CampaignResult resumed = shard(2, 2, 70, 1);
  resumed.resumed_from = stopped.resume_state;
  resumed.resume_state = R"({"at":100})";
  resumed.stopped = "time";
  const CampaignResult m = merged({resumed, shard(1, 2, 100, 0), stopped});
  EXPECT_EQ(m.calls, 200);
  EXPECT_EQ(m.merged_shards, (std::vector<int>{0, 1}));
  EXPECT_TRUE(m.partial_shards.empty());
  EXPECT_EQ(m.stopped, "time");
  EXPECT_DOUBLE_EQ(m.seconds, 4.0);  // shard 2's runs one after the other
  // The stopped run alone leaves the merge stopped; the resumed run alone, its shard partial.
  EXPECT_EQ(merged({shard(1, 2, 100, 0), stopped}).stopped, "signal:SIGTERM");
  const CampaignResult partial = merged({shard(1, 2, 100, 0), resumed});
  EXPECT_EQ(partial.partial_shards, (std::vector<int>{1}));
  // One shard's runs merged may go on from where the last one stopped.
  EXPECT_EQ(merged({stopped}).resume_state, stopped.resume_state);
  // Two runs of a shard neither of which resumed the other: given twice.
  EXPECT_NE(error_of({stopped, shard(2, 2, 5, 0)}).find("shard 2 is given 2 times"),
            std::string::npos);
  EXPECT_NE(error_of({resumed, resumed}).find("shard 2 is given 2 times"), std::string::npos);
}

TEST(CampaignMerge, APathReachedByAnyShardIsReachedItsFirstReachTheLeast) {
  CampaignResult a = shard(1, 2, 10, 0), b = shard(2, 2, 10, 0);
  a.paths.in_scope["optimized"] = {"p", "q"};
  b.paths.in_scope["optimized"] = {"p", "q"};
  a.paths.calls["optimized"] = {{"p", 3}};
  a.paths.first_reach["optimized"] = {{"p", 7}};
  a.paths.not_reached["optimized"] = {"q"};
  b.paths.calls["optimized"] = {{"p", 2}, {"q", 1}};
  b.paths.first_reach["optimized"] = {{"p", 4}, {"q", 9}};
  const CampaignResult m = merged({a, b});
  EXPECT_TRUE(m.paths.not_reached.empty());
  EXPECT_EQ(m.paths.calls.at("optimized").at("p"), 5);
  EXPECT_EQ(m.paths.first_reach.at("optimized").at("p"), 4);
  EXPECT_EQ(m.paths.first_reach.at("optimized").at("q"), 9);
}

// A backend one shard could not compare (no GPU on its node) and another compared is compared;
// the backends of every shard are the merge's, each row with a cell for each.
TEST(CampaignMerge, ABackendComparedByAnyShardIsCompared) {
  CampaignResult cpu = shard(1, 2, 10, 0), gpu = shard(2, 2, 10, 0);
  cpu.nothing_compared["cuda"] = "unavailable: no device";
  cpu.skip_reasons["cuda"] = "unavailable: no device";
  cpu.backends.push_back("cuda");
  cpu.table["sum"]["cuda"].skipped = 10;
  gpu.backends = {"reference", "cuda", "optimized"};
  gpu.table["sum"]["cuda"].cases = 10;
  gpu.table["abs"]["reference"].cases = 4;
  const CampaignResult m = merged({cpu, gpu});
  EXPECT_EQ(m.backends, (std::vector<std::string>{"reference", "optimized", "cuda"}));
  EXPECT_TRUE(m.nothing_compared.empty());
  EXPECT_EQ(m.table.at("abs").count("cuda"), 1u);
  EXPECT_EQ(m.table.at("sum").at("cuda").cases, 10);
  EXPECT_NO_THROW(campaign_table(m));
  cpu.nothing_compared["x"] = "no call was made";
  gpu.nothing_compared["x"] = "no call was made";
  EXPECT_EQ(merged({cpu, gpu}).nothing_compared.count("x"), 1u);
}

// An entry is an unexpected pass of the merge only when no shard had a failing call it selected,
// its runs summed; stale only when no shard's calls matched it.
TEST(CampaignMerge, ExpectedFailureEntriesAreJudgedOnEveryShardsCalls) {
  CampaignResult a = shard(1, 3, 10, 0), b = shard(2, 3, 10, 0), c = shard(3, 3, 10, 0);
  a.unexpected_passes = {"k.txt:1 op=sum: 3 runs selected, none failed",
                         "k.txt:2 op=abs: 1 runs selected, none failed"};
  b.unexpected_passes = {"k.txt:1 op=sum: 4 runs selected, none failed"};
  b.stale_expectations = {"stale: k.txt:2 op=abs (matched no case of optimized)",
                          "stale: k.txt:3 op=max (matched no case of optimized)"};
  c.stale_expectations = {"stale: k.txt:2 op=abs (matched no case of optimized)",
                          "stale: k.txt:3 op=max (matched no case of optimized)"};
  a.stale_expectations = {"stale: k.txt:3 op=max (matched no case of optimized)"};
  // c had a failing call of entry 1 (it names it neither way).
  CampaignResult m = merged({a, b, c});
  EXPECT_EQ(m.unexpected_passes,
            (std::vector<std::string>{"k.txt:2 op=abs: 1 runs selected, none failed"}));
  EXPECT_EQ(m.stale_expectations,
            (std::vector<std::string>{"stale: k.txt:3 op=max (matched no case of optimized)"}));
  c.unexpected_passes = {"k.txt:1 op=sum: 1 runs selected, none failed"};
  m = merged({a, b, c});
  EXPECT_EQ(m.unexpected_passes[0], "k.txt:1 op=sum: 8 runs selected, none failed");
}

TEST(CampaignMerge, ShardListsAreRanges) {
  EXPECT_EQ(shard_list({0, 1, 2, 3, 6}), "shards 1-4, 7");
  EXPECT_EQ(shard_list({2}), "shard 3");
}

}  // namespace
}  // namespace cvm
