// The lines under the campaign's table that say what the run could not check or judge: stale
// expected-failure entries, unexpected passes, backends that compared nothing, skipped backends.
#pragma once

#include <ostream>

#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_report.h"

namespace cvm {

// kScreen keeps them within a screen whatever the run (a short or narrow run can leave dozens
// of backends with nothing compared): lists fold into a few lines of at most 100 columns and
// name where the rest is (--table full, campaign.json); kFull writes one line per item.
void trailer_lines(std::ostream& out, const CampaignResult& result, TableStyle style);

}  // namespace cvm
