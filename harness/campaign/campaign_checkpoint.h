// Checkpoints of a campaign of several jobs (campaign_jobs.h, CampaignOptions::checkpoint): each
// job writes its partial result to a file of its own, and the parent merges the files it finds
// into one partial result for the caller's checkpoint (the findings store), so that a campaign
// killed later keeps what its jobs had found.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

class JobCheckpoints {
 public:
  explicit JobCheckpoints(int jobs);
  ~JobCheckpoints();  // removes the files
  JobCheckpoints(const JobCheckpoints&) = delete;
  JobCheckpoints& operator=(const JobCheckpoints&) = delete;

  // Job k's checkpoint: writes its partial result whole or not at all (a new file renamed over
  // the last), so the parent never reads half of one.
  std::function<void(const CampaignResult&)> writer(int k) const;

  // The latest partial results of the jobs merged: calls, the table's counts and the findings by
  // signature; a finding's repro and descriptor are left out, because the final merge keeps one
  // job's repro of a signature and removes the others'. nullopt while no job wrote one.
  std::optional<CampaignResult> merged() const;

 private:
  std::string file(int k) const;
  std::string stem_;
  int jobs_;
};

// Partial results of the jobs of one campaign merged as JobCheckpoints::merged says: the one
// merge (campaign_merge.h), without the findings' repros and descriptors.
CampaignResult merge_checkpoints(const std::vector<CampaignResult>& partials);

}  // namespace cvm
