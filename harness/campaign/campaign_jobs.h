// A campaign over several processes (cvmcheck campaign --jobs N): N forked jobs each make every
// N-th block of calls (call_blocks.h, CampaignOptions::job_index), report their partial counts to
// the parent through shared memory for one merged progress line, and hand back their results,
// which are merged into one table, one set of findings (grouped by signature across jobs, the
// earliest call's repro kept) and one report. Processes, not threads: RapidCheck's generation
// state is per process, and an external worker belongs to one job.
#pragma once

#include <functional>
#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

// Merges the results of the jobs of one campaign (campaign_merge.h, MergeOf::kJobs). Repro
// directories of a signature beyond the kept one are removed, so the per-signature bound holds
// across jobs.
CampaignResult merge_campaign_jobs(const std::vector<CampaignResult>& jobs);

// Runs `options` as `jobs` processes (harness/jobs/forked_jobs.h). `in_child` runs in each job before
// its campaign (e.g. to start its own external workers, which cannot be shared between
// processes). A job that fails or crashes is an error naming it (run_forked_jobs). The registry
// is the one the child sees after `in_child`.
CampaignResult run_campaign_jobs(const Registry& registry, const CampaignOptions& options,
                                 int jobs, const std::function<void()>& in_child,
                                 const CampaignProgress& progress = nullptr);

}  // namespace cvm
