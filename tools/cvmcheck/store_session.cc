#include "store_session.h"

#include <iostream>

#include "harness/campaign/campaign_resume.h"
#include "harness/campaign/campaign_store.h"

namespace cvm::cli {

void print_abandoned_runs(std::ostream& out, const std::vector<StoredRun>& runs,
                          const std::string& store_path) {
  for (const StoredRun& r : runs) {
    out << "findings store " << store_path << ": run " << r.id << " (" << r.run.kind
        << ", started " << r.run.started << ") was interrupted at " << r.run.updated
        << ", its last checkpoint (its process is gone: killed, out of memory or a power cut); "
        << r.findings << (r.findings == 1 ? " finding" : " findings") << " and " << r.run.calls
        << " calls kept\n";
  }
}

CampaignStoreSession::CampaignStoreSession(const StoreCli& cli, const StoreRun& facts,
                                           const CampaignOptions& options)
    : cli_(cli), facts_(facts) {
  if (cli.store.empty()) return;
  store_.emplace(FindingsStore::open(cli.store));
  print_abandoned_runs(std::cout, store_->close_abandoned(), cli.store);
  CampaignResult nothing_yet;
  nothing_yet.seed = options.seed;
  nothing_yet.shard_index = options.shard_index;
  nothing_yet.shard_count = options.shard_count;
  id_ = store_->begin(run_of(nothing_yet));
}

StoreRun CampaignStoreSession::run_of(const CampaignResult& result) const {
  return campaign_store_run(result, facts_);
}

void CampaignStoreSession::checkpoint(const CampaignResult& partial) {
  if (!store_ || checkpoints_failed_) return;
  try {
    store_->checkpoint(id_, run_of(partial), campaign_store_findings(partial));
  } catch (const std::exception& e) {
    checkpoints_failed_ = true;
    std::cerr << "cvmcheck campaign: findings store: " << e.what()
              << "; the run goes on without checkpoints (campaign.json keeps its findings)\n";
  }
}

std::optional<StoreDelta> CampaignStoreSession::finish(const CampaignResult& result) {
  if (!store_) return std::nullopt;
  const std::vector<StoreFinding> findings = campaign_store_findings(result);
  const StoreDelta delta = store_->finish(id_, run_of(result), findings);
  std::cout << store_summary(delta, findings, cli_.store);
  return delta;
}

std::optional<ResumePoint> find_resume_point(const StoreCli& cli, uint64_t seed, int shard_index,
                                             int shard_count) {
  FindingsStore store = FindingsStore::open(cli.store);
  print_abandoned_runs(std::cout, store.close_abandoned(), cli.store);
  std::optional<ResumePoint> found;
  for (const StoredRun& r : store.runs()) {  // oldest first: the last match wins
    if (r.run.kind != "campaign" || r.run.status != "interrupted" || r.run.resume.empty()) continue;
    const ResumeState state = parse_resume_state(r.run.resume);
    if ((seed != 0 && state.seed != seed) || state.shard_index != shard_index ||
        state.shard_count != shard_count) {
      continue;
    }
    found = ResumePoint{r.id, r.run.resume, r.run.calls};
  }
  return found;
}

}  // namespace cvm::cli
