// What `cvmcheck campaign` prints of a run: the live progress line while it runs, and after it
// the summary on stdout (the table and the lines under it), so that the command line only parses
// options and prints.
#pragma once

#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_report.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm {

struct CampaignSummaryOptions {
  TableStyle table = TableStyle::kScreen;
  bool profile = false;  // --profile: where the time went (campaign_profile.h)
  int jobs = 1;          // the processes that ran the campaign, for the profile
};

// The table (campaign_table), a line per external backend of `workers` (its implementation,
// calls, restarts and stderr log), the profile when asked, a line saying so when a signal
// stopped the run, and with the full table each unexpected finding's report (the screen table
// gave each finding a line; its report is in the repro and campaign.json).
std::string campaign_summary(const CampaignResult& result,
                             const std::vector<ExecBackendInfo>& workers,
                             const CampaignSummaryOptions& options);

// The progress line of a partial result `elapsed` seconds into the run, without a line end:
// "[  12.5 s] 4200 calls, 336 calls/s, 0 mismatches, 0 findings".
std::string campaign_progress_text(const CampaignResult& partial, double elapsed);

}  // namespace cvm
