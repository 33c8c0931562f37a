// golden verify --jobs N: N forked jobs (harness/jobs/forked_jobs.h) each verify every N-th case of
// the manifest (case k goes to job k % N) on every selected backend; their rows merge back in
// manifest order, their expected-failure uses are summed and the stale entries computed over all
// of them, so the tables, rows and exit status are those of one process for any N.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/golden/golden.h"

namespace cvm {

// One job's result as JSON and back; expectation uses name their entry by its list and index
// in `expected` (the same set in every job).
nlohmann::json golden_result_json(const GoldenVerifyResult& result,
                                  const ExpectationSet& expected);
GoldenVerifyResult golden_result_from_json(const nlohmann::json& json,
                                           const ExpectationSet& expected);

// Merges the parts of one backend's verification, part k holding the cases k, k+N, k+2N, ...
// of the manifest (N = parts.size()).
GoldenVerifyResult merge_golden_jobs(const std::vector<GoldenVerifyResult>& parts,
                                     const ExpectationSet& expected);

// Verifies `dir` on each of `backends` as `jobs` processes; one merged result per backend, in
// order. `in_child(k)` runs first in job k (each job starts its own external workers and sets
// its thread count there). A job that fails or crashes is an error naming it.
std::vector<GoldenVerifyResult> verify_golden_jobs(const Registry& registry,
                                                   const std::string& dir,
                                                   const std::vector<std::string>& backends,
                                                   const ExpectationSet& expected, int jobs,
                                                   const std::function<void(int)>& in_child);

}  // namespace cvm
