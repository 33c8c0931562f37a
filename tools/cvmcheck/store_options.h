// The findings store's options as the campaign takes them (--store, --fail-on), and what
// the command does with them after a run: record it, say what changed, and decide the exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"

namespace cvm::cli {

// Where `--store` without a path puts the store.
inline constexpr const char* kDefaultStore = "reports/findings.sqlite";

struct StoreCli {
  std::string store;  // empty: no store
  std::string fail_on = "unexpected";
};

void add_store_options(CLI::App* sub, StoreCli& cli);

// The commit as --commit names it, else the working directory's HEAD (short), else "".
std::string commit_under_test(const std::string& given);

// Records the run in the store when one is selected and prints what changed; nullopt without a
// store. RuntimeError (the store untouched) for a foreign, damaged, newer or locked file.
// The run's facts are the result's (commit, CPU, start time).
std::optional<StoreDelta> record_in_store(const CampaignResult& result, const StoreCli& cli);

// Whether the findings fail the run under --fail-on: "unexpected" (default) any unexpected
// mismatch; "new" only findings new or regressed since the store's last run (without a store,
// every unexpected finding is new); "any" also expected failures.
bool findings_fail(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on);

}  // namespace cvm::cli
