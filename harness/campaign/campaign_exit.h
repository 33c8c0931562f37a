// The campaign's verdict on the whole run: the exit status a CampaignResult gets (findings under
// --fail-on, wrong path marks, unreached paths by scope, backends that compared nothing, a stop
// by signal) and the lines that say why. A pure function of the result, the findings store's
// delta and the rules the command line sets (docs/paths.md, "What the campaign does with them").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"
#include "harness/findings/run_status.h"

namespace cvm {

struct CampaignExitRules {
  std::string fail_on = "unexpected";  // --fail-on (harness/findings/run_status.h)
  // Every operator and the default backends (no --ops, --backends or --backend): the main job's
  // and the nightly's scope, where an unreached declared path fails the run.
  bool default_scope = false;
  bool allow_nothing_compared = false;  // a selected backend that compared nothing passes
  bool allow_unreached_paths = false;   // an unreached path of the default scope passes
  bool require_paths = false;           // an unreached path fails any run, narrow ones too
};

struct CampaignExit {
  int status = kRunPassed;  // kRunPassed, kRunFailed or kRunInterrupted
  // Why, a line each, warnings included ("warning: ..."), in the order the rules were applied;
  // without the command's name.
  std::vector<std::string> messages;
};

// The rules in order, the first that fails giving kRunFailed: the findings under `fail_on`
// (`delta`: what the store found new, without a store nullopt); a path mark the path oracle's
// rows refute (any run); unreached declared paths (a run of the default scope not stopped by a
// signal, unless allowed, or any run with require_paths; else a warning); with require_paths,
// paths whose operators made too few calls to judge them; a selected backend that compared no
// call, or skipped every call of operators it declares (unless allowed or stopped by a signal).
// Else kRunInterrupted for a run stopped by a signal, kRunPassed otherwise.
CampaignExit campaign_exit(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                           const CampaignExitRules& rules);

// Whether a signal stopped the run before its end (CampaignResult::stopped "signal:NAME").
bool stopped_by_signal(const CampaignResult& result);

// findings_fail (run_status.h) on the campaign's unexpected and expected failing calls.
bool findings_fail(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on);

}  // namespace cvm
