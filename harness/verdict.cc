#include "harness/verdict.h"

#include <filesystem>

namespace cvm {

CallVerdict judge_call(const Registry& registry, const Call& call,
                       const std::vector<std::string>& backends, const std::string& repro_root,
                       const std::string& name) {
  CallVerdict verdict;
  Call judged = call;
  // A valid call is expected to succeed on the oracle.
  if (!judged.expected) judged.expected = OutcomeKind::kOk;
  verdict.diff = diff_call(registry, judged, backends);
  verdict.passed = verdict.diff.passed();
  if (verdict.passed) return verdict;
  verdict.report = verdict.diff.report(judged);
  if (!repro_root.empty()) {
    verdict.repro_dir = (std::filesystem::path(repro_root) / name).string();
    std::filesystem::remove_all(verdict.repro_dir);
    Outcome expected = verdict.diff.reference;
    if (verdict.diff.expectation_failure) {
      // The oracle itself disagreed with the rule: the repro expects what the rule says.
      expected = Outcome{*judged.expected, "", {}};
    }
    write_repro(judged, expected, verdict.repro_dir);
    verdict.report += repro_line(verdict.repro_dir, verdict.diff.failing_backend()) + "\n";
  }
  return verdict;
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
