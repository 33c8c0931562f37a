// Whether a run's findings fail it (run_status.h).
#include "harness/findings/run_status.h"

namespace cvm {

bool findings_fail(int64_t unexpected, int64_t expected, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on) {
  if (fail_on == "any") return unexpected > 0 || expected > 0;
  if (fail_on == "new" && delta.has_value()) {
    return !delta->fresh.empty() || !delta->regressed.empty();
  }
  return unexpected > 0;
}

}  // namespace cvm
