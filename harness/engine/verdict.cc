#include "harness/engine/verdict.h"

#include <filesystem>

#include "cvmcheck/errors.h"

namespace cvm {

Call judged_call(const Call& call) {
  Call judged = call;
  if (!judged.expected) judged.expected = OutcomeKind::kOk;
  return judged;
}

CallVerdict judge(const Registry& registry, const Call& call, Judgement how) {
  CallVerdict verdict;
  // A valid call is expected to succeed on the oracle (set without copying the call: this runs
  // for every call of every campaign).
  const std::optional<OutcomeKind> expect =
      how.free_form ? call.expected : std::optional<OutcomeKind>(call.expected.value_or(OutcomeKind::kOk));
  verdict.diff = how.reference
                     ? diff_call_against(registry, call, std::move(*how.reference), how.backends,
                                         how.reference_is_stored, expect)
                     : diff_call(registry, call, how.backends, expect);
  if (!verdict.diff.expectation_failure &&
      verdict.diff.reference.kind == OutcomeKind::kRuntimeError) {
    verdict.diff.expectation_failure = "the reference gave runtime_error (a bug of ours)";
  }
  verdict.passed = verdict.diff.passed();
  if (!verdict.passed) verdict.report = verdict.diff.report(how.free_form ? call : judged_call(call));
  return verdict;
}

CaseResult judge_case(const Registry& registry, const std::string& dir,
                      const std::string& backend) {
  const CaseSpec spec = read_case(dir);
  CaseResult result;
  Call call;
  call.op = spec.op;
  call.attrs = spec.attrs;
  try {
    call.inputs = load_inputs(dir, spec);
  } catch (const LogicError& e) {
    // The inputs cannot be tensors (a malformed or out-of-limits .npy): no backend can run the
    // call, and every one rejects it as a bad input.
    result.outcome.kind = OutcomeKind::kLogicError;
    result.outcome.message = e.what();
    result.outcome.rule = e.rule();
    if (spec.expect) {
      result.difference = compare_outcomes(result.outcome, load_expected(dir, *spec.expect),
                                           backend, "expected");
      result.matches = !result.difference.has_value();
    }
    return result;
  }
  if (!spec.expect) {
    result.outcome = run_op_outcome(registry, backend, call.op, call.attrs, call.inputs);
    return result;
  }
  Judgement how;
  how.backends = {backend};
  how.reference = load_expected(dir, *spec.expect);
  how.reference_is_stored = true;
  call.expected = spec.expect->outcome;
  call.rule_id = spec.expect->rule;
  const CallVerdict verdict = judge(registry, call, std::move(how));
  const BackendRun& run = verdict.diff.runs.at(0);
  if (run.skipped) {
    // Asked explicitly to run a case it cannot: its failure to run it, never a pass.
    result.outcome.kind = OutcomeKind::kRuntimeError;
    result.outcome.message = concat(spec.op, ": backend '", backend, "' ", run.skip_reason);
    result.difference = compare_outcomes(result.outcome, load_expected(dir, *spec.expect),
                                         backend, "expected");
  } else {
    result.outcome = run.outcome;
    result.difference = run.difference;
  }
  result.matches = !result.difference.has_value();
  return result;
}

CallVerdict judge_call(const Registry& registry, const Call& call,
                       const std::vector<std::string>& backends, const std::string& repro_root,
                       const std::string& name) {
  Judgement how;
  how.backends = backends;
  CallVerdict verdict = judge(registry, call, std::move(how));
  if (!verdict.passed && !repro_root.empty()) {
    save_repro(call, (std::filesystem::path(repro_root) / name).string(), verdict);
  }
  return verdict;
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

int64_t directory_bytes(const std::string& dir) {
  int64_t bytes = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file(error)) bytes += static_cast<int64_t>(entry.file_size(error));
  }
  return bytes;
}

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

bool all_outputs_zero(const Outcome& outcome) {
  for (const Tensor& y : outcome.outputs) {
    for (int64_t i = 0; i < y.size(); ++i) {
      if (y.get(i) != 0) return false;
    }
  }
  return true;
}

}  // namespace cvm
