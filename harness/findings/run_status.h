// How a run that checks backends ends (cvmcheck campaign, golden verify, mrt, findings record):
// its exit status, and whether its findings fail it under --fail-on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/findings/findings_store.h"

namespace cvm {

// The command line's kExitOk, kExitMismatch and kExitInterrupted (tools/cvmcheck/commands.h).
inline constexpr int kRunPassed = 0;
inline constexpr int kRunFailed = 1;  // an expectation did not hold
// Stopped by SIGINT, SIGTERM or SIGHUP before its end with nothing failing in what it did (a
// failure still gives kRunFailed): the reports and the store keep the run as interrupted.
inline constexpr int kRunInterrupted = 5;

// Whether the findings fail the run under --fail-on: "unexpected" (default) any unexpected
// mismatch; "new" only findings new or regressed since the store's last run (without a store,
// every unexpected finding is new); "any" also expected failures. `unexpected` and `expected`
// count the failing calls (or cases) of each kind.
bool findings_fail(int64_t unexpected, int64_t expected, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on);

}  // namespace cvm
