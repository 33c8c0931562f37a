// A finding's identity and description (harness/findings/finding.h).
#include "harness/findings/finding.h"

#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor.h"

namespace cvm {

std::string finding_signature(const std::string& op, const CallVerdict& verdict,
                              const std::string& rule) {
  const DiffResult& diff = verdict.diff;
  if (diff.expectation_failure) {
    std::string signature = op + "|reference|expectation|" + (rule.empty() ? "valid" : rule) + "|" +
                            outcome_name(diff.reference.kind);
    // The right class with the wrong rule id: which id, so each wrong one is its own finding.
    if (diff.reference.kind == OutcomeKind::kLogicError) {
      signature += "|" + (diff.reference.rule.empty() ? "no rule id" : diff.reference.rule);
    }
    return signature;
  }
  for (const BackendRun& run : diff.runs) {
    if (run.skipped || !run.difference) continue;
    return difference_signature(op, run.backend, *run.difference, diff.reference, run.outcome);
  }
  return op + "|?";
}

std::string difference_signature(const std::string& op, const std::string& backend,
                                 const Difference& d, const Outcome& reference,
                                 const Outcome& actual) {
  std::string signature = op + "|" + backend + "|" + d.kind;
  if (d.kind == "class") {
    signature += std::string("|") + outcome_name(reference.kind) + "->" + outcome_name(actual.kind);
  }
  if (d.kind == "rule") signature += "|" + reference.rule + "->" + actual.rule;
  if (d.output >= 0) signature += "|output " + std::to_string(d.output);
  return signature;
}

std::string exact_descriptor(const Call& call, const std::string& backend) {
  try {
    return format_call_descriptor(call, backend);
  } catch (const LogicError&) {
    return "";
  }
}

void describe_finding(Finding& finding, const Call& call, const std::string& backend) {
  finding.descriptor_note.clear();
  finding.descriptor =
      compact_call_descriptor(judged_call(call), backend, &finding.descriptor_note).value_or("");
}

}  // namespace cvm
