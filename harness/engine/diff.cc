#include "harness/engine/diff.h"

#include <chrono>
#include <functional>
#include <map>
#include <sstream>

#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm {

bool DiffResult::agree() const {
  for (const BackendRun& run : runs) {
    if (!run.skipped && run.difference) return false;
  }
  return true;
}

std::string DiffResult::failing_backend() const {
  if (expectation_failure) return "reference";
  for (const BackendRun& run : runs) {
    if (!run.skipped && run.difference) return run.backend;
  }
  return "";
}

std::string DiffResult::report(const Call& call) const {
  std::ostringstream out;
  out << "call: " << describe_call(call) << "\n";
  std::string why_not;
  const std::string failing = failing_backend();
  const std::optional<std::string> descriptor =
      compact_call_descriptor(call, failing.empty() ? "reference" : failing, &why_not);
  out << "descriptor: " << (descriptor ? *descriptor : "(none: " + why_not + ")") << "\n";
  out << "reference: " << outcome_name(reference.kind)
      << (reference.rule.empty() ? "" : " [" + reference.rule + "]")
      << (reference.message.empty() ? "" : " (" + reference.message + ")") << "\n";
  if (expectation_failure) out << "expected: " << *expectation_failure << "\n";
  for (const BackendRun& run : runs) {
    if (run.skipped || !run.difference) continue;
    out << run.backend << ": " << outcome_name(run.outcome.kind)
        << (run.outcome.rule.empty() ? "" : " [" + run.outcome.rule + "]")
        << (run.outcome.message.empty() ? "" : " (" + run.outcome.message + ")") << "\n";
    out << "  first difference: " << run.difference->what << "\n";
    const int k = run.difference->output;
    const int64_t i = run.difference->first_index;
    if (k >= 0 && i >= 0 && static_cast<size_t>(k) < reference.outputs.size()) {
      const Shape& shape = reference.outputs[static_cast<size_t>(k)].shape();
      for (size_t in = 0; in < call.inputs.size(); ++in) {
        if (call.inputs[in].shape() == shape) {
          out << "  input " << in << " at that index: " << call.inputs[in].get(i) << "\n";
        }
      }
    }
  }
  return out.str();
}

std::vector<std::string> other_backends(const Registry& registry) {
  std::vector<std::string> names;
  for (const Backend& b : registry.backends()) {
    if (b.name != "reference") names.push_back(b.name);
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
    if (name == "reference" && !run_reference) continue;
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
      if (outputs_matter && !reports_precision(name)) {
        // It reports no precision (its worker's handshake says so): the reference's stands in for
        // each output, so that values, shapes, dtypes and classes are compared, precisions not.
        const std::vector<Tensor>& want = result.reference.outputs;
        for (size_t k = 0; k < run.outcome.outputs.size() && k < want.size(); ++k) {
          run.outcome.outputs[k].set_precision(want[k].precision());
        }
      }
      run.difference = compare_outcomes(
          run.outcome, outputs_matter ? result.reference : judged_reference, name, "reference");
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
  Outcome reference = run_op_outcome(registry, "reference", call.op, call.attrs, call.inputs);
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

}  // namespace cvm
