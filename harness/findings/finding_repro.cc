// A finding's repros (harness/findings/finding.h): the case directory, its __REPRO lines, and a
// run's bounded, shrunk, de-duplicated repros.
#include <chrono>
#include <filesystem>

#include "cvmcheck/case.h"
#include "cvmcheck/case_seed.h"
#include "harness/engine/call_descriptor.h"
#include "harness/findings/finding.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm {

void write_repro(const Call& call, const Outcome& reference, const std::string& dir,
                 const std::string& extra_note) {
  std::string note = describe_call(call, 0);
  if (!extra_note.empty()) note += "; " + extra_note;
  // The case expects a rule id only where the call declares the one rule it breaks (as the diff
  // judges it): a free-form call's reference id may be one of several right answers.
  Outcome expect = reference;
  expect.rule = reference.kind == OutcomeKind::kLogicError ? call.rule_id : "";
  write_case(dir, call.op, call.attrs, call.inputs, expect, note);
}

void save_repro(const Call& call, const std::string& dir, CallVerdict& verdict,
                const std::string& note) {
  verdict.repro_dir = dir;
  std::filesystem::remove_all(dir);
  // When the oracle itself disagreed with the call's rule, the repro expects what the rule says
  // (a call without a rule must succeed).
  Outcome rule_outcome;
  rule_outcome.kind = call.expected.value_or(OutcomeKind::kOk);
  write_repro(call, verdict.diff.expectation_failure ? rule_outcome : verdict.diff.reference, dir,
              note);
  const std::string backend = verdict.diff.failing_backend();
  verdict.report += repro_line(dir, backend) + "\n";
  verdict.report += repro_call_line(judged_call(call), backend) + "\n";
}

std::string repro_line(const std::string& dir, const std::string& backend) {
  return "__REPRO: cvmcheck run " + dir + " " + backend_cli_args(backend);
}

std::string repro_call_line(const Call& call, const std::string& backend) {
  std::string why_not;
  const std::optional<std::string> descriptor = compact_call_descriptor(call, backend, &why_not);
  if (!descriptor) return "# no __REPRO --call line: " + why_not;
  const std::string definition = backend_definition_args(backend);
  // The descriptor holds no single quote, so one pair of quotes is enough for any shell.
  return "__REPRO: cvmcheck run --call '" + *descriptor + "'" +
         (definition.empty() ? "" : " " + definition);
}

int64_t directory_bytes(const std::string& dir) {
  int64_t bytes = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file(error)) bytes += static_cast<int64_t>(entry.file_size(error));
  }
  return bytes;
}

bool ReproWriter::room_for(const Finding& finding) const {
  // Every finding gets its first repro (findings are few: one per signature); max_repros bounds
  // the further ones, and 0 writes none.
  const bool first = finding.repro_dirs.empty();
  return !bounds_.root.empty() && bounds_.max_repros > 0 &&
         static_cast<int>(finding.repro_dirs.size()) < bounds_.per_signature &&
         (first || tally_.written < bounds_.max_repros) && tally_.bytes < bounds_.max_bytes;
}

void ReproWriter::save(Finding& finding, FailingCall failing) {
  if (!room_for(finding)) return;
  // Shrunk before it is saved: the smallest call the generator's shrink tree gives that shows
  // the same signature, within the time budget.
  Call saved = failing.call;
  CallVerdict verdict = std::move(failing.verdict);
  std::string note = "case seed " + std::to_string(failing.seed);
  const int64_t drawn_elements = input_elements(failing.call);
  int64_t saved_elements = drawn_elements;
  if (bounds_.shrink_seconds > 0 && failing.shrink_tree) {
    const auto start = std::chrono::steady_clock::now();
    ShrinkResult shrunk =
        shrink_finding(registry_, failing.shrink_tree(), verdict, failing.backends,
                       failing.signature, bounds_.shrink_seconds, failing.keeps);
    tally_.shrink_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  if (!exact.empty() && !saved_calls_[failing.signature].insert(exact).second) {
    ++finding.duplicate_repros;  // shrunk to a call this finding's repros hold already
    return;
  }
  const std::filesystem::path dir =
      std::filesystem::path(bounds_.root) / (finding.op + "-" + seed_hex(failing.seed));
  save_repro(saved, dir.string(), verdict, note);
  ++tally_.written;
  tally_.bytes += directory_bytes(verdict.repro_dir);
  finding.repro_dirs.push_back(verdict.repro_dir);
  if (!finding.repro_dir.empty()) return;
  finding.original_elements = drawn_elements;
  finding.shrunk_elements = saved_elements;
  finding.repro_dir = verdict.repro_dir;
  finding.case_seed = failing.seed;
  finding.summary = verdict.report;
  describe_finding(finding, saved, saved_backend);
}

}  // namespace cvm
