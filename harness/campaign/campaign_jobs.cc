#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_checkpoint.h"
#include "harness/campaign/campaign_paths.h"
#include "harness/campaign/campaign_report.h"
#include "harness/campaign/campaign_resume.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/engine/verdict.h"

namespace cvm {
namespace {

// What a job shows the parent while it runs (its JobCounters).
enum Counter { kCalls, kMismatches, kFindings, kCounters };

void add_cell(CampaignCell& into, const CampaignCell& c) {
  into.cases += c.cases;
  into.ok += c.ok;
  into.logic_error += c.logic_error;
  into.runtime_error += c.runtime_error;
  into.mismatches += c.mismatches;
  into.skipped += c.skipped;
  into.expected += c.expected;
}

}  // namespace

CampaignResult campaign_result_from_json(const nlohmann::json& j) {
  CampaignResult r;
  r.seed = j.at("seed").get<uint64_t>();
  const std::string shard = j.value("shard", std::string("1/1"));
  const size_t slash = shard.find('/');
  if (slash != std::string::npos) {
    r.shard_index = std::atoi(shard.substr(0, slash).c_str()) - 1;
    r.shard_count = std::atoi(shard.substr(slash + 1).c_str());
  }
  r.seconds = j.at("seconds").get<double>();
  r.calls = j.at("calls").get<int64_t>();
  r.generator_failures = j.value("generator_failures", int64_t{0});
  r.backends = j.at("backends").get<std::vector<std::string>>();
  r.skip_reasons = j.value("skipped_backends", std::map<std::string, std::string>{});
  r.precision_not_compared = j.value("precision_not_compared", std::set<std::string>{});
  r.mismatches = j.at("mismatching_calls").get<int64_t>();
  r.expected_failures = j.value("expected_failures", int64_t{0});
  r.unexpected_passes = j.value("unexpected_passes", std::vector<std::string>{});
  r.stale_expectations = j.value("stale_expectations", std::vector<std::string>{});
  r.repros_written = j.value("repros_written", int64_t{0});
  r.shrink_seconds = j.value("shrink_seconds", 0.0);
  r.repro_bytes = j.value("repro_bytes", int64_t{0});
  r.nothing_compared = j.value("nothing_compared", std::map<std::string, std::string>{});
  r.declared_not_compared = j.value("declared_not_compared",
                                    std::map<std::string, std::set<std::string>>{});
  r.not_applicable = j.value("not_applicable", std::map<std::string, std::string>{});
  if (j.contains("paths")) r.paths = paths_from_json(j.at("paths"));
  if (j.contains("table")) {
    for (const auto& [op, row] : j.at("table").items()) {
      for (const auto& [backend, c] : row.items()) {
        CampaignCell& cell = r.table[op][backend];
        cell.cases = c.at("cases");
        cell.ok = c.at("ok");
        cell.logic_error = c.at("logic_error");
        cell.runtime_error = c.at("runtime_error");
        cell.mismatches = c.at("mismatches");
        cell.skipped = c.at("skipped");
        cell.expected = c.value("expected", int64_t{0});
      }
    }
  }
  if (j.contains("op_seconds")) r.op_seconds = j.at("op_seconds").get<std::map<std::string, double>>();
  r.phase_seconds = j.value("phase_seconds", std::map<std::string, double>{});
  r.planned_share = j.value("planned_share", std::map<std::string, double>{});
  r.aimed_calls = j.value("aimed_calls", std::map<std::string, int64_t>{});
  r.resume_state = j.value("resume_state", std::string());
  if (j.contains("page_faults")) {
    r.minor_faults = j.at("page_faults").value("minor", int64_t{0});
    r.major_faults = j.at("page_faults").value("major", int64_t{0});
  }
  r.cpu_seconds = j.value("cpu_seconds", 0.0);
  if (j.contains("run")) {
    const nlohmann::json& run = j.at("run");
    r.commit = run.value("commit", std::string());
    r.cpu_features = run.value("cpu_features", std::string());
    r.started = run.value("started", std::string());
    r.stopped = run.value("stopped", std::string());
    r.seconds_requested = run.value("seconds_requested", 0.0);
    r.max_cases = run.value("max_cases", int64_t{-1});
    r.resumed_from = run.value("resumed_from", std::string());
  }
  for (const nlohmann::json& f : j.at("findings")) {
    CampaignFinding finding;
    finding.op = f.at("op");
    finding.backend = f.at("backend");
    finding.rule = f.value("rule", std::string());
    finding.case_seed = f.at("case_seed");
    finding.key = f.at("signature");
    finding.calls = f.at("calls");
    finding.repro_dir = f.value("repro_dir", std::string());
    finding.repro_dirs = f.value("repro_dirs", std::vector<std::string>{});
    finding.original_elements = f.value("drawn_input_elements", int64_t{0});
    finding.shrunk_elements = f.value("repro_input_elements", int64_t{0});
    finding.expected_by = f.value("expected_by", std::string());
    finding.first_index = f.value("first_index", uint64_t{0});
    finding.summary = f.value("report", std::string());
    finding.descriptor = f.value("descriptor", std::string());
    finding.descriptor_note = f.value("descriptor_note", std::string());
    finding.duplicate_repros = f.value("duplicate_repros", int64_t{0});
    r.findings.push_back(std::move(finding));
  }
  return r;
}

namespace {

// Adds job `r`'s counts, table, timings and reports to `m`; its findings go to `by_key` and
// its stale entries narrow `stale` (stale only when no job matched the entry).
void add_job(CampaignResult& m, const CampaignResult& r,
             std::map<std::string, std::vector<const CampaignFinding*>>& by_key,
             std::set<std::string>& stale, std::set<std::string>& unexpected) {
  m.seconds = std::max(m.seconds, r.seconds);
  m.calls += r.calls;
  m.generator_failures += r.generator_failures;
  m.mismatches += r.mismatches;
  m.expected_failures += r.expected_failures;
  m.repros_written += r.repros_written;
  m.shrink_seconds += r.shrink_seconds;
  m.repro_bytes += r.repro_bytes;
  m.skip_reasons.insert(r.skip_reasons.begin(), r.skip_reasons.end());
  m.precision_not_compared.insert(r.precision_not_compared.begin(),
                                  r.precision_not_compared.end());
  for (const auto& [op, row] : r.table) {
    for (const auto& [backend, cell] : row) add_cell(m.table[op][backend], cell);
  }
  for (const auto& [op, s] : r.op_seconds) m.op_seconds[op] += s;
  for (const auto& [op, n] : r.aimed_calls) m.aimed_calls[op] += n;
  for (const auto& [phase, s] : r.phase_seconds) m.phase_seconds[phase] += s;
  m.minor_faults += r.minor_faults;
  m.major_faults += r.major_faults;
  m.cpu_seconds += r.cpu_seconds;
  // Explained and unexplained calls of one signature stay apart (CampaignRun::finding_slot).
  for (const CampaignFinding& f : r.findings) {
    by_key[f.key + (f.expected_by.empty() ? "" : "\nexpected")].push_back(&f);
  }
  unexpected.insert(r.unexpected_passes.begin(), r.unexpected_passes.end());
  std::set<std::string> mine(r.stale_expectations.begin(), r.stale_expectations.end());
  std::set<std::string> both;
  std::set_intersection(stale.begin(), stale.end(), mine.begin(), mine.end(),
                        std::inserter(both, both.begin()));
  stale = both;
  for (const auto& [backend, why] : r.nothing_compared) m.nothing_compared[backend] = why;
  m.not_applicable.insert(r.not_applicable.begin(), r.not_applicable.end());
  if (m.stopped.empty()) m.stopped = r.stopped;  // a job that a signal stopped
  for (const auto& [backend, ops] : r.declared_not_compared) {
    m.declared_not_compared[backend].insert(ops.begin(), ops.end());
  }
  merge_paths(m.paths, r.paths);
}

// One finding of a signature's group: the earliest call with a repro (else the earliest call),
// with every job's calls; the other jobs' repros of it are removed, so the per-signature bound
// holds for the whole campaign.
CampaignFinding merge_finding(CampaignResult& m, const std::vector<const CampaignFinding*>& group) {
  const CampaignFinding* kept = nullptr;
  for (const CampaignFinding* f : group) {
    const bool better =
        kept == nullptr || (!f->repro_dir.empty() && kept->repro_dir.empty()) ||
        (f->repro_dir.empty() == kept->repro_dir.empty() && f->first_index < kept->first_index);
    if (better) kept = f;
  }
  CampaignFinding merged = *kept;
  merged.calls = 0;
  for (const CampaignFinding* f : group) {
    merged.calls += f->calls;
    merged.first_index = std::min(merged.first_index, f->first_index);
    if (f == kept) continue;
    for (const std::string& dir : f->repro_dirs) {
      m.repro_bytes -= directory_bytes(dir);
      --m.repros_written;
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
  return merged;
}

// What one job reported as not compared, another job may have compared.
void drop_compared_elsewhere(CampaignResult& m) {
  for (auto it = m.nothing_compared.begin(); it != m.nothing_compared.end();) {
    int64_t cases = 0;
    for (const auto& [op, row] : m.table) {
      const auto cell = row.find(it->first);
      if (cell != row.end()) cases += cell->second.cases;
    }
    it = cases > 0 ? m.nothing_compared.erase(it) : std::next(it);
  }
  for (auto& entry : m.declared_not_compared) {
    const std::string& backend = entry.first;  // a named reference: clang 14 lambdas cannot
                                               // capture structured bindings
    std::erase_if(entry.second, [&](const std::string& op) {
      const auto row = m.table.find(op);
      if (row == m.table.end()) return false;
      const auto cell = row->second.find(backend);
      return cell != row->second.end() && cell->second.cases > 0;
    });
  }
  std::erase_if(m.declared_not_compared, [](const auto& entry) { return entry.second.empty(); });
}

}  // namespace

CampaignResult merge_campaign_jobs(const std::vector<CampaignResult>& jobs) {
  check(!jobs.empty(), "no job results to merge");
  CampaignResult m;
  m.seed = jobs[0].seed;
  m.shard_index = jobs[0].shard_index;
  m.shard_count = jobs[0].shard_count;
  m.backends = jobs[0].backends;
  m.planned_share = jobs[0].planned_share;  // every job plans the same shares
  std::map<std::string, std::vector<const CampaignFinding*>> by_key;
  std::set<std::string> stale(jobs[0].stale_expectations.begin(), jobs[0].stale_expectations.end());
  std::set<std::string> unexpected;
  for (const CampaignResult& r : jobs) add_job(m, r, by_key, stale, unexpected);
  for (const auto& [key, group] : by_key) m.findings.push_back(merge_finding(m, group));
  std::sort(m.findings.begin(), m.findings.end(),
            [](const CampaignFinding& a, const CampaignFinding& b) {
              return a.first_index < b.first_index;
            });
  m.unexpected_passes.assign(unexpected.begin(), unexpected.end());
  m.stale_expectations.assign(stale.begin(), stale.end());
  drop_compared_elsewhere(m);
  judge_merged_paths(m);
  std::vector<std::string> states;
  for (const CampaignResult& r : jobs) states.push_back(r.resume_state);
  m.resume_state = merge_resume_states(states);
  return m;
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
    results.push_back(campaign_result_from_json(nlohmann::json::parse(text)));
  }
  return merge_campaign_jobs(results);
}

}  // namespace cvm
