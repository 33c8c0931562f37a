#include "harness/engine/diff.h"

#include <chrono>
#include <functional>
#include <map>

#include "cvmcheck/errors.h"

namespace cvm {

bool DiffResult::agree() const {
  for (const BackendRun& run : runs) {
    if (!run.skipped && run.difference) return false;
  }
  return true;
}

std::string DiffResult::failing_backend() const {
  if (expectation_failure) return kReferenceBackend;
  for (const BackendRun& run : runs) {
    if (!run.skipped && run.difference) return run.backend;
  }
  return "";
}

std::vector<std::string> other_backends(const Registry& registry) {
  std::vector<std::string> names;
  for (const Backend& b : registry.backends()) {
    if (b.name != kReferenceBackend) names.push_back(b.name);
  }
  return names;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The outcomes of external backends whose calls were sent before the reference ran.
using PendingCalls = std::map<std::string, std::function<Outcome()>>;

// `run_reference`: the reference outcome was given (a stored expectation), so a listed
// "reference" backend is run and judged like any other.
DiffResult diff_against(const Registry& registry, const Call& call, Outcome reference,
                        const std::vector<std::string>& backends, PendingCalls& pending,
                        bool run_reference, std::optional<OutcomeKind> expect) {
  DiffResult result;
  result.reference = std::move(reference);
  const std::optional<OutcomeKind> expected = expect ? expect : call.expected;
  if (expected && *expected != result.reference.kind) {
    result.expectation_failure =
        concat(outcome_name(*expected), " (rule ", call.rule.empty() ? "-" : call.rule,
               ") but the reference gave ", outcome_name(result.reference.kind));
  } else if (expected == OutcomeKind::kLogicError && !call.rule_id.empty() &&
             result.reference.rule != call.rule_id) {
    // The oracle must name the one rule the call breaks (docs/contract.md, "Rule ids").
    result.expectation_failure =
        concat("logic_error breaking ", call.rule_id, " but the reference raised ",
               result.reference.rule.empty() ? "no rule id" : result.reference.rule);
  }
  // Rule ids are compared only where the call is known to break one rule: then that rule is the
  // only right answer. A free-form call may break several, which a backend may check in any
  // order, so there a logic_error matches any logic_error.
  Outcome judged_reference;
  judged_reference.kind = result.reference.kind;
  judged_reference.rule = call.rule_id;
  const bool outputs_matter = result.reference.kind == OutcomeKind::kOk;
  const OpInfo* op = registry.find_op(call.op);
  for (const std::string& name : backends) {
    if (name == kReferenceBackend && !run_reference) continue;
    const Backend* backend = registry.find_backend(name);
    check(backend != nullptr, "unknown backend '", name, "'");
    BackendRun run;
    run.backend = name;
    if (!backend->available) {
      run.skipped = true;
      run.skip_reason = "unavailable: " + backend->unavailable_reason;
    } else if (op != nullptr && !backend->implements(op->name)) {
      run.skipped = true;
      run.skip_reason = "not implemented";
    } else {
      // Timed for the campaign's profile: a clock read costs tens of nanoseconds, a backend
      // run tens of microseconds (docs/performance.md, "Harness throughput"). For a worker that
      // computed while the reference ran, this is the wait for its reply.
      const Clock::time_point start = Clock::now();
      const auto sent = pending.find(name);
      if (sent != pending.end()) {
        run.outcome = sent->second();
        pending.erase(sent);
      } else {
        run.outcome = run_op_outcome(registry, name, call.op, call.attrs, call.inputs);
      }
      const Clock::time_point ran = Clock::now();
      if (outputs_matter && !backend->reports_precision) {
        // It reports no precision (its worker's handshake says so): the reference's stands in for
        // each output, so that values, shapes, dtypes and classes are compared, precisions not.
        const std::vector<Tensor>& want = result.reference.outputs;
        for (size_t k = 0; k < run.outcome.outputs.size() && k < want.size(); ++k) {
          run.outcome.outputs[k].set_precision(want[k].precision());
        }
      }
      run.difference = compare_outcomes(
          run.outcome, outputs_matter ? result.reference : judged_reference, name, kReferenceBackend);
      run.seconds = seconds_between(start, ran);
      run.compare_seconds = seconds_between(ran, Clock::now());
    }
    result.runs.push_back(std::move(run));
  }
  return result;
}

}  // namespace

DiffResult diff_call(const Registry& registry, const Call& call,
                     const std::vector<std::string>& backends, std::optional<OutcomeKind> expect) {
  // External workers get the call first and compute while the reference runs (the harness's
  // throughput through the protocol; docs/backend-protocol.md). Internal backends run in turn.
  PendingCalls pending;
  const OpInfo* op = registry.find_op(call.op);
  for (const std::string& name : backends) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available || !backend->external_begin ||
        pending.count(name) != 0 || (op != nullptr && !backend->implements(op->name))) {
      continue;
    }
    pending[name] = backend->external_begin(call.op, call.attrs, call.inputs);
  }
  const Clock::time_point start = Clock::now();
  Outcome reference = run_op_outcome(registry, kReferenceBackend, call.op, call.attrs, call.inputs);
  const double reference_seconds = seconds_between(start, Clock::now());
  DiffResult result = diff_against(registry, call, std::move(reference), backends, pending,
                                   /*run_reference=*/false, expect);
  result.reference_seconds = reference_seconds;
  return result;
}

DiffResult diff_call_against(const Registry& registry, const Call& call, Outcome reference,
                             const std::vector<std::string>& backends, bool run_reference,
                             std::optional<OutcomeKind> expect) {
  PendingCalls pending;
  return diff_against(registry, call, std::move(reference), backends, pending, run_reference,
                      expect);
}

}  // namespace cvm
