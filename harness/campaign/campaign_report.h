// The campaign's reports of a CampaignResult.
#pragma once

#include <string>

#include "harness/campaign/campaign.h"

namespace cvm {

// Reports: a fixed-width table; JSON; JUnit XML (one testcase per operator x backend).
std::string campaign_table(const CampaignResult& result);
std::string campaign_json(const CampaignResult& result);
std::string campaign_junit(const CampaignResult& result);

}  // namespace cvm
