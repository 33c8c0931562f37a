// A time-boxed differential campaign: draws calls from every operator's generator records
// (valid calls and calls breaking one rule) and judges each on every backend. The sequence of
// calls is a pure function of the seed, so a campaign is replayable; time only bounds its length.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/campaign/call_blocks.h"
#include "harness/findings/expectations.h"
#include "harness/findings/finding.h"

namespace cvm {

struct CampaignResult;
struct Call;

struct CampaignOptions {
  double seconds = 20;
  // Stop after this many calls (-1: time only); a cut or resumed campaign makes the indices
  // below it, so that its cuts together make the uncut run's calls.
  int64_t max_cases = -1;
  std::vector<std::string> ops;        // canonical names; empty: every operator
  std::vector<std::string> backends;   // compared with the reference; empty: all others
  // `backends` is the default selection with --backend-def ones added, none named by the user:
  // judged as the default selection (a backend implementing none of `ops` is not applicable).
  bool default_backends = false;
  uint64_t seed = 0;
  double invalid_share = 0.3;          // share of calls that break one rule
  std::string repro_root;              // where repro directories go; empty: none written
  // Repros are bounded however often a bug repeats: `repros_per_signature` per finding
  // signature, no new one once `max_repro_bytes` have been written, and beyond each finding's
  // first repro at most `max_repros` directories in all (0: no repro at all).
  int max_repros = 20;
  int repros_per_signature = 1;
  int64_t max_repro_bytes = 16 << 20;
  // Time to shrink a finding before its repro is saved (0: saved as drawn).
  double shrink_seconds = 2;
  // Shard `shard_index` (0-based) of `shard_count`: this run makes only the calls of the blocks
  // whose number is shard_index modulo shard_count (call_blocks.h), so shards of one seed draw
  // disjoint calls, together the unsharded run's, and a CI matrix or a Slurm array scales a
  // campaign out; each shard still draws every selected operator.
  int shard_index = 0;
  int shard_count = 1;
  // The calls of a block (call_blocks.h): one schedule draws a block from its first call. The
  // same for every cut of one campaign (a merge refuses shards of different blocks).
  uint64_t block_calls = kDefaultBlockCalls;
  // Known failures of the backends under test (docs/expected-failures.md): a failing call whose
  // every failing backend is selected by an entry is an expected failure, not a mismatch.
  ExpectationSet expected;
  // Job `job_index` of `job_count` processes sharing this campaign (--jobs): it makes every
  // job_count-th block of its shard (call_blocks.h), so the same seed makes the same calls with
  // any number of jobs, and max_cases bounds the calls of all jobs together (by index).
  int job_index = 0;
  int job_count = 1;
  // Called with the partial result about every `checkpoint_seconds` at a call boundary (the
  // table and findings so far; seconds: elapsed), so that a run killed later still leaves what it
  // found (the CLI writes it to the findings store); nullptr: none.
  std::function<void(const CampaignResult&)> checkpoint;
  double checkpoint_seconds = 2;
  // The resume state (CampaignResult::resume_state, harness/campaign/campaign_resume.h) of an
  // interrupted run of the same seed, shard and jobs: each job goes on from its next call with
  // its schedule, and --max-cases bounds the calls by index as the uninterrupted run's were.
  std::string resume_state;
  // Called with each call drawn, before it runs: its index in the whole campaign, whether its
  // schedule arm aimed it at the path thresholds, and the call. What a test needs to see which
  // calls a run made (tests/campaign_cuts_test.cc); what the campaign draws does not depend on
  // it. nullptr: none.
  std::function<void(uint64_t index, bool aimed, const Call& call)> on_call;
};

// The kernel paths of the compared backends that declare some (harness/campaign/campaign_paths.h).
struct CampaignPaths {
  // backend -> path id -> calls that took it (every reported path, declared or not)
  std::map<std::string, std::map<std::string, int64_t>> calls;
  // backend -> the declared paths in scope: an operator the path serves had calls on it
  std::map<std::string, std::set<std::string>> in_scope;
  // backend -> path -> why this machine cannot reach it (in scope, not required)
  std::map<std::string, std::map<std::string, std::string>> unreachable;
  // backend -> paths in scope, reachable here, that no call reached although their operators
  // made at least kPathJudgeCalls calls on it: fails the campaign
  std::map<std::string, std::set<std::string>> not_reached;
  // backend -> paths in scope, reachable here, that no call reached in fewer than
  // kPathJudgeCalls calls of their operators: not judged (a run too short or too slow)
  std::map<std::string, std::set<std::string>> too_few_calls;
  // backend -> path -> the calls of the reaching call's operator on that backend, that call
  // included, when a call first took the path (in a merged run: the least over the jobs)
  std::map<std::string, std::map<std::string, int64_t>> first_reach;
  // backend -> what the path oracle's rows (harness/path_oracle) found wrong in its marks, a line
  // each: a wrong mark changes no output, so only these calls can see it. Fails the campaign.
  std::map<std::string, std::vector<std::string>> wrong_marks;
};

// One cell of the conformance table (operator x backend).
struct CampaignCell {
  int64_t cases = 0, ok = 0, logic_error = 0, runtime_error = 0, mismatches = 0, skipped = 0;
  int64_t expected = 0;  // of the mismatches, those an expected-failure entry selects
};

struct CampaignResult {
  uint64_t seed = 0;
  int shard_index = 0, shard_count = 1;
  uint64_t block_calls = kDefaultBlockCalls;  // CampaignOptions::block_calls
  double seconds = 0;
  int64_t calls = 0;
  int64_t generator_failures = 0;      // draws a generator could not complete (not a finding)
  std::vector<std::string> backends;   // "reference" first
  std::map<std::string, std::map<std::string, CampaignCell>> table;  // op -> backend -> cell
  std::map<std::string, std::string> skip_reasons;  // backend -> why skipped (unavailable)
  std::set<std::string> precision_not_compared;     // backends reporting no output precision
  std::vector<Finding> findings;  // one per signature, in order of first appearance
  int64_t mismatches = 0;                 // every failing call, before grouping
  int64_t expected_failures = 0;          // failing calls an expected-failure entry selects
  // Entries that selected calls none of which failed (the gap may be fixed; a random campaign
  // cannot prove it) and entries that selected no call at all.
  std::vector<std::string> unexpected_passes, stale_expectations;
  int64_t repros_written = 0, repro_bytes = 0;
  double shrink_seconds = 0;  // spent shrinking findings before their repros were saved
  // Compared backends that compared no call at all (skipped on every one), with why; a
  // campaign that checked nothing for a backend must not pass silently.
  std::map<std::string, std::string> nothing_compared;
  // Available backends that compared some calls but skipped every call of operators they
  // declare (Backend::declared_ops): backend -> those operators. Fails the campaign as above.
  std::map<std::string, std::set<std::string>> declared_not_compared;
  // Backends of the default selection left out of the run because they implement none of the
  // selected operators (a narrow run: --ops), with why; not a failure.
  std::map<std::string, std::string> not_applicable;
  CampaignPaths paths;  // the kernel paths the calls reached
  std::map<std::string, double> op_seconds;  // time spent per operator
  // Each operator's share of the time as the schedule plans it (harness/campaign/call_schedule.h);
  // --profile sets it beside the measured share (op_seconds).
  std::map<std::string, double> planned_share;
  // Per operator, the calls its aimed arm drew (the draws at the path thresholds): what a path is
  // judged by (campaign_paths.h, kPathJudgeCalls).
  std::map<std::string, int64_t> aimed_calls;
  // Where the campaign's wall time went, in seconds (always measured: a few clock reads per
  // backend run; docs/performance.md, "Harness throughput"): "draw" (the generators),
  // "backend:<name>" for the reference and each compared backend (its run_op_outcome),
  // "compare" (the outcome comparisons) and "bookkeeping" (the rest: the table, expected-failure
  // matching, signatures, shrinking and repros, progress). With --jobs each is the sum over the
  // jobs, so the phases add up to about jobs x seconds.
  std::map<std::string, double> phase_seconds;
  // What the campaign's process(es) used while it ran (getrusage, summed over jobs): page faults
  // (minor: no I/O; major: read from disk) and CPU time (user + system, all threads).
  int64_t minor_faults = 0, major_faults = 0;
  double cpu_seconds = 0;
  // What the run was asked for and on what (campaign.json's "run", read by `cvmcheck report`):
  // the commit under test as the caller names it (--commit), the CPU's features, the start
  // time (UTC, ISO 8601), the time box and case bound asked for, and why it stopped
  // ("time", "max_cases", or "signal:SIGTERM" for a graceful stop: harness/jobs/stop_signal.h).
  // Where this run stopped, to go on from there (harness/campaign/campaign_resume.h): JSON text,
  // set at each checkpoint and at the end.
  std::string resume_state;
  std::string commit, cpu_features, started, stopped;
  double seconds_requested = 0;
  int64_t max_cases = -1;
  // The resume state this run started from (`campaign --resume`, `--resume-from`); "" for a run
  // from its first call. A shard's runs (a Slurm task stopped, then requeued) chain by it: each
  // starts where the one before stopped, and a merge of shards (campaign_merge.h) joins a stopped
  // run's report to its resumed run's by it, so that their reports together hold each call once.
  std::string resumed_from;
  // How the run is judged (the campaign's exit status): whether it was of the default scope
  // (every operator, the default backends) and the verdict flags it was given
  // ("allow-nothing-compared", "allow-unreached-paths", "require-paths"), so that a merge of
  // shards' reports is judged as the shards were.
  bool default_scope = false;
  std::set<std::string> verdict_flags;
  // A merge of shards' reports (campaign_merge.h): the shards it holds, 0-based, ascending, of
  // shard_count (empty for one run's own result), and those of them whose report holds only the
  // calls made after a resumption (the stopped run's report was not among the merged ones).
  std::vector<int> merged_shards, partial_shards;
};

// Progress callback: called about every `progress_interval` seconds with the partial result.
using CampaignProgress = std::function<void(const CampaignResult&, double elapsed)>;

// RuntimeError for an unknown operator or backend name.
// "a, b, c": operator names for a message.
std::string join_names(const std::set<std::string>& names);

// The declared operators each compared backend skipped on every call of `result`'s table
// (CampaignResult::declared_not_compared).
std::map<std::string, std::set<std::string>> declared_not_compared(
    const Registry& registry, const std::vector<std::string>& compared,
    const CampaignResult& result);

CampaignResult run_campaign(const Registry& registry, const CampaignOptions& options,
                            const CampaignProgress& progress = nullptr,
                            double progress_interval = 0.5);

}  // namespace cvm
