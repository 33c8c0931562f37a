// The campaign's exit status and the lines saying why (campaign_exit.h).
#include "harness/campaign/campaign_exit.h"

namespace cvm {
namespace {

// A mark the path oracle's rows refute fails every run, narrow or not: the path counts and the
// "every path reached" verdict rest on the marks (harness/path_oracle).
bool wrong_marks_fail(const CampaignResult& result, std::vector<std::string>& messages) {
  for (const auto& [backend, wrong] : result.paths.wrong_marks) {
    messages.push_back("backend " + backend + " marks kernel paths wrongly (" +
                       std::to_string(wrong.size()) + " rows of the path oracle fail): " +
                       wrong.front());
  }
  return !result.paths.wrong_marks.empty();
}

// Unreached declared paths: a failure in a run of the default scope (every operator, the default
// backends: what the main job and the nightly run) or with --require-paths; else a warning, since
// a narrow or stopped run cannot be expected to reach every path (docs/paths.md). A path whose
// operators made too few calls to judge it (the summary's warning) fails with --require-paths
// alone: a run too short or too slow is no verdict on the tree.
bool unreached_paths_fail(const CampaignResult& result, const CampaignExitRules& rules,
                          std::vector<std::string>& messages) {
  if (rules.require_paths) {
    for (const auto& [backend, few] : result.paths.too_few_calls) {
      messages.push_back("backend " + backend + " made too few calls to judge kernel paths it "
                         "never reached: " + join_names(few) + " (--require-paths)");
    }
    if (!result.paths.too_few_calls.empty() && result.paths.not_reached.empty()) return true;
  }
  if (result.paths.not_reached.empty()) return false;
  const bool strict =
      rules.require_paths ||
      (rules.default_scope && !rules.allow_unreached_paths && !stopped_by_signal(result));
  const std::string why =
      strict ? (rules.require_paths ? " (--require-paths)"
                                    : " (--allow-unreached-paths accepts that)")
             : " (not a failure of a narrow or stopped run; --require-paths makes it one)";
  for (const auto& [backend, missing] : result.paths.not_reached) {
    messages.push_back(std::string(strict ? "" : "warning: ") + "backend " + backend +
                       " declares kernel paths no call reached: " + join_names(missing) + why);
  }
  return strict;
}

// A selected backend that compared no call at all, or skipped every call of operators it
// declares, checked nothing there: a failure unless allowed, or the run was stopped early.
bool nothing_compared_fails(const CampaignResult& result, const CampaignExitRules& rules,
                            std::vector<std::string>& messages) {
  const bool nothing = !result.nothing_compared.empty() || !result.declared_not_compared.empty();
  if (!nothing || rules.allow_nothing_compared || stopped_by_signal(result)) return false;
  for (const auto& [backend, why] : result.nothing_compared) {
    messages.push_back("nothing compared for backend " + backend + ": " + why +
                       " (--allow-nothing-compared accepts that)");
  }
  for (const auto& [backend, ops] : result.declared_not_compared) {
    messages.push_back("backend " + backend + " declares but skipped every call of " +
                       join_names(ops) + " (--allow-nothing-compared accepts that)");
  }
  return true;
}

}  // namespace

CampaignExit campaign_exit(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                           const CampaignExitRules& rules) {
  CampaignExit ending;
  const bool failed = findings_fail(result, delta, rules.fail_on) ||
                      wrong_marks_fail(result, ending.messages) ||
                      unreached_paths_fail(result, rules, ending.messages) ||
                      nothing_compared_fails(result, rules, ending.messages);
  ending.status = failed ? kRunFailed : stopped_by_signal(result) ? kRunInterrupted : kRunPassed;
  return ending;
}

bool stopped_by_signal(const CampaignResult& result) {
  return result.stopped.rfind("signal:", 0) == 0;
}

bool findings_fail(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on) {
  return findings_fail(result.mismatches, result.expected_failures, delta, fail_on);
}

}  // namespace cvm
