#include "harness/campaign.h"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/call_descriptor.h"
#include "harness/exec_backend.h"
#include "harness/generators.h"
#include "harness/shrink.h"
#include "harness/verdict.h"

namespace cvm {

uint64_t case_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void count_outcome(CampaignCell& cell, OutcomeKind kind) {
  ++cell.cases;
  if (kind == OutcomeKind::kOk) ++cell.ok;
  if (kind == OutcomeKind::kLogicError) ++cell.logic_error;
  if (kind == OutcomeKind::kRuntimeError) ++cell.runtime_error;
}

// This process's page faults and CPU time so far (all threads).
struct Usage {
  int64_t minor_faults = 0, major_faults = 0;
  double cpu_seconds = 0;
};

Usage usage_now() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  Usage out;
  out.minor_faults = u.ru_minflt;
  out.major_faults = u.ru_majflt;
  out.cpu_seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                    static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  return out;
}

std::string hex(uint64_t v) {
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << v;
  return out.str();
}

// Draws call `index`: a valid call, or (with probability invalid_share) a call breaking one
// rule. Everything is derived from the case seed, so the draw is replayable alone; the
// Shrinkable also holds the call's shrink tree (walked only for a finding).
rc::Shrinkable<Call> draw_shrinkable(const OpGenerators& gens, uint64_t seed,
                                     double invalid_share) {
  const double unit = static_cast<double>(seed >> 11) * 0x1.0p-53;
  const int size = static_cast<int>(seed % 101);
  const rc::Random random(seed);
  if (unit < invalid_share && !gens.invalid.empty()) {
    return gens.invalid[(seed >> 7) % gens.invalid.size()].gen(random, size);
  }
  return gens.valid(random, size);
}

bool draw_call(const OpGenerators& gens, uint64_t seed, double invalid_share, Call& call) {
  try {
    call = draw_shrinkable(gens, seed, invalid_share).value();
    return true;
  } catch (...) {
    // A generator that gives up (e.g. a discarded draw) is not a finding of the backends.
    return false;
  }
}

// The exact descriptor of a call (of any length), identifying it; empty for a call that has
// none (attributes that are not valid UTF-8).
std::string exact_descriptor(const Call& call, const std::string& backend) {
  try {
    return format_call_descriptor(call, backend);
  } catch (const LogicError&) {
    return "";
  }
}

void describe_finding(CampaignFinding& finding, const Call& call, const std::string& backend) {
  finding.descriptor_note.clear();
  finding.descriptor =
      compact_call_descriptor(judged_call(call), backend, &finding.descriptor_note).value_or("");
}

}  // namespace

CampaignResult run_campaign(const Registry& registry, const CampaignOptions& options,
                            const CampaignProgress& progress, double progress_interval) {
  CampaignResult result;
  result.seed = options.seed;
  check(options.shard_count >= 1 && options.shard_index >= 0 &&
            options.shard_index < options.shard_count,
        "shard ", options.shard_index + 1, "/", options.shard_count, " is out of range");
  result.shard_index = options.shard_index;
  result.shard_count = options.shard_count;
  const auto shards = static_cast<uint64_t>(options.shard_count);
  std::vector<const OpInfo*> ops;
  if (options.ops.empty()) {
    for (const OpInfo& op : registry.ops()) ops.push_back(&op);
  } else {
    for (const std::string& name : options.ops) {
      const OpInfo* op = registry.find_op(name);
      check(op != nullptr, "unknown operator '", name, "'");
      ops.push_back(op);
    }
  }
  std::vector<std::string> others = options.backends.empty() ? other_backends(registry)
                                                             : options.backends;
  result.backends.push_back("reference");
  for (const std::string& name : others) {
    const Backend* backend = registry.find_backend(name);
    check(backend != nullptr, "unknown backend '", name, "'");
    if (name == "reference") continue;
    result.backends.push_back(name);
    if (!backend->available) result.skip_reasons[name] = backend->unavailable_reason;
    if (!reports_precision(name)) result.precision_not_compared.insert(name);
  }
  const std::vector<std::string> compared(result.backends.begin() + 1, result.backends.end());
  for (const OpInfo* op : ops) {
    // An operator the campaign cannot draw calls for is an error, never a silent skip.
    check(generators_for(*op) != nullptr, "operator '", op->name, "' has no generator record");
    for (const std::string& b : result.backends) result.table[op->name][b];
  }

  std::map<std::string, size_t> finding_index;  // signature -> its place in findings
  // Per finding, the exact descriptors of the calls its repros hold: a shrunk call already saved
  // is the same call (the descriptor names it exactly), so it is not written again.
  std::map<size_t, std::set<std::string>> saved_calls;
  std::map<const ExpectationEntry*, EntryUse> uses;
  // The profile's phases (CampaignResult::phase_seconds), summed per call; each compared
  // backend's run time by its place in `compared` (the diff engine returns the runs in order).
  double draw_seconds = 0, reference_seconds = 0, compare_seconds = 0;
  std::vector<double> backend_seconds(compared.size(), 0.0);
  const Usage usage_start = usage_now();
  const Clock::time_point start = Clock::now();
  double last_progress = 0;
  // `local` counts this shard's calls; `index` numbers the call in the whole campaign (the same
  // as `local` when unsharded, so a seed replays as before).
  const auto jobs = static_cast<uint64_t>(std::max(1, options.job_count));
  for (uint64_t local = 0;; ++local) {
    const uint64_t index = local * shards + static_cast<uint64_t>(options.shard_index);
    const double elapsed = since(start);
    if (elapsed >= options.seconds) break;
    if (jobs == 1 && options.max_cases >= 0 && result.calls >= options.max_cases) break;
    if (jobs > 1) {
      // Of several jobs, the calls are bounded by index, so any number of jobs makes the same.
      if (options.max_cases >= 0 && local >= static_cast<uint64_t>(options.max_cases)) break;
      if ((local / ops.size()) % jobs != static_cast<uint64_t>(options.job_index)) continue;
    }
    if (progress && elapsed - last_progress >= progress_interval) {
      last_progress = elapsed;
      progress(result, elapsed);
    }
    const OpInfo& op = *ops[local % ops.size()];
    const OpGenerators* gens = generators_for(op);
    const uint64_t seed = case_seed(options.seed, index);
    Call call;
    const Clock::time_point draw_start = Clock::now();
    const bool drawn = draw_call(*gens, seed, options.invalid_share, call);
    const Clock::time_point call_start = Clock::now();
    draw_seconds += std::chrono::duration<double>(call_start - draw_start).count();
    if (!drawn) {
      ++result.generator_failures;
      continue;
    }
    CallVerdict verdict = judge_call(registry, call, compared, std::string(), std::string());
    result.op_seconds[op.name] += since(call_start);
    ++result.calls;
    reference_seconds += verdict.diff.reference_seconds;
    for (size_t k = 0; k < verdict.diff.runs.size() && k < backend_seconds.size(); ++k) {
      backend_seconds[k] += verdict.diff.runs[k].seconds;
      compare_seconds += verdict.diff.runs[k].compare_seconds;
    }

    auto& row = result.table[op.name];
    count_outcome(row["reference"], verdict.diff.reference.kind);
    if (verdict.diff.expectation_failure) ++row["reference"].mismatches;
    for (const BackendRun& run : verdict.diff.runs) {
      if (run.skipped) {
        ++row[run.backend].skipped;
        continue;
      }
      count_outcome(row[run.backend], run.outcome.kind);
      if (run.difference) ++row[run.backend].mismatches;
    }
    // An expected failure: every backend that failed is listed as known to fail this call.
    const ExpectationEntry* expected_by = nullptr;
    if (!options.expected.empty()) {
      bool all_known = !verdict.diff.expectation_failure;
      const std::string case_name = campaign_case_name(call.rule);
      for (const BackendRun& run : verdict.diff.runs) {
        if (run.skipped) continue;
        const ExpectationEntry* e =
            options.expected.match(run.backend, op.name, case_name, call.rule_id);
        if (e == nullptr) {
          all_known = all_known && !run.difference;
          continue;
        }
        ++(run.difference ? uses[e].failures : uses[e].passes);
        if (run.difference && expected_by == nullptr) expected_by = e;
      }
      if (!all_known) expected_by = nullptr;
    }
    if (verdict.passed) continue;
    if (expected_by != nullptr) {
      ++result.expected_failures;
    } else {
      ++result.mismatches;
    }
    const std::string key = finding_signature(op.name, verdict, call.rule);
    auto [slot, first] = finding_index.try_emplace(key, result.findings.size());
    if (first) {
      CampaignFinding finding;
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
      result.findings.push_back(std::move(finding));
    }
    CampaignFinding& finding = result.findings[slot->second];
    ++finding.calls;
    if (expected_by != nullptr) continue;  // known: no repro, no shrinking time
    // Bounded whatever the bug: a repeating finding writes at most repros_per_signature
    // directories, and the whole campaign max_repros directories and about max_repro_bytes.
    const bool room = !options.repro_root.empty() &&
                      static_cast<int>(finding.repro_dirs.size()) < options.repros_per_signature &&
                      result.repros_written < options.max_repros &&
                      result.repro_bytes < options.max_repro_bytes;
    if (!room) continue;
    // Shrunk before it is saved: the smallest call the generator's shrink tree gives that shows
    // the same signature, within the time budget.
    Call saved = call;
    std::string note = "case seed " + std::to_string(seed);
    int64_t drawn_elements = input_elements(call), saved_elements = drawn_elements;
    if (options.shrink_seconds > 0) {
      ShrinkResult shrunk =
          shrink_finding(registry, draw_shrinkable(*gens, seed, options.invalid_share), verdict,
                         compared, key, options.shrink_seconds);
      saved_elements = shrunk.shrunk_elements;
      note += ", shrunk from " + std::to_string(shrunk.original_elements) + " to " +
              std::to_string(shrunk.shrunk_elements) + " input elements in " +
              std::to_string(shrunk.steps) + " steps" +
              (shrunk.out_of_time ? " (shrink time budget reached)" : "");
      saved = std::move(shrunk.call);
      verdict = std::move(shrunk.verdict);
    }
    const std::string saved_backend = verdict.diff.failing_backend();
    const std::string exact = exact_descriptor(judged_call(saved), saved_backend);
    if (!exact.empty() && !saved_calls[slot->second].insert(exact).second) {
      ++finding.duplicate_repros;  // shrunk to a call this finding's repros hold already
      continue;
    }
    save_repro(saved, (std::filesystem::path(options.repro_root) / (op.name + "-" + hex(seed))).string(),
               verdict, note);
    ++result.repros_written;
    result.repro_bytes += directory_bytes(verdict.repro_dir);
    finding.repro_dirs.push_back(verdict.repro_dir);
    if (finding.repro_dir.empty()) {
      finding.original_elements = drawn_elements;
      finding.shrunk_elements = saved_elements;
      finding.repro_dir = verdict.repro_dir;
      finding.case_seed = seed;
      finding.summary = verdict.report;
      describe_finding(finding, saved, saved_backend);
    }
  }
  for (const std::string& name : compared) {
    int64_t runs = 0;
    for (const auto& [op_name, row] : result.table) runs += row.at(name).cases;
    if (runs > 0) continue;
    const Backend* backend = registry.find_backend(name);
    // With the default selection an unavailable backend (no GPU) is a listed skip; one asked
    // for by name, or an available one, that compared nothing fails the campaign.
    if (!backend->available && options.backends.empty()) continue;
    result.nothing_compared[name] =
        !backend->available ? "unavailable: " + backend->unavailable_reason
                            : (result.calls == 0 ? "no call was made"
                                                 : "skipped on every call (implements none of the "
                                                   "selected operators)");
  }
  for (const auto& [entry, use] : uses) {
    if (use.failures == 0 && use.passes > 0) {
      result.unexpected_passes.push_back(concat(entry->source, " ", entry->selector(), ": ",
                                                use.passes, " runs selected, none failed"));
    }
  }
  result.stale_expectations = stale_entries(options.expected, uses);
  result.seconds = since(start);
  const Usage usage_end = usage_now();
  result.minor_faults = usage_end.minor_faults - usage_start.minor_faults;
  result.major_faults = usage_end.major_faults - usage_start.major_faults;
  result.cpu_seconds = usage_end.cpu_seconds - usage_start.cpu_seconds;
  double measured = draw_seconds + reference_seconds + compare_seconds;
  result.phase_seconds["draw"] = draw_seconds;
  result.phase_seconds["backend:reference"] = reference_seconds;
  for (size_t k = 0; k < compared.size(); ++k) {
    result.phase_seconds["backend:" + compared[k]] += backend_seconds[k];
    measured += backend_seconds[k];
  }
  result.phase_seconds["compare"] = compare_seconds;
  result.phase_seconds["bookkeeping"] = std::max(0.0, result.seconds - measured);
  return result;
}

std::string campaign_table(const CampaignResult& result) {
  std::ostringstream out;
  const int name_width = 22, backend_width = 22;
  out << std::left << std::setw(name_width) << "operator" << std::setw(backend_width) << "backend"
      << std::right << std::setw(9) << "cases" << std::setw(9) << "ok" << std::setw(9) << "logic"
      << std::setw(9) << "runtime" << std::setw(10) << "mismatch" << std::setw(9) << "skipped"
      << "\n";
  CampaignCell totals;
  for (const auto& [op, row] : result.table) {
    for (const std::string& backend : result.backends) {
      const CampaignCell& c = row.at(backend);
      out << std::left << std::setw(name_width) << op << std::setw(backend_width) << backend
          << std::right << std::setw(9) << c.cases << std::setw(9) << c.ok << std::setw(9)
          << c.logic_error << std::setw(9) << c.runtime_error << std::setw(10) << c.mismatches
          << std::setw(9) << c.skipped << "\n";
      totals.cases += c.cases;
      totals.mismatches += c.mismatches;
      totals.skipped += c.skipped;
    }
  }
  out << "calls " << result.calls << " in " << std::fixed << std::setprecision(1)
      << result.seconds << " s (" << std::setprecision(0)
      << (result.seconds > 0 ? static_cast<double>(result.calls) / result.seconds : 0.0)
      << " calls/s), backend runs " << totals.cases << ", skipped " << totals.skipped
      << ", mismatching calls " << result.mismatches
      << (result.expected_failures > 0
              ? " (+" + std::to_string(result.expected_failures) + " expected failures)"
              : std::string())
      << ", findings " << result.findings.size()
      << ", repros " << result.repros_written << " (" << result.repro_bytes << " bytes), seed "
      << result.seed;
  if (result.shard_count > 1) {
    out << ", shard " << result.shard_index + 1 << "/" << result.shard_count;
  }
  out << "\n";
  for (const CampaignFinding& f : result.findings) {
    if (!f.expected_by.empty()) {
      out << "expected failure " << f.key << ": " << f.calls << (f.calls == 1 ? " call" : " calls")
          << " (" << f.expected_by << ")\n";
      continue;
    }
    out << "finding " << f.key << ": " << f.calls << (f.calls == 1 ? " call" : " calls")
        << (f.repro_dir.empty()
                ? ", no repro written (repro bound reached)"
                : ", repro " + f.repro_dir + " (" + std::to_string(f.shrunk_elements) +
                      " input elements, drawn with " + std::to_string(f.original_elements) + ")")
        << (f.duplicate_repros > 0
                ? ", " + std::to_string(f.duplicate_repros) + " more shrunk to a saved call"
                : std::string())
        << "\n";
    // The exact call (the repro's, shrunk), replayable with `cvmcheck run --call '...'`.
    out << "  call: "
        << (f.descriptor.empty() ? "(no descriptor: " + f.descriptor_note + ")"
            : f.descriptor.size() > kTableDescriptorChars
                ? "(" + std::to_string(f.descriptor.size()) +
                      " characters: in campaign.json and the repro's __REPRO --call line)"
                : "'" + f.descriptor + "'")
        << "\n";
  }
  for (const std::string& line : result.unexpected_passes) out << "unexpected pass: " << line << "\n";
  for (const std::string& line : result.stale_expectations) out << line << "\n";
  for (const auto& [backend, why] : result.nothing_compared) {
    out << "nothing compared for backend " << backend << ": " << why << "\n";
  }
  for (const auto& [backend, reason] : result.skip_reasons) {
    out << "skipped backend " << backend << ": " << reason << "\n";
  }
  for (const std::string& backend : result.precision_not_compared) {
    out << "precision not compared: backend " << backend << kPrecisionNotCompared << "\n";
  }
  if (result.generator_failures > 0) {
    out << "generator draws abandoned: " << result.generator_failures << "\n";
  }
  return out.str();
}

std::string campaign_json(const CampaignResult& result) {
  nlohmann::json json;
  json["seed"] = result.seed;
  json["shard"] = std::to_string(result.shard_index + 1) + "/" + std::to_string(result.shard_count);
  json["seconds"] = result.seconds;
  json["calls"] = result.calls;
  json["mismatching_calls"] = result.mismatches;
  json["expected_failures"] = result.expected_failures;
  json["unexpected_passes"] = result.unexpected_passes;
  json["stale_expectations"] = result.stale_expectations;
  json["repros_written"] = result.repros_written;
  json["repro_bytes"] = result.repro_bytes;
  json["nothing_compared"] = result.nothing_compared;
  json["generator_failures"] = result.generator_failures;
  json["backends"] = result.backends;
  json["skipped_backends"] = result.skip_reasons;
  json["precision_not_compared"] = result.precision_not_compared;
  json["phase_seconds"] = result.phase_seconds;
  json["page_faults"] = {{"minor", result.minor_faults}, {"major", result.major_faults}};
  json["cpu_seconds"] = result.cpu_seconds;
  for (const auto& [op, row] : result.table) {
    for (const auto& [backend, c] : row) {
      json["table"][op][backend] = {{"cases", c.cases},           {"ok", c.ok},
                                    {"logic_error", c.logic_error}, {"runtime_error", c.runtime_error},
                                    {"mismatches", c.mismatches}, {"skipped", c.skipped}};
    }
    const auto it = result.op_seconds.find(op);
    json["op_seconds"][op] = it == result.op_seconds.end() ? 0.0 : it->second;
  }
  json["findings"] = nlohmann::json::array();
  for (const CampaignFinding& f : result.findings) {
    json["findings"].push_back({{"op", f.op},
                                {"backend", f.backend},
                                {"rule", f.rule},
                                {"case_seed", f.case_seed},
                                {"signature", f.key},
                                {"calls", f.calls},
                                {"repro_dir", f.repro_dir},
                                {"repro_dirs", f.repro_dirs},
                                {"drawn_input_elements", f.original_elements},
                                {"repro_input_elements", f.shrunk_elements},
                                {"expected_by", f.expected_by},
                                {"first_index", f.first_index},
                                {"descriptor", f.descriptor},
                                {"descriptor_note", f.descriptor_note},
                                {"duplicate_repros", f.duplicate_repros},
                                {"report", f.summary}});
  }
  return json.dump(2) + "\n";
}

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::string campaign_junit(const CampaignResult& result) {
  int64_t tests = 0, failures = 0, skipped = 0;
  std::ostringstream cases;
  for (const auto& [op, row] : result.table) {
    for (const std::string& backend : result.backends) {
      const CampaignCell& c = row.at(backend);
      ++tests;
      cases << "  <testcase classname=\"cvmcheck." << xml_escape(op) << "\" name=\""
            << xml_escape(backend) << "\">";
      if (c.mismatches > 0) {
        ++failures;
        std::string details;
        for (const CampaignFinding& f : result.findings) {
          if (f.op == op && f.backend == backend) details += f.summary + "\n";
        }
        cases << "<failure message=\"" << c.mismatches << " mismatching calls of " << c.cases
              << "\">" << xml_escape(details) << "</failure>";
      } else if (c.cases == 0) {
        ++skipped;
        const auto reason = result.skip_reasons.find(backend);
        cases << "<skipped message=\""
              << xml_escape(reason != result.skip_reasons.end() ? reason->second
                                                               : "not implemented or no calls")
              << "\"/>";
      }
      cases << "</testcase>\n";
    }
  }
  for (const auto& [backend, why] : result.nothing_compared) {
    ++tests;
    ++failures;
    cases << "  <testcase classname=\"cvmcheck.nothing_compared\" name=\"" << xml_escape(backend)
          << "\"><failure message=\"nothing compared: " << xml_escape(why) << "\"/></testcase>\n";
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuite name=\"cvmcheck-campaign\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" skipped=\"" << skipped << "\" time=\"" << result.seconds << "\">\n"
      << cases.str() << "</testsuite>\n";
  return out.str();
}

}  // namespace cvm
