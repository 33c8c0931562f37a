#include "harness/campaign/campaign_resume.h"

#include <algorithm>

#include "cvmcheck/errors.h"

namespace cvm {

std::string resume_state(uint64_t seed, int shard_index, int shard_count, int jobs,
                         uint64_t block_calls, const std::vector<JobResume>& places) {
  nlohmann::json j = {{"seed", std::to_string(seed)},
                      {"shard", std::to_string(shard_index + 1) + "/" + std::to_string(shard_count)},
                      {"jobs", jobs},
                      {"block_calls", block_calls},
                      {"places", nlohmann::json::array()}};
  for (const JobResume& p : places) {
    nlohmann::json place = {{"job", p.job}, {"next", p.next}, {"schedule", p.schedule}};
    if (!p.path_calls.is_null()) place["path_calls"] = p.path_calls;
    j["places"].push_back(std::move(place));
  }
  return j.dump();
}

ResumeState parse_resume_state(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    ResumeState s;
    s.seed = std::stoull(j.at("seed").get<std::string>());
    const std::string shard = j.at("shard").get<std::string>();
    const size_t slash = shard.find('/');
    check(slash != std::string::npos, "no shard K/N");
    s.shard_index = std::stoi(shard.substr(0, slash)) - 1;
    s.shard_count = std::stoi(shard.substr(slash + 1));
    s.jobs = j.at("jobs").get<int>();
    s.block_calls = j.value("block_calls", kDefaultBlockCalls);
    for (const nlohmann::json& p : j.at("places")) {
      s.places.push_back({p.at("job").get<int>(), p.at("next").get<uint64_t>(), p.at("schedule"),
                          p.value("path_calls", nlohmann::json())});
    }
    return s;
  } catch (const std::exception& e) {
    throw RuntimeError(concat("not a campaign's resume state: ", e.what()));
  }
}

JobResume ResumeState::place_of(int job) const {
  for (const JobResume& p : places) {
    if (p.job == job) return p;
  }
  return JobResume{job, 0, nlohmann::json(), nlohmann::json()};
}

std::string merge_resume_states(const std::vector<std::string>& states) {
  std::vector<JobResume> places;
  const ResumeState* first = nullptr;
  std::vector<ResumeState> parsed;
  for (const std::string& text : states) {
    if (!text.empty()) parsed.push_back(parse_resume_state(text));
  }
  if (parsed.empty()) return "";
  first = &parsed.front();
  for (const ResumeState& s : parsed) places.insert(places.end(), s.places.begin(), s.places.end());
  std::sort(places.begin(), places.end(),
            [](const JobResume& a, const JobResume& b) { return a.job < b.job; });
  return resume_state(first->seed, first->shard_index, first->shard_count, first->jobs, first->block_calls,
                      places);
}

}  // namespace cvm
