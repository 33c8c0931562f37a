// What a campaign runs on: the operators it draws from and the backends it compares, as the
// options select them (harness/campaign/campaign.h).
#pragma once

#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

// The operators a campaign draws from: the selection, or every record.
std::vector<const OpInfo*> selected_ops(const Registry& registry, const CampaignOptions& options);
// result.backends: "reference", then the compared backends (CampaignOptions::default_backends).
void select_backends(const Registry& registry, const CampaignOptions& options,
                     const std::vector<const OpInfo*>& ops, CampaignResult& result);

}  // namespace cvm
