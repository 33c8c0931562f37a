// Where a campaign stopped, to go on from there (`cvmcheck campaign --resume`, docs/nightly.md):
// per job, the next call it would have made and its schedule's state (call_schedule.h). Calls
// are indexed by the seed, so a resumed run makes the calls the stopped one had not made, with
// the schedule it had, and an interrupted night on a preemptible machine checks each call once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/campaign/call_blocks.h"

namespace cvm {

// One job's place: the next call (its local index, CampaignRun's loop), its schedule, and the
// calls that took each kernel path so far (backend -> path -> calls, its run's and those of the
// runs it resumed), which the schedule's feedback reads: so a resumed job boosts the operators
// the uninterrupted job would have, and makes its calls.
struct JobResume {
  int job = 0;
  uint64_t next = 0;
  nlohmann::json schedule;
  nlohmann::json path_calls;
};

// The resume state of a run (CampaignResult::resume_state): what it ran (seed, shard K/N, jobs,
// the calls of a block: call_blocks.h) and each job's place, as JSON text.
std::string resume_state(uint64_t seed, int shard_index, int shard_count, int jobs,
                         uint64_t block_calls, const std::vector<JobResume>& places);
// The states of the jobs of one run as one (their places together, by job); "" when none has one.
std::string merge_resume_states(const std::vector<std::string>& states);

// A parsed resume state. RuntimeError when `text` is not one.
struct ResumeState {
  uint64_t seed = 0;
  int shard_index = 0, shard_count = 1, jobs = 1;
  uint64_t block_calls = kDefaultBlockCalls;
  std::vector<JobResume> places;
  // Job k's place; a job without one starts at its first call.
  JobResume place_of(int job) const;
};
ResumeState parse_resume_state(const std::string& text);

}  // namespace cvm
