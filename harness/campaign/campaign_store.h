// A campaign's run and findings as the findings store (harness/findings/findings_store.h) keeps
// them, and the lines that say what changed since the last run on that store.
#pragma once

#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"

namespace cvm {

// `facts` (commit, version, CPU features, start time) completed from the result: seed, time,
// calls, and the operators and backends that compared at least one call (only those can fix a
// finding), and whether a signal stopped it. The shards of one seed form one group.
StoreRun campaign_store_run(const CampaignResult& result, StoreRun facts);

// One entry per finding signature, with its shrunk descriptor and repro.
std::vector<StoreFinding> campaign_store_findings(const CampaignResult& result);

// What changed: a count line, then at most `max_lines` findings one line each (new and
// regressed first, then fixed, then open) with the calls `findings` (the run's) give them, and
// where the rest are. The same lines for every command that records a run.
std::string store_summary(const StoreDelta& delta, const std::vector<StoreFinding>& findings,
                          const std::string& store_path, size_t max_lines = 12);

}  // namespace cvm
