// What a campaign run sets up and draws with (harness/campaign/campaign.cc): the operators and
// backends it selects, its calls drawn from their case seeds, the process's usage for the
// profile, and a finding's descriptor.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/engine/call.h"
#include "harness/gen/generators.h"

namespace cvm::campaign_detail {

// This process's page faults and CPU time so far (all threads).
struct Usage {
  int64_t minor_faults = 0, major_faults = 0;
  double cpu_seconds = 0;
};
Usage usage_now();

// `v` as 16 hexadecimal digits.
std::string hex(uint64_t v);

// Draws the call of case seed `seed`: a valid call, or (with probability invalid_share) a call
// breaking one rule. Everything is derived from the case seed, so the draw is replayable alone;
// the Shrinkable also holds the call's shrink tree (walked only for a finding).
rc::Shrinkable<Call> draw_shrinkable(const OpGenerators& gens, uint64_t seed,
                                     double invalid_share);
// As draw_shrinkable, the value only; false when the generator gave up (not a finding).
bool draw_call(const OpGenerators& gens, uint64_t seed, double invalid_share, Call& call);

// The exact descriptor of a call (of any length); empty for a call that has none.
std::string exact_descriptor(const Call& call, const std::string& backend);
// Sets the finding's one-line descriptor (or the note saying why it has none).
void describe_finding(CampaignFinding& finding, const Call& call, const std::string& backend);

// The operators a campaign draws from: the selection, or every record.
std::vector<const OpInfo*> selected_ops(const Registry& registry, const CampaignOptions& options);
// result.backends: "reference", then the compared backends (CampaignOptions::default_backends).
void select_backends(const Registry& registry, const CampaignOptions& options,
                     const std::vector<const OpInfo*>& ops, CampaignResult& result);

}  // namespace cvm::campaign_detail
