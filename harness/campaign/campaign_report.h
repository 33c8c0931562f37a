// The campaign's reports of a CampaignResult.
#pragma once

#include <string>

#include "harness/campaign/campaign.h"

namespace cvm {

// The terminal table: kScreen (default) is one row per operator and one column per backend
// (ok, skip, or the unexpected and expected mismatches), findings one line each with their
// replay command; kFull is one row per operator x backend with every count, and each finding's
// call descriptor. The details of every call stay in the JSON and the repros.
enum class TableStyle { kScreen, kFull };
std::string campaign_table(const CampaignResult& result, TableStyle style = TableStyle::kScreen);
// JUnit XML: one testcase per operator x backend. (campaign.json: campaign_json.h.)
std::string campaign_junit(const CampaignResult& result);

}  // namespace cvm
