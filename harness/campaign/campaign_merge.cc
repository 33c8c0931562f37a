#include "harness/campaign/campaign_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "cvmcheck/errors.h"
#include "harness/campaign/campaign_paths.h"
#include "harness/campaign/campaign_resume.h"
#include "harness/campaign/campaign_shards.h"
#include "harness/jobs/forked_jobs.h"

namespace cvm {

namespace {

void add_counts(CampaignCell& into, const CampaignCell& c) {
  into.cases += c.cases;
  into.ok += c.ok;
  into.logic_error += c.logic_error;
  into.runtime_error += c.runtime_error;
  into.mismatches += c.mismatches;
  into.skipped += c.skipped;
  into.expected += c.expected;
}

// Adds part `r`'s counts, table, backends, timings and what it did not compare to `m`.
void add_part(CampaignResult& m, const CampaignResult& r) {
  m.calls += r.calls;
  m.generator_failures += r.generator_failures;
  m.mismatches += r.mismatches;
  m.expected_failures += r.expected_failures;
  m.repros_written += r.repros_written;
  m.shrink_seconds += r.shrink_seconds;
  m.repro_bytes += r.repro_bytes;
  for (const std::string& backend : r.backends) {
    if (std::find(m.backends.begin(), m.backends.end(), backend) == m.backends.end()) {
      m.backends.push_back(backend);
    }
  }
  m.skip_reasons.insert(r.skip_reasons.begin(), r.skip_reasons.end());
  m.precision_not_compared.insert(r.precision_not_compared.begin(),
                                  r.precision_not_compared.end());
  for (const auto& [op, row] : r.table) {
    for (const auto& [backend, cell] : row) add_counts(m.table[op][backend], cell);
  }
  sum_counts(m.op_seconds, r.op_seconds);
  sum_counts(m.aimed_calls, r.aimed_calls);
  sum_counts(m.phase_seconds, r.phase_seconds);
  m.minor_faults += r.minor_faults;
  m.major_faults += r.major_faults;
  m.cpu_seconds += r.cpu_seconds;
  m.nothing_compared.insert(r.nothing_compared.begin(), r.nothing_compared.end());
  m.not_applicable.insert(r.not_applicable.begin(), r.not_applicable.end());
  for (const auto& [backend, ops] : r.declared_not_compared) {
    m.declared_not_compared[backend].insert(ops.begin(), ops.end());
  }
  merge_paths(m.paths, r.paths);
}

// What one part reported as not compared (or not applicable), another may have compared; every
// row gets a cell for every backend (the reports index it so).
void drop_compared_elsewhere(CampaignResult& m) {
  std::map<std::string, int64_t> cases;
  for (auto& [op, row] : m.table) {
    for (const std::string& backend : m.backends) cases[backend] += row[backend].cases;
  }
  std::erase_if(m.nothing_compared, [&](const auto& entry) { return cases[entry.first] > 0; });
  std::erase_if(m.not_applicable, [&](const auto& entry) { return cases[entry.first] > 0; });
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

// A signature's findings from the parts (in part order) as one: the kept finding is the
// earliest call with a repro (else the earliest call; the first part on a tie), with every
// part's calls. kJobs: the other parts' repros go to `dropped`; kShards: every repro is listed,
// the kept one first, then the others sorted (so merging merges of shards lists them as merging
// the shards does).
Finding merge_group(const std::vector<const Finding*>& group, MergeOf kind,
                            std::vector<std::string>& dropped) {
  const Finding* kept = nullptr;
  for (const Finding* f : group) {
    const bool better =
        kept == nullptr || (!f->repro_dir.empty() && kept->repro_dir.empty()) ||
        (f->repro_dir.empty() == kept->repro_dir.empty() && f->first_index < kept->first_index);
    if (better) kept = f;
  }
  Finding merged = *kept;
  merged.calls = 0;
  merged.duplicate_repros = 0;
  std::vector<std::string> others;
  for (const Finding* f : group) {
    merged.calls += f->calls;
    merged.duplicate_repros += f->duplicate_repros;
    merged.first_index = std::min(merged.first_index, f->first_index);
    if (f != kept) others.insert(others.end(), f->repro_dirs.begin(), f->repro_dirs.end());
  }
  if (kind == MergeOf::kJobs) {
    dropped.insert(dropped.end(), others.begin(), others.end());
    return merged;
  }
  if (merged.repro_dirs.size() > 1) {
    others.insert(others.end(), merged.repro_dirs.begin() + 1, merged.repro_dirs.end());
    merged.repro_dirs.resize(1);
  }
  std::sort(others.begin(), others.end());
  merged.repro_dirs.insert(merged.repro_dirs.end(), others.begin(), others.end());
  return merged;
}

// Findings by signature across the parts, explained and unexplained calls of one signature
// apart (as a run keeps them), ordered by their first failing call.
void merge_findings(const std::vector<const CampaignResult*>& parts, MergeOf kind,
                    CampaignMerge& out) {
  std::map<std::string, std::vector<const Finding*>> by_slot;
  std::vector<std::string> slots;  // in order of first appearance
  for (const CampaignResult* r : parts) {
    for (const Finding& f : r->findings) {
      const std::string slot = f.key + (f.expected_by.empty() ? "" : "\nexpected");
      auto& group = by_slot[slot];
      if (group.empty()) slots.push_back(slot);
      group.push_back(&f);
    }
  }
  for (const std::string& slot : slots) {
    out.result.findings.push_back(merge_group(by_slot[slot], kind, out.dropped_repros));
  }
  std::stable_sort(out.result.findings.begin(), out.result.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     return a.first_index < b.first_index;
                   });
}

// An expected-failure entry as the campaign's lines name it ("FILE:LINE SELECTOR"), from an
// unexpected pass ("ENTRY: N runs selected, none failed", with N; -1 for a line not of that form)
// or a stale line ("stale: ENTRY (matched no case ...)").
constexpr const char* kPassTail = " runs selected, none failed";
std::pair<std::string, int64_t> passed_entry(const std::string& line) {
  const size_t colon = line.rfind(": ");
  const size_t tail = line.rfind(kPassTail);
  if (colon == std::string::npos || tail == std::string::npos || tail < colon) return {line, -1};
  const std::string runs = line.substr(colon + 2, tail - colon - 2);
  if (runs.empty() || runs.find_first_not_of("0123456789") != std::string::npos) {
    return {line, -1};
  }
  return {line.substr(0, colon), std::stoll(runs)};
}
std::string stale_entry(const std::string& line) {
  const size_t open = line.rfind(" (matched no case");
  return line.rfind("stale: ", 0) == 0 && open != std::string::npos ? line.substr(7, open - 7)
                                                                      : line;
}

// The entries judged on every part's calls: stale when no part's calls matched it, an unexpected
// pass when some part's calls matched it and none failed. The parts ran with one list, so an
// entry a part names neither way had a failing call there.
void judge_expectations(const std::vector<const CampaignResult*>& parts, CampaignResult& m) {
  std::vector<std::string> passed;  // in order of first appearance
  std::map<std::string, int64_t> runs;
  std::map<std::string, size_t> idle, stale;  // parts where none of its calls failed; matched none
  for (const CampaignResult* r : parts) {
    std::set<std::string> here;
    for (const std::string& line : r->unexpected_passes) {
      const auto [entry, n] = passed_entry(line);
      if (runs.count(entry) == 0) passed.push_back(entry);
      int64_t& total = runs[entry];
      total = n < 0 || total < 0 ? -1 : total + n;
      here.insert(entry);
    }
    for (const std::string& line : r->stale_expectations) {
      ++stale[stale_entry(line)];
      here.insert(stale_entry(line));
    }
    for (const std::string& entry : here) ++idle[entry];
  }
  for (const std::string& entry : passed) {
    if (idle[entry] < parts.size()) continue;  // a call it selected failed in some part
    m.unexpected_passes.push_back(runs[entry] < 0 ? entry
                                                  : concat(entry, ": ", runs[entry], kPassTail));
  }
  for (const std::string& line : parts.front()->stale_expectations) {
    if (stale[stale_entry(line)] == parts.size()) m.stale_expectations.push_back(line);
  }
}

// The facts of the run: where it stopped (a signal that stopped a part's last run stops the
// merge), its start (the earliest), the CPUs, and how it is judged.
void merge_run_facts(const std::vector<const CampaignResult*>& lasts,
                     const std::vector<const CampaignResult*>& parts, CampaignResult& m) {
  for (const CampaignResult* r : lasts) {
    if (r->stopped.rfind("signal:", 0) == 0 || m.stopped.empty()) m.stopped = r->stopped;
    if (m.stopped.rfind("signal:", 0) == 0) break;
  }
  std::set<std::string> cpus;
  m.default_scope = true;
  m.verdict_flags = parts.front()->verdict_flags;
  for (const CampaignResult* r : parts) {
    if (!r->started.empty() && (m.started.empty() || r->started < m.started)) m.started = r->started;
    if (!r->cpu_features.empty() && cpus.insert(r->cpu_features).second) {
      m.cpu_features += (m.cpu_features.empty() ? "" : "; ") + r->cpu_features;
    }
    m.seconds_requested = std::max(m.seconds_requested, r->seconds_requested);
    m.default_scope = m.default_scope && r->default_scope;
    // Accepting flags hold only where every part had them; a requiring one where any had it.
    std::erase_if(m.verdict_flags, [r](const std::string& flag) {
      return flag.rfind("allow-", 0) == 0 && r->verdict_flags.count(flag) == 0;
    });
    if (r->verdict_flags.count("require-paths") != 0) m.verdict_flags.insert("require-paths");
  }
  m.commit = parts.front()->commit;
  m.max_cases = parts.front()->max_cases;
  m.block_calls = parts.front()->block_calls;
  m.planned_share = parts.front()->planned_share;  // one selection plans the same shares
}

// The parts of a merge in order (kShards: by shard, each shard's runs in the order they ran),
// with its shards, time, resume states and where it stopped.
std::vector<const CampaignResult*> order_parts(const std::vector<CampaignResult>& parts,
                                               MergeOf kind, const std::vector<std::string>& names,
                                               CampaignResult& m) {
  std::vector<const CampaignResult*> ordered, lasts;
  m.seed = parts.front().seed;
  m.shard_index = parts.front().shard_index;
  m.shard_count = parts.front().shard_count;
  if (kind == MergeOf::kJobs) {
    std::vector<std::string> states;
    for (const CampaignResult& r : parts) {
      check(r.seed == m.seed && r.shard_index == m.shard_index && r.shard_count == m.shard_count,
            "the jobs of one run are of one seed and shard");
      ordered.push_back(&r);
      states.push_back(r.resume_state);
      m.seconds = std::max(m.seconds, r.seconds);
    }
    m.resume_state = merge_resume_states(states);
    m.resumed_from = parts.front().resumed_from;
    merge_run_facts(ordered, ordered, m);
    return ordered;
  }
  std::vector<std::string> named = names;
  named.resize(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) {
    if (named[k].empty()) named[k] = "input " + std::to_string(k + 1);
  }
  const ShardPlan plan = plan_shards(parts, named);
  for (const std::vector<size_t>& group : plan.groups) {
    double seconds = 0;  // a shard's runs ran one after the other; the shards side by side
    for (size_t k : group) {
      ordered.push_back(&parts[k]);
      seconds += parts[k].seconds;
    }
    m.seconds = std::max(m.seconds, seconds);
    lasts.push_back(&parts[group.back()]);
  }
  m.merged_shards = plan.held;
  m.partial_shards = plan.partial;
  m.shard_index = plan.held.front();
  if (plan.groups.size() == 1 && parts[plan.groups[0].front()].merged_shards.empty()) {
    m.resume_state = lasts.front()->resume_state;  // one shard's runs: it may go on from there
    m.resumed_from = parts[plan.groups[0].front()].resumed_from;
  }
  merge_run_facts(lasts, ordered, m);
  return ordered;
}

}  // namespace

CampaignMerge merge_campaign(const std::vector<CampaignResult>& parts, MergeOf kind,
                             const std::vector<std::string>& names) {
  check(!parts.empty(), "no campaign results to merge");
  CampaignMerge out;
  CampaignResult& m = out.result;
  const std::vector<const CampaignResult*> ordered = order_parts(parts, kind, names, m);
  for (const CampaignResult* r : ordered) add_part(m, *r);
  merge_findings(ordered, kind, out);
  judge_expectations(ordered, m);
  drop_compared_elsewhere(m);
  judge_merged_paths(m);
  return out;
}

}  // namespace cvm
