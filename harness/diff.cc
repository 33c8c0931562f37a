#include "harness/diff.h"

#include <sstream>

#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "harness/exec_backend.h"

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
  out << "reference: " << outcome_name(reference.kind)
      << (reference.message.empty() ? "" : " (" + reference.message + ")") << "\n";
  if (expectation_failure) out << "expected: " << *expectation_failure << "\n";
  for (const BackendRun& run : runs) {
    if (run.skipped || !run.difference) continue;
    out << run.backend << ": " << outcome_name(run.outcome.kind)
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

DiffResult diff_call(const Registry& registry, const Call& call,
                     const std::vector<std::string>& backends) {
  return diff_call_against(registry, call,
                           run_op_outcome(registry, "reference", call.op, call.attrs, call.inputs),
                           backends);
}

DiffResult diff_call_against(const Registry& registry, const Call& call, Outcome reference,
                             const std::vector<std::string>& backends) {
  DiffResult result;
  result.reference = std::move(reference);
  if (call.expected && *call.expected != result.reference.kind) {
    result.expectation_failure =
        concat(outcome_name(*call.expected), " (rule ", call.rule.empty() ? "-" : call.rule,
               ") but the reference gave ", outcome_name(result.reference.kind));
  }
  const OpInfo* op = registry.find_op(call.op);
  for (const std::string& name : backends) {
    if (name == "reference") continue;
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
      run.outcome = run_op_outcome(registry, name, call.op, call.attrs, call.inputs);
      run.difference = compare_outcomes(run.outcome, result.reference, name, "reference");
    }
    result.runs.push_back(std::move(run));
  }
  return result;
}

void write_repro(const Call& call, const Outcome& reference, const std::string& dir,
                 const std::string& extra_note) {
  std::string note = describe_call(call, 0);
  if (!extra_note.empty()) note += "; " + extra_note;
  write_case(dir, call.op, call.attrs, call.inputs, reference, note);
}

std::string repro_line(const std::string& dir, const std::string& backend) {
  return "__REPRO: cvmcheck run " + dir + " " + backend_cli_args(backend);
}

}  // namespace cvm
