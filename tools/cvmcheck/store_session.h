// A campaign's run in the findings store from its start to its end (docs/nightly.md, "A stopped
// or killed run"): recorded as running when it starts, its findings as they come (the campaign's
// checkpoints, every few seconds), and its end (complete, or interrupted by a signal). A run that
// a vanished process left running is reported as interrupted when the next one starts, so what a
// killed night found is kept and the next night reports it as open, not new.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"
#include "store_options.h"

namespace cvm::cli {

class CampaignStoreSession {
 public:
  // Without a store (cli.store empty) it does nothing. Else opens the store, reports the runs a
  // vanished process left running, and begins this run (`facts`: commit, version, CPU, start;
  // `seed` and `shards` from the options). RuntimeError for a store that cannot be written
  // (read-only, full, foreign, damaged, newer), before anything ran.
  CampaignStoreSession(const StoreCli& cli, const StoreRun& facts, const CampaignOptions& options);

  bool active() const { return store_.has_value(); }

  // Records the partial result. A write that fails (a full disk) is reported once and the run
  // goes on without further checkpoints: its end is tried again, and campaign.json keeps it all.
  void checkpoint(const CampaignResult& partial);

  // Records the run's end (interrupted when result.stopped names a signal) and prints what
  // changed; nullopt without a store. RuntimeError when the store cannot be written.
  std::optional<StoreDelta> finish(const CampaignResult& result);

 private:
  StoreRun run_of(const CampaignResult& result) const;
  StoreCli cli_;
  StoreRun facts_;
  std::optional<FindingsStore> store_;
  int64_t id_ = 0;
  bool checkpoints_failed_ = false;
};

// The latest campaign run in the store `cli.store` that was interrupted (by a signal, or killed)
// with a resume state of seed `seed` (0: any seed) and shard `shard_index` of `shard_count`:
// what `campaign --resume` goes on from. Closes (and reports) the runs a vanished process left
// running first. nullopt when there is none.
struct ResumePoint {
  int64_t run = 0;
  std::string state;  // CampaignResult::resume_state
  int64_t calls = 0;  // the calls it made
};
std::optional<ResumePoint> find_resume_point(const StoreCli& cli, uint64_t seed, int shard_index,
                                             int shard_count);

// "findings store S: run 7 (started T) was interrupted at U ...": one line per run a vanished
// process left running (FindingsStore::close_abandoned).
void print_abandoned_runs(std::ostream& out, const std::vector<StoredRun>& runs,
                          const std::string& store_path);

}  // namespace cvm::cli
