// Which reports are shards of one campaign, and the order they merge in (campaign_merge.h): one
// seed, one shard count, one commit, no shard twice, except a run stopped by a signal followed by
// the run that resumed it (`campaign --resume`), which together make one shard.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

struct ShardPlan {
  // The parts (indices into the reports) in merge order, a group per shard: its run, then the
  // runs that resumed it, in the order they ran; or one merge of some shards. Groups are ordered
  // by their first shard, so the merge is the same whatever order the reports came in.
  std::vector<std::vector<size_t>> groups;
  // The shards the reports hold (0-based, ascending), and those of them whose first run was itself
  // resumed from a run whose report is not among them (its earlier calls are missing).
  std::vector<int> held, partial;
};

// LogicError "not shards of one campaign: ..." naming the reports by `names` (one per report)
// for reports of different seeds, shard counts or commits, or a shard given twice.
ShardPlan plan_shards(const std::vector<CampaignResult>& reports,
                      const std::vector<std::string>& names);

// "shard 3" or "shards 1-4, 7" (1-based) of 0-based indices, ascending.
std::string shard_list(const std::vector<int>& shards);

}  // namespace cvm
