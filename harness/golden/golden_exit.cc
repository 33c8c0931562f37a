// golden verify's exit status (golden_exit.h).
#include "harness/golden/golden_exit.h"

namespace cvm {

int golden_exit_status(const std::vector<GoldenVerifyResult>& results,
                       const std::optional<StoreDelta>& delta, const std::string& fail_on,
                       bool stopped) {
  int64_t fails = 0, xfails = 0;
  bool broken = false;
  for (const GoldenVerifyResult& result : results) {
    for (const GoldenCaseResult& c : result.cases) {
      fails += c.status == "fail";
      xfails += c.status == "xfail";
      broken = broken || c.status == "corrupt" || (c.status == "fail" && c.signature.empty());
    }
  }
  if (broken || findings_fail(fails, xfails, delta, fail_on)) return kRunFailed;
  return stopped ? kRunInterrupted : kRunPassed;
}

}  // namespace cvm
