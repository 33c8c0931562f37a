// A campaign's run and findings as the findings store (harness/findings/findings_store.h) keeps
// them, and the lines that say what changed since the last run on that store.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"

namespace cvm {

// `facts` (commit, version, CPU features, start time) completed from the result: seed, time,
// calls, and the operators and backends that compared at least one call (only those can fix a
// finding). The shards of one seed form one group.
StoreRun campaign_store_run(const CampaignResult& result, StoreRun facts);

// One entry per finding signature, with its shrunk descriptor and repro.
std::vector<StoreFinding> campaign_store_findings(const CampaignResult& result);

// What changed: a count line, then at most `max_lines` findings one line each (new and
// regressed first, then fixed, then open) with the calls `findings` (the run's) give them, and
// where the rest are. The same lines for every command that records a run.
std::string store_summary(const StoreDelta& delta, const std::vector<StoreFinding>& findings,
                          const std::string& store_path, size_t max_lines = 12);

// The part of a campaign.json (campaign_json, or tools/gate/campaign_merge.py's merge of shards)
// the store needs: seed, shards, time, calls, backends, the table's counts, the findings and the
// run's facts. LogicError naming the key for a file that is not a campaign report.
CampaignResult campaign_from_json(const nlohmann::json& json);

}  // namespace cvm
