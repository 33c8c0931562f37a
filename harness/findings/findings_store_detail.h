// The findings store's statements shared by its two files: findings_store.cc (opening, one-shot
// records, queries) and findings_store_runs.cc (a run's life: begun, checkpointed, finished,
// found abandoned). Not for other callers: FindingsStore is the interface.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/findings/findings_store.h"

namespace cvm::store_detail {

// Lists are kept as ",a,b," so that membership is a substring test.
std::string join_list(const std::vector<std::string>& items);

// A finding's row before this run saw it, for the status transition.
struct Prior {
  bool exists = false;
  std::string status, fixed_group;
  int64_t last_run = 0;
};

Prior prior_of(sqlite3* db, const std::string& path, const std::string& signature);

// The status a finding seen by run `run_id` of `group` takes.
std::string next_status(const Prior& prior, const StoreFinding& f, int64_t run_id,
                        const std::string& group);

// Upserts the finding and its sighting by run `run_id`; `f.calls` are added to both counts.
void record_sighting(sqlite3* db, const std::string& path, const StoreFinding& f,
                     const std::string& status, int64_t run_id, const std::string& group);

// Marks fixed the findings `run` could have seen but did not; returns their signatures.
std::vector<std::string> mark_fixed(sqlite3* db, const std::string& path, const StoreRun& run,
                                    int64_t run_id);

// Inserts `run` with `status` (complete, running); returns its id.
int64_t insert_run(sqlite3* db, const std::string& path, const StoreRun& run,
                   const std::string& status);

}  // namespace cvm::store_detail
