#include "harness/engine/verdict.h"

#include "cvmcheck/errors.h"
#include "harness/engine/diff_report.h"

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
  if (!verdict.passed) verdict.report = diff_report(verdict.diff, how.free_form ? call : judged_call(call));
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
                       const std::vector<std::string>& backends) {
  Judgement how;
  how.backends = backends;
  return judge(registry, call, std::move(how));
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
