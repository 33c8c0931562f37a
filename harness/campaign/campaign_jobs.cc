#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_checkpoint.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_merge.h"

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"

namespace cvm {
namespace {

// What a job shows the parent while it runs (its JobCounters).
enum Counter { kCalls, kMismatches, kFindings, kCounters };

}  // namespace

CampaignResult merge_campaign_jobs(const std::vector<CampaignResult>& jobs) {
  CampaignMerge merged = merge_campaign(jobs, MergeOf::kJobs);
  for (const std::string& dir : merged.dropped_repros) {
    merged.result.repro_bytes -= directory_bytes(dir);
    --merged.result.repros_written;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  return std::move(merged.result);
}

CampaignResult run_campaign_jobs(const Registry& registry, const CampaignOptions& options,
                                 int jobs, const std::function<void()>& in_child,
                                 const CampaignProgress& progress) {
  check(jobs >= 1, "--jobs must be at least 1");
  ForkedJobsOptions fork;
  fork.what = "campaign";
  fork.counters_per_job = kCounters;
  // The jobs' checkpoints reach the caller's through files the parent merges (the caller's
  // checkpoint, e.g. a findings store, belongs to the parent).
  std::optional<JobCheckpoints> checkpoints;
  if (options.checkpoint) checkpoints.emplace(jobs);
  double last_checkpoint = 0;
  if (progress || checkpoints) {
    fork.progress = [&](const JobCounters& counters, double elapsed) {
      if (checkpoints && elapsed - last_checkpoint >= options.checkpoint_seconds) {
        last_checkpoint = elapsed;
        if (const std::optional<CampaignResult> merged = checkpoints->merged()) {
          options.checkpoint(*merged);
        }
      }
      if (!progress) return;
      CampaignResult partial;
      partial.calls = counters.sum(kCalls);
      partial.mismatches = counters.sum(kMismatches);
      // At least this many distinct ones.
      partial.findings.resize(static_cast<size_t>(counters.max(kFindings)));
      progress(partial, elapsed);
    };
  }
  const std::vector<std::string> outputs = run_forked_jobs(
      jobs,
      [&](int k, const JobCounters& counters) {
        if (in_child) in_child();
        CampaignOptions mine = options;
        mine.job_index = k;
        mine.job_count = jobs;
        // The repro bounds are shared out, so the whole campaign keeps them.
        mine.max_repros = options.max_repros / jobs + (k < options.max_repros % jobs ? 1 : 0);
        mine.max_repro_bytes = options.max_repro_bytes / jobs;
        mine.checkpoint = checkpoints ? checkpoints->writer(k) : nullptr;
        const CampaignResult r = run_campaign(
            registry, mine,
            [&counters, k](const CampaignResult& partial, double) {
              counters.at(k, kCalls) = partial.calls;
              counters.at(k, kMismatches) = partial.mismatches;
              counters.at(k, kFindings) = static_cast<int64_t>(partial.findings.size());
            },
            0.25);
        return campaign_json(r);
      },
      fork);
  std::vector<CampaignResult> results;
  for (const std::string& text : outputs) {
    results.push_back(campaign_from_json(nlohmann::json::parse(text)));
  }
  return merge_campaign_jobs(results);
}

}  // namespace cvm
