#include "harness/campaign/campaign.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include "cvmcheck/case_seed.h"
#include "cvmcheck/errors.h"
#include "harness/engine/call_cost.h"
#include "harness/campaign/call_blocks.h"
#include "harness/campaign/call_schedule.h"
#include "harness/campaign/campaign_paths.h"
#include "harness/campaign/campaign_resume.h"
#include "harness/campaign/campaign_profile.h"
#include "harness/campaign/campaign_selection.h"
#include "harness/engine/call_descriptor.h"
#include "harness/gen/case_draw.h"
#include "harness/gen/generators.h"
#include "harness/gen/path_aim.h"
#include "harness/findings/finding.h"
#include "harness/engine/verdict.h"
#include "harness/jobs/stop_signal.h"

namespace cvm {

namespace {

using Clock = std::chrono::steady_clock;
// backend -> kernel path -> calls that took it (CampaignPaths::calls).
using PathCalls = std::map<std::string, std::map<std::string, int64_t>>;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void count_outcome(CampaignCell& cell, OutcomeKind kind) {
  ++cell.cases;
  if (kind == OutcomeKind::kOk) ++cell.ok;
  if (kind == OutcomeKind::kLogicError) ++cell.logic_error;
  if (kind == OutcomeKind::kRuntimeError) ++cell.runtime_error;
}

// Calls between two feedback steps of the generators' aim (harness/gen/path_aim.h).
constexpr uint64_t kFeedbackCalls = 4096;

// One campaign: the result it builds and what its calls share (findings so far, expectation
// uses, the profile's sums). run() is the loop; each step of a call is a member below.
class CampaignRun {
 public:
  CampaignRun(const Registry& registry, const CampaignOptions& options)
      : registry_(registry), options_(options), repros_(registry, repro_bounds(options)) {
    check(options.shard_count >= 1 && options.shard_index >= 0 &&
              options.shard_index < options.shard_count,
          "shard ", options.shard_index + 1, "/", options.shard_count, " is out of range");
    result_.seed = options.seed;
    result_.shard_index = options.shard_index;
    result_.shard_count = options.shard_count;
    result_.block_calls = options.block_calls;
    ops_ = selected_ops(registry, options);
    select_backends(registry, options, ops_, result_);
    compared_.assign(result_.backends.begin() + 1, result_.backends.end());
    for (const OpInfo* op : ops_) {
      // An operator the campaign cannot draw calls for is an error, never a silent skip.
      check(generators_for(*op) != nullptr, "operator '", op->name, "' has no generator record");
      for (const std::string& b : result_.backends) result_.table[op->name][b];
    }
    backend_seconds_.assign(compared_.size(), 0.0);
    // The generators aim at the compared backends' path thresholds while this run draws.
    std::vector<PathThreshold> aims;
    for (const std::string& name : compared_) {
      const Backend* backend = registry.find_backend(name);
      if (backend->available) aims.insert(aims.end(), backend->thresholds.begin(), backend->thresholds.end());
    }
    aims_.emplace(aims);
    schedule_.emplace(schedule_for(registry, ops_, compared_, arms_));
    for (const auto& [arm, share] : schedule_->planned_shares()) {
      result_.planned_share[arm_operator(arm)] += share;
    }
    for (size_t k = 0; k < compared_.size(); ++k) {
      compared_index_[compared_[k]] = k;
    }
    variant_rules_ = variant_rules(registry, compared_);
  }

  CampaignResult run(const CampaignProgress& progress, double progress_interval) {
    const Usage usage_start = usage_now();
    start_ = Clock::now();
    double last_progress = 0;
    // `local` counts this job's calls; `index` numbers them in the whole campaign, by blocks
    // (call_blocks.h): the same as `local` with one job and one shard, and the same call of the
    // same seed however the campaign is cut.
    const CallBlocks blocks(options_.block_calls, options_.shard_index, options_.shard_count,
                            options_.job_index, std::max(1, options_.job_count));
    // Cut or resumed, --max-cases bounds the campaign's indices, so the cuts make its calls.
    const bool by_index = options_.shard_count > 1 || options_.job_count > 1 ||
                          !options_.resume_state.empty();
    const uint64_t first = resume_point();
    for (uint64_t local = first;; ++local) {
      next_local_ = local;
      const uint64_t index = blocks.index(local);
      const uint64_t offset = blocks.offset(local);
      const double elapsed = since(start_);
      if (elapsed >= options_.seconds) break;
      if (!by_index && options_.max_cases >= 0 && result_.calls >= options_.max_cases) break;
      if (by_index && options_.max_cases >= 0 && index >= static_cast<uint64_t>(options_.max_cases)) {
        break;
      }
      if (offset == 0) start_block();
      // Feedback: every kFeedbackCalls calls of a block, the aimed arms of the operators of
      // paths few of the block's calls reached so far get twice their share of the time
      // (deterministic: counts, not time).
      if (offset % kFeedbackCalls == kFeedbackCalls - 1) {
        std::map<std::string, int> boosted;
        for (const auto& [op, factor] : starved_ops(registry_, compared_, feedback_paths())) {
          boosted[op + kAimedSuffix] = factor;
        }
        schedule_->boost(boosted);
      }
      if (progress && elapsed - last_progress >= progress_interval) {
        last_progress = elapsed;
        progress(result_, elapsed);
      }
      if (stopped_at_boundary(elapsed)) break;
      const size_t arm = schedule_->next();
      aimed_call_ = arms_[arm].aimed;
      gen::set_aim_mode(aimed_call_ ? gen::AimMode::kOften : gen::AimMode::kNever);
      schedule_->charge(arm, run_call(*ops_[arms_[arm].op], index));
    }
    finish(usage_start);
    return std::move(result_);
  }

 private:
  // Between two calls: true when a signal asked to stop (the reason in result_.stopped); else
  // hands the partial result to the checkpoint when one is due.
  bool stopped_at_boundary(double elapsed) {
    if (stop_signal() != 0) {
      result_.stopped = stop_reason();
      return true;
    }
    if (options_.checkpoint && elapsed - last_checkpoint_ >= options_.checkpoint_seconds) {
      last_checkpoint_ = elapsed;
      result_.seconds = elapsed;
      record_resume_state();
      record_repro_tally();
      options_.checkpoint(result_);
    }
    return false;
  }

  // The first call of this job: its next call in the resume state, with the schedule restored.
  uint64_t resume_point() {
    if (options_.resume_state.empty()) return 0;
    const ResumeState state = parse_resume_state(options_.resume_state);
    check(state.seed == options_.seed && state.shard_index == options_.shard_index &&
              state.shard_count == options_.shard_count &&
              state.jobs == std::max(1, options_.job_count) &&
              state.block_calls == options_.block_calls,
          "the run to resume is of another seed, shard, number of jobs or block");
    const JobResume place = state.place_of(options_.job_index);
    if (!place.schedule.is_null()) schedule_->restore(place.schedule);
    if (place.path_calls.is_object()) block_paths_carried_ = place.path_calls.get<PathCalls>();
    return place.next;
  }

  // A block's first call: a schedule from its start, and the feedback counts only the block's
  // calls.
  void start_block() {
    schedule_->restart();
    block_paths_base_ = result_.paths.calls;
    block_paths_carried_.clear();
  }

  // The calls of this block that took each kernel path: this run's since the block started and
  // those of the runs it resumed in the same block.
  PathCalls block_path_calls() const {
    PathCalls calls = block_paths_carried_;
    for (const auto& [backend, ids] : result_.paths.calls) {
      const auto base = block_paths_base_.find(backend);
      for (const auto& [id, n] : ids) {
        int64_t before = 0;
        if (base != block_paths_base_.end()) {
          const auto b = base->second.find(id);
          if (b != base->second.end()) before = b->second;
        }
        if (n > before) calls[backend][id] += n - before;
      }
    }
    return calls;
  }
  // What the schedule's feedback reads: the paths' calls so far in this block, a resumed run's
  // earlier ones included, so that it boosts what the uninterrupted run would have.
  CampaignPaths feedback_paths() const {
    CampaignPaths paths;
    paths.calls = block_path_calls();
    return paths;
  }

  // result_.resume_state: this job's next call and its schedule, now.
  void record_resume_state() {
    result_.resume_state = resume_state(
        options_.seed, options_.shard_index, options_.shard_count, std::max(1, options_.job_count),
        options_.block_calls,
        {JobResume{options_.job_index, next_local_, schedule_->state(),
                   nlohmann::json(block_path_calls())}});
  }

  // Draws, judges and counts call `index` of `op`; a failing call becomes a finding. Returns the
  // call's estimated work, which the schedule charges to `op`.
  double run_call(const OpInfo& op, uint64_t index) {
    const OpGenerators* gens = generators_for(op);
    const uint64_t seed = case_seed(options_.seed, index);
    Call call;
    const Clock::time_point draw_start = Clock::now();
    const bool drawn = draw_call(*gens, seed, options_.invalid_share, call);
    const Clock::time_point call_start = Clock::now();
    draw_seconds_ += std::chrono::duration<double>(call_start - draw_start).count();
    if (!drawn) {
      ++result_.generator_failures;
      return kRunUnits;
    }
    if (options_.on_call) options_.on_call(index, aimed_call_, call);
    if (aimed_call_) ++result_.aimed_calls[op.name];
    const double work = call_work(call, op);
    const std::vector<std::string>& backends = backends_for(op.name, work, seed);
    CallVerdict verdict = judge_call(registry_, call, backends);
    result_.op_seconds[op.name] += since(call_start);
    ++result_.calls;
    count(op, verdict);
    const ExpectationEntry* expected_by = expectation_of(op, call, verdict);
    const double charged = work * static_cast<double>(1 + backends.size());
    if (verdict.passed) return charged;
    if (expected_by != nullptr) {
      ++result_.expected_failures;
      // Per cell too, so that a table shows expected and unexpected mismatches apart.
      auto& row = result_.table[op.name];
      for (const BackendRun& run : verdict.diff.runs) {
        if (run.difference) ++row[run.backend].expected;
      }
    } else {
      ++result_.mismatches;
    }
    const std::string key = finding_signature(op.name, verdict, call.rule);
    const size_t slot = finding_slot(op, call, verdict, key, seed, index, expected_by);
    ++result_.findings[slot].calls;
    if (expected_by != nullptr) return charged;  // known: no repro, no shrinking time
    // An unexplained finding shrinks to an unexplained call: a shrink may cross into a known
    // difference of the same signature (another reason), and the repro would hide the finding.
    const auto unexplained = [&](const Call& candidate, const CallVerdict& v) {
      return expectation_of(op, candidate, v, false) == nullptr;
    };
    const double invalid_share = options_.invalid_share;
    repros_.save(result_.findings[slot],
                 FailingCall{call, std::move(verdict), key, seed,
                             [gens, seed, invalid_share] {
                               return draw_shrinkable(*gens, seed, invalid_share);
                             },
                             compared_, unexplained});
    return charged;
  }

  // The compared backends that run a call of `op` and `work` units: every base backend, and
  // each variant where it pays. A call of an aimed arm is drawn at the thresholds that decide the
  // variants' forced paths, so every variant runs it; a plain call runs a variant where its
  // rule says so (paying_backends: the operators its choice can change, and by size).
  const std::vector<std::string>& backends_for(const std::string& op, double work,
                                               uint64_t seed) {
    call_backends_.clear();
    for (size_t k = 0; k < compared_.size(); ++k) {
      if (aimed_call_ || rule_runs(variant_rules_[k], k, op, work, seed)) {
        call_backends_.push_back(compared_[k]);
      }
    }
    return call_backends_;
  }

  // The call's outcomes in the table, and its run times in the profile's sums.
  void count(const OpInfo& op, const CallVerdict& verdict) {
    reference_seconds_ += verdict.diff.reference_seconds;
    for (const BackendRun& run : verdict.diff.runs) {
      const auto k = compared_index_.find(run.backend);
      if (k == compared_index_.end()) continue;
      backend_seconds_[k->second] += run.seconds;
      compare_seconds_ += run.compare_seconds;
    }
    auto& row = result_.table[op.name];
    count_paths(result_.paths, verdict.diff.runs, row);
    count_outcome(row[kReferenceBackend], verdict.diff.reference.kind);
    if (verdict.diff.expectation_failure) ++row[kReferenceBackend].mismatches;
    for (const BackendRun& run : verdict.diff.runs) {
      if (run.skipped) {
        ++row[run.backend].skipped;
        continue;
      }
      count_outcome(row[run.backend], run.outcome.kind);
      if (run.difference) ++row[run.backend].mismatches;
    }
  }

  // The expectation that makes a failure expected: every backend that failed is listed as
  // known to fail this call. Counts each matching entry's use either way, when `count`.
  const ExpectationEntry* expectation_of(const OpInfo& op, const Call& call,
                                         const CallVerdict& verdict, bool count = true) {
    if (options_.expected.empty()) return nullptr;
    const ExpectationEntry* expected_by = nullptr;
    bool all_known = !verdict.diff.expectation_failure;
    const std::string case_name = campaign_case_name(call.rule);
    for (const BackendRun& run : verdict.diff.runs) {
      if (run.skipped) continue;
      FailureFacts facts{op.name, case_name, call.rule_id, std::string(), &call};
      if (run.difference) {
        facts.signature = difference_signature(op.name, run.backend, *run.difference,
                                               verdict.diff.reference, run.outcome);
      }
      const ExpectationEntry* e = options_.expected.match(run.backend, facts);
      if (e == nullptr) {
        all_known = all_known && !run.difference;
        continue;
      }
      if (count) ++(run.difference ? uses_[e].failures : uses_[e].passes);
      if (run.difference && expected_by == nullptr) expected_by = e;
    }
    return all_known ? expected_by : nullptr;
  }

  // The place in result.findings of the finding with signature `key`, made on its first call.
  size_t finding_slot(const OpInfo& op, const Call& call, const CallVerdict& verdict,
                      const std::string& key, uint64_t seed, uint64_t index,
                      const ExpectationEntry* expected_by) {
    // The calls of one signature that a known difference explains and those it does not are two
    // findings (the same signature), so an unexplained call never hides behind an explained one.
    const std::string slot_key = expected_by != nullptr ? key + "\nexpected" : key;
    auto [slot, first] = finding_index_.try_emplace(slot_key, result_.findings.size());
    if (!first) return slot->second;
    Finding finding;
    finding.op = op.name;
    finding.backend = verdict.diff.failing_backend();
    finding.rule = call.rule;
    finding.case_seed = seed;
    finding.first_index = index;
    finding.key = key;
    finding.summary = verdict.report;
    if (expected_by != nullptr) {
      finding.expected_by = expected_by->source + ": " + expected_by->reason;
    }
    describe_finding(finding, call, finding.backend);
    result_.findings.push_back(std::move(finding));
    return slot->second;
  }

  // The repros' bounds, as the options set them.
  static ReproBounds repro_bounds(const CampaignOptions& options) {
    return ReproBounds{options.repro_root, options.max_repros, options.repros_per_signature,
                       options.max_repro_bytes, options.shrink_seconds};
  }

  // The repros' costs in the result, before anyone reads it.
  void record_repro_tally() {
    result_.repros_written = repros_.tally().written;
    result_.repro_bytes = repros_.tally().bytes;
    result_.shrink_seconds = repros_.tally().shrink_seconds;
  }

  // After the loop: backends that compared nothing, expectations that never failed or were
  // never used, and the profile.
  void finish(const Usage& usage_start) {
    for (const std::string& name : compared_) {
      int64_t runs = 0;
      for (const auto& [op_name, row] : result_.table) runs += row.at(name).cases;
      if (runs > 0) continue;
      const Backend* backend = registry_.find_backend(name);
      // With the default selection an unavailable backend (no GPU) is a listed skip; one asked
      // for by name, or an available one, that compared nothing fails the campaign.
      if (!backend->available && (options_.backends.empty() || options_.default_backends)) {
        continue;
      }
      result_.nothing_compared[name] =
          !backend->available ? "unavailable: " + backend->unavailable_reason
                              : (result_.calls == 0 ? "no call was made"
                                                    : "skipped on every call (implements none "
                                                      "of the selected operators)");
    }
    result_.declared_not_compared = declared_not_compared(registry_, compared_, result_);
    finish_paths(registry_, compared_, result_);
    if (options_.job_index == 0) check_marks(registry_, compared_, result_.paths);
    for (const auto& [entry, use] : uses_) {
      if (use.failures == 0 && use.passes > 0) {
        result_.unexpected_passes.push_back(concat(entry->source, " ", entry->selector(), ": ",
                                                   use.passes, " runs selected, none failed"));
      }
    }
    result_.stale_expectations = stale_entries(options_.expected, uses_, /*campaign=*/true);
    record_resume_state();
    record_repro_tally();
    result_.seconds = since(start_);
    const Usage usage_end = usage_now();
    result_.minor_faults = usage_end.minor_faults - usage_start.minor_faults;
    result_.major_faults = usage_end.major_faults - usage_start.major_faults;
    result_.cpu_seconds = usage_end.cpu_seconds - usage_start.cpu_seconds;
    double measured = draw_seconds_ + reference_seconds_ + compare_seconds_;
    result_.phase_seconds["draw"] = draw_seconds_;
    result_.phase_seconds["backend:reference"] = reference_seconds_;
    for (size_t k = 0; k < compared_.size(); ++k) {
      result_.phase_seconds["backend:" + compared_[k]] += backend_seconds_[k];
      measured += backend_seconds_[k];
    }
    result_.phase_seconds["compare"] = compare_seconds_;
    result_.phase_seconds["bookkeeping"] = std::max(0.0, result_.seconds - measured);
  }

  const Registry& registry_;
  const CampaignOptions& options_;
  CampaignResult result_;
  std::vector<const OpInfo*> ops_;
  std::vector<std::string> compared_;  // result_.backends less the reference
  // signature (and the expected-failure entry explaining its calls) -> its place in findings
  std::map<std::string, size_t> finding_index_;
  ReproWriter repros_;  // the findings' repros, shrunk and bounded
  std::map<const ExpectationEntry*, EntryUse> uses_;
  // The profile's phases (CampaignResult::phase_seconds), summed per call; each compared
  // backend's run time by its place in `compared_` (the diff engine returns the runs in order).
  double draw_seconds_ = 0, reference_seconds_ = 0, compare_seconds_ = 0;
  std::vector<double> backend_seconds_;
  Clock::time_point start_;
  double last_checkpoint_ = 0;
  uint64_t next_local_ = 0;  // the call the loop makes next (or stopped before)
  // The block's path calls (block_path_calls): the run's counts when the block started, and
  // those of the runs this one resumed in the same block (JobResume::path_calls).
  PathCalls block_paths_base_, block_paths_carried_;
  std::optional<gen::ScopedPathThresholds> aims_;
  std::optional<CallSchedule> schedule_;
  std::vector<ScheduleArm> arms_;  // by place in the schedule
  std::map<std::string, size_t> compared_index_;  // backend -> its place in compared_
  // By place in compared_: how each joins a plain call (call_cost.h).
  std::vector<VariantRule> variant_rules_;
  std::vector<std::string> call_backends_;        // backends_for's list
  bool aimed_call_ = false;                        // the call is of an aimed arm
};

}  // namespace

std::string join_names(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

std::map<std::string, std::set<std::string>> declared_not_compared(
    const Registry& registry, const std::vector<std::string>& compared,
    const CampaignResult& result) {
  std::map<std::string, std::set<std::string>> missing;
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available || result.nothing_compared.count(name)) continue;
    for (const auto& [op, row] : result.table) {
      if (backend->declared_ops.count(op) == 0) continue;
      const auto cell = row.find(name);
      if (cell == row.end() || cell->second.cases == 0) missing[name].insert(op);
    }
  }
  return missing;
}

CampaignResult run_campaign(const Registry& registry, const CampaignOptions& options,
                            const CampaignProgress& progress, double progress_interval) {
  return CampaignRun(registry, options).run(progress, progress_interval);
}

}  // namespace cvm
