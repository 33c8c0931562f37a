// Running a RapidCheck property with explicit parameters (case budget, seed) and getting the
// verdict as data, so tests, the planted-bug proof and the campaign share one entry point.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <string>

namespace cvm {

struct PropertyParams {
  int cases = 100;          // successful cases required
  uint64_t seed = 0;        // 0: RapidCheck's configured seed (RC_PARAMS), else this seed
  int max_size = 100;
  bool shrink = true;
};

struct PropertyVerdict {
  bool passed = false;
  bool gave_up = false;     // too many discarded cases: a vacuous property, counted as failure
  int successes = 0;
  std::string message;      // RapidCheck's report (counterexample, distribution)
};

PropertyVerdict check_property(const std::string& name, const std::function<void()>& body,
                               const PropertyParams& params);

// The case budget for tests: CVMCHECK_PROP_CASES if set, else `fallback`.
int property_cases(int fallback);

}  // namespace cvm
