#include "harness/engine/diff_report.h"

#include <sstream>

#include "harness/engine/call_descriptor.h"

namespace cvm {

std::string diff_report(const DiffResult& diff, const Call& call) {
  std::ostringstream out;
  out << "call: " << describe_call(call) << "\n";
  std::string why_not;
  const std::string failing = diff.failing_backend();
  const std::optional<std::string> descriptor =
      compact_call_descriptor(call, failing.empty() ? kReferenceBackend : failing, &why_not);
  out << "descriptor: " << (descriptor ? *descriptor : "(none: " + why_not + ")") << "\n";
  out << "reference: " << outcome_name(diff.reference.kind)
      << (diff.reference.rule.empty() ? "" : " [" + diff.reference.rule + "]")
      << (diff.reference.message.empty() ? "" : " (" + diff.reference.message + ")") << "\n";
  if (diff.expectation_failure) out << "expected: " << *diff.expectation_failure << "\n";
  for (const BackendRun& run : diff.runs) {
    if (run.skipped || !run.difference) continue;
    out << run.backend << ": " << outcome_name(run.outcome.kind)
        << (run.outcome.rule.empty() ? "" : " [" + run.outcome.rule + "]")
        << (run.outcome.message.empty() ? "" : " (" + run.outcome.message + ")") << "\n";
    out << "  first difference: " << run.difference->what << "\n";
    const int k = run.difference->output;
    const int64_t i = run.difference->first_index;
    if (k >= 0 && i >= 0 && static_cast<size_t>(k) < diff.reference.outputs.size()) {
      const Shape& shape = diff.reference.outputs[static_cast<size_t>(k)].shape();
      for (size_t in = 0; in < call.inputs.size(); ++in) {
        if (call.inputs[in].shape() == shape) {
          out << "  input " << in << " at that index: " << call.inputs[in].get(i) << "\n";
        }
      }
    }
  }
  return out.str();
}

}  // namespace cvm
