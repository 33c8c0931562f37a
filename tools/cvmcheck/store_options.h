// The findings store's options as every command writing it takes them (--store, --fail-on,
// --commit: campaign, golden verify, repro, findings record), and what the command does with them
// after a run: record it and say what changed (whether its findings fail it: findings_fail,
// harness/findings/run_status.h).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"

namespace cvm::cli {

// Where `--store` without a path puts the store.
inline constexpr const char* kDefaultStore = "reports/findings.sqlite";

struct StoreCli {
  std::string store;  // empty: no store
  std::string fail_on = "unexpected";
};

// --store and --fail-on; `what_fails` completes --fail-on's help ("mismatch", "failing case").
void add_store_options(CLI::App* sub, StoreCli& cli, const std::string& what_fails = "mismatch");
// --store alone, for a command whose exit status the store does not change (repro).
void add_store_option(CLI::App* sub, StoreCli& cli);
// --commit, as campaign.json, the report and the store name the commit under test.
void add_commit_option(CLI::App* sub, std::string& commit);

// The commit as --commit names it, else the working directory's HEAD (short), else "".
std::string commit_under_test(const std::string& given);

// The facts of a run this process makes: the commit (commit_under_test), this cvmcheck's
// version, the CPU (cpu_description) and its start time.
StoreRun store_run_facts(const std::string& commit_option, const std::string& started);

// Records `run` and `findings` in the store when one is selected and prints what changed (the
// campaign's lines, store_summary); nullopt without a store. RuntimeError (the store untouched)
// for a foreign, damaged, newer or locked file.
std::optional<StoreDelta> record_in_store(const StoreRun& run,
                                          const std::vector<StoreFinding>& findings,
                                          const StoreCli& cli);

// Records the run in the store when one is selected and prints what changed; nullopt without a
// store. RuntimeError (the store untouched) for a foreign, damaged, newer or locked file.
// The run's facts are the result's (commit, CPU, start time); a run a signal stopped is recorded
// as interrupted, as the campaign records itself.
std::optional<StoreDelta> record_in_store(const CampaignResult& result, const StoreCli& cli);

}  // namespace cvm::cli
