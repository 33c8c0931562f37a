// A golden verify as the findings store (harness/findings/findings_store.h) keeps it: one run of
// kind "golden" naming the suite, and one finding per signature of its failing cases, keyed as
// the campaign keys the same difference (difference_signature).
#pragma once

#include <string>
#include <vector>

#include "harness/findings/findings_store.h"
#include "harness/golden/golden.h"

namespace cvm {

// `facts` (commit, version, CPU features, start time) completed: kind "golden", seed 0, the
// suite directory as its source, calls = cases judged on every backend, and the backends and
// operators that judged at least one case (only those can fix a finding; a case skipped or
// corrupt judges nothing). results[k] is backends[k]'s.
StoreRun golden_store_run(const std::string& dir, const std::vector<std::string>& backends,
                          const std::vector<GoldenVerifyResult>& results, StoreRun facts);

// One entry per signature of the failing cases (fail, and xfail as expected when all of its cases
// are listed), with the first unexplained case's directory as its repro and its descriptor.
// Failing cases without a signature (no stored outcome to differ from) have no entry.
std::vector<StoreFinding> golden_store_findings(const std::vector<std::string>& backends,
                                                const std::vector<GoldenVerifyResult>& results);

}  // namespace cvm
