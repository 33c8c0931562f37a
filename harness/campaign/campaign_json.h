// campaign.json: a campaign's result as JSON (docs/nightly.md), its one writer and its one reader.
// Everything that hands a result on goes through them: the campaign's report, the --jobs
// processes and their checkpoints (harness/campaign/campaign_jobs.h), the findings store's
// `findings record`, and `cvmcheck merge` of shards' reports (campaign_merge.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "harness/campaign/campaign.h"

namespace cvm {

// The result as campaign.json holds it; campaign_from_json(parse(campaign_json(r))) gives r back
// whole, and a merge of shards says which shards it holds and lacks ("shards").
std::string campaign_json(const CampaignResult& result);

// Reads campaign_json's output. LogicError "not a campaign report (campaign.json): ..." naming
// what is missing or wrong, for a file that is not one: never a crash.
CampaignResult campaign_from_json(const nlohmann::json& json);

// The campaign.json at `path`, or in the folder `path`. LogicError naming the file when it
// cannot be read, is not JSON or not a campaign report.
CampaignResult read_campaign_json(const std::string& path);

}  // namespace cvm
