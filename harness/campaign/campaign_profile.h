// The campaign's profile (cvmcheck campaign --profile): where its wall time went, phase by phase
// (CampaignResult::phase_seconds), and its throughput, page faults per call and CPUs used.
#pragma once

#include <cstdint>
#include <string>

#include "harness/campaign/campaign.h"

namespace cvm {

// This process's page faults and CPU time so far (all threads).
struct Usage {
  int64_t minor_faults = 0, major_faults = 0;
  double cpu_seconds = 0;
};
Usage usage_now();

// A table (phase, seconds, share of the phases' sum, microseconds per call) in the order draw,
// backend:reference, the compared backends in the campaign's order, compare, bookkeeping, then
// the total, followed by one line
//   "profile: R calls/s, F page faults/call (minor M, major J), C CPUs used (...)"
// that scripts parse (ci/bench-harness.sh). `jobs`: the processes that ran it (phases are summed
// over them, so their total is about jobs x the wall time).
std::string campaign_profile(const CampaignResult& result, int jobs = 1);

}  // namespace cvm
