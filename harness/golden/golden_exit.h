// golden verify's verdict on the whole run: the exit status its results get.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/findings/findings_store.h"
#include "harness/findings/run_status.h"
#include "harness/golden/golden.h"

namespace cvm {

// kRunFailed for a corrupt case, or a failing one without a signature (which the store cannot
// hold), whatever --fail-on says; else for failing cases under `fail_on` (findings_fail, with
// `delta` what the store found new, without a store nullopt). Else kRunInterrupted when a signal
// stopped the run (`stopped`), kRunPassed otherwise.
int golden_exit_status(const std::vector<GoldenVerifyResult>& results,
                       const std::optional<StoreDelta>& delta, const std::string& fail_on,
                       bool stopped);

}  // namespace cvm
