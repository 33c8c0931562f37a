#include "harness/campaign/campaign_checkpoint.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_merge.h"

namespace cvm {

namespace {

constexpr const char* kCheckpointPrefix = "cvmcheck-checkpoint-";

// Removes the checkpoint files of campaigns whose process is gone: a killed campaign cannot
// remove its own, and they would pile up in the temporary directory night after night.
void remove_orphaned_checkpoints(const std::filesystem::path& dir) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kCheckpointPrefix, 0) != 0) continue;
    const std::string rest = name.substr(std::char_traits<char>::length(kCheckpointPrefix));
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || dash > 9) continue;
    if (rest.find_first_not_of("0123456789") < dash) continue;
    const auto pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    if (::kill(pid, 0) != 0 && errno == ESRCH) std::filesystem::remove(entry.path(), error);
  }
}

}  // namespace

JobCheckpoints::JobCheckpoints(int jobs) : jobs_(jobs) {
  remove_orphaned_checkpoints(std::filesystem::temp_directory_path());
  static std::atomic<int> sequence{0};
  stem_ = (std::filesystem::temp_directory_path() /
           (kCheckpointPrefix + std::to_string(::getpid()) + "-" +
            std::to_string(sequence++) + "-"))
              .string();
}

JobCheckpoints::~JobCheckpoints() {
  for (int k = 0; k < jobs_; ++k) {
    std::error_code ignored;
    std::filesystem::remove(file(k), ignored);
    std::filesystem::remove(file(k) + ".new", ignored);
  }
}

std::string JobCheckpoints::file(int k) const { return stem_ + std::to_string(k) + ".json"; }

std::function<void(const CampaignResult&)> JobCheckpoints::writer(int k) const {
  const std::string path = file(k);
  return [path](const CampaignResult& partial) {
    const std::string fresh = path + ".new";
    {
      std::ofstream out(fresh, std::ios::binary);
      out << campaign_json(partial);
      if (!out.good()) return;  // a full disk: the parent keeps reading the last one
    }
    std::rename(fresh.c_str(), path.c_str());
  };
}

std::optional<CampaignResult> JobCheckpoints::merged() const {
  std::vector<CampaignResult> partials;
  for (int k = 0; k < jobs_; ++k) {
    std::ifstream in(file(k), std::ios::binary);
    if (!in) continue;  // no checkpoint of this job yet
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    try {
      partials.push_back(campaign_from_json(nlohmann::json::parse(text)));
    } catch (const std::exception&) {
      // Written whole or not at all: a file that does not parse is not one of ours; skipped.
    }
  }
  if (partials.empty()) return std::nullopt;
  return merge_checkpoints(partials);
}

CampaignResult merge_checkpoints(const std::vector<CampaignResult>& partials) {
  CampaignResult m = merge_campaign(partials, MergeOf::kJobs).result;
  for (Finding& f : m.findings) {
    f.repro_dir.clear();
    f.repro_dirs.clear();
    f.descriptor.clear();
  }
  return m;
}

}  // namespace cvm
