// Planted-bug backends: copies of the reference with one small, realistic bug each. They prove
// that the harness can fail (properties, campaign, fuzz smoke runs and mutation scores are all
// checked against them). They are registered in the global registry only when the environment
// variable CVMCHECK_PLANTED is set ("all" or a comma-separated list of names), so that
// `cvmcheck run --backend planted-...` can replay their repros; never in normal runs.
#pragma once

#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm {

struct PlantedBug {
  std::string backend;      // "planted-..."
  std::string op;           // the operator whose kernel is wrong
  std::string description;
  bool invalid_calls;       // the bug shows on calls breaking a rule (error class), not on valid ones
};

const std::vector<PlantedBug>& planted_bugs();

// The reference backend with `bug`'s kernel replaced. Only the buggy operator is implemented,
// so other operators are "not implemented" (skipped) on it.
Backend make_planted_backend(const Backend& reference, const PlantedBug& bug);

// Adds the planted backends named by CVMCHECK_PLANTED (if set) to `registry`.
void add_planted_from_env(Registry& registry);

// The planted fault of the path verdict: the path id named by CVMCHECK_PLANTED_UNREACHED_PATH
// (empty when unset), whose calls a campaign does not count, as if the generators had stopped
// drawing the calls that take it; a run of the default scope must then fail on it
// (tests/main_job_verdict_test.cc). Never set in normal runs.
const std::string& planted_unreached_path();

}  // namespace cvm
