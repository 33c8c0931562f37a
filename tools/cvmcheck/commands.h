// Subcommands of the cvmcheck command line; each file adds one to the app.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"
#include "harness/findings/run_status.h"

namespace cvm::cli {

// Exit statuses shared by every subcommand.
inline constexpr int kExitOk = 0;        // an outcome was produced (also an error outcome)
inline constexpr int kExitMismatch = 1;  // an expectation did not hold
inline constexpr int kExitUsage = 2;     // bad usage
inline constexpr int kExitCaseError = 3; // an unreadable case: the harness's input, no outcome
inline constexpr int kExitWorkerStart = 4;  // an external backend's worker did not start
// Stopped by SIGINT, SIGTERM or SIGHUP before its end, with nothing failing in what it did (a
// mismatch still exits 1): the reports and the store keep the run as interrupted.
inline constexpr int kExitInterrupted = 5;
// The harness decides a run's status in these (harness/findings/run_status.h).
static_assert(kExitOk == kRunPassed && kExitMismatch == kRunFailed &&
              kExitInterrupted == kRunInterrupted);

// Each returns the function that runs the subcommand once parsed; it returns the exit status.
using Action = std::function<int()>;
Action add_ops_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_campaign_command(CLI::App& app);
Action add_golden_command(CLI::App& app);
Action add_repro_command(CLI::App& app);
Action add_corpus_command(CLI::App& app);
Action add_mrt_command(CLI::App& app);
Action add_worker_command(CLI::App& app);
Action add_findings_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_bisect_command(CLI::App& app);
Action add_graphs_command(CLI::App& app);
Action add_merge_command(CLI::App& app);

// The campaign's exit status for `result` (campaign_command.cc), judged by the rules it records
// (CampaignResult::default_scope, verdict_flags) and --fail-on (harness/campaign/campaign_exit.h);
// also that of a merge of shards' reports (cvmcheck merge). Prints why it fails.
int campaign_exit_status(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                         const std::string& fail_on);

// Before parsing: an unknown subcommand word is named with the closest known one suggested;
// returns the exit status then, -1 when every subcommand word is known (typo_command.cc).
int check_subcommand_names(const CLI::App& app, int argc, const char* const* argv);
// The name in `names` closest to `word` (a prefix, or the fewest edits); "" if `names` is empty.
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

// The run's facts for campaign.json and the report (run_facts.cc): the CPU's model, the ISA
// the nn kernels pick and the feature flags the optimized paths care about; the time now in
// UTC, ISO 8601.
std::string cpu_description();
std::string utc_now();

// "1", "2-3", "1+"
std::string arity_text(int min_inputs, int max_inputs);

}  // namespace cvm::cli
