// One campaign's results merged into one (docs/nightly.md, "Merging shards"): the jobs of one run
// (`campaign --jobs`, and their checkpoints: harness/campaign/campaign_jobs.h), the shards of one
// seed (`cvmcheck merge`, the Actions nightly, a night on a cluster), and a stopped shard's run
// with its resumed runs. The one merge: the table's counts summed; findings grouped by signature
// (their calls summed, the repro of the earliest failing call kept); a kernel path reached by any
// part reached, its first reach the least; the profile's sums; the expected-failure entries
// judged on all the parts' calls; a backend compared by some part compared. It is a pure function
// of the parts and their order (the shards' merge orders them by shard itself).
#pragma once

#include <string>
#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

enum class MergeOf {
  kJobs,    // the jobs of one run: one seed and shard; each signature keeps one job's repros
  kShards,  // shards' reports (a run's, or a merge of some shards): every repro is kept
};

struct CampaignMerge {
  CampaignResult result;
  // Repro directories the merged findings no longer list (kJobs: a signature keeps the repros of
  // the finding it kept). The caller removes them, so the per-signature bound holds for the run.
  std::vector<std::string> dropped_repros;
};

// Merges `parts` (at least one). kShards: they must be parts of one campaign: one seed, one shard
// count, one commit, and no shard twice, except a run stopped by a signal and the run that
// resumed it (CampaignResult::resumed_from equal to its resume_state), which join into one
// shard; a shard whose first part was itself resumed is held but partial (its earlier calls are
// not in the merge). LogicError otherwise, naming the parts by `names` (e.g. their paths; default
// "input 1", "input 2", ...). The result says which shards it holds (merged_shards).
// kJobs: RuntimeError for parts of different seeds or shards.
CampaignMerge merge_campaign(const std::vector<CampaignResult>& parts, MergeOf kind,
                             const std::vector<std::string>& names = {});

}  // namespace cvm
