// Golden fixtures: a fixed, versioned, self-describing conformance suite of case directories
// (golden/<op>/<case>/), with a MANIFEST.json listing every case and the sha256 of every file
// (docs/golden-format.md). Generation is deterministic: fixed seeds, no timestamps, so a rerun
// (with any compiler) is byte-identical.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/findings/expectations.h"

namespace cvm {

inline constexpr const char* kGoldenFormat = "cvmcheck-golden";
inline constexpr int kGoldenFormatVersion = 1;
// The contract the fixtures encode (docs/contract.md).
inline constexpr const char* kContractVersion = "cvm-contract-1.0";

// A case whose input files together exceed this is left out (and listed in the manifest's
// "omitted"): the suite must stay small enough to live in git.
inline constexpr int64_t kGoldenMaxCaseInputBytes = 128 * 1024;

struct GoldenOptions {
  std::string out = "golden";
  int random_per_op = 6;        // valid generated calls per operator
  int per_rule = 1;             // generated calls per validity rule
  uint64_t seed = 20261123;     // fixed: changing it changes every generated case
};

struct GoldenSummary {
  int64_t cases = 0, files = 0, bytes = 0, omitted = 0;
  std::map<std::string, int64_t> cases_per_op;
};

// Writes the suite into options.out (which must not exist or be empty). RuntimeError when a
// hand-written example disagrees with the reference or a generated call does not give its
// expected class on the reference (a bug of ours, never written into fixtures).
GoldenSummary generate_golden(const Registry& registry, const GoldenOptions& options);

struct GoldenCaseResult {
  std::string op, name, status;  // status: pass, fail, xfail, xpass, skipped, corrupt
  std::string detail;
  std::string expectation;       // xfail/xpass: the entry's source and reason
  // fail/xfail: the difference's signature (difference_signature, as the campaign keys the same
  // difference; empty for a case without a stored outcome), the case directory (its repro) and
  // the call's one-line descriptor (empty when too long or its inputs are no tensors).
  std::string signature, case_dir, descriptor;
};

struct GoldenVerifyResult {
  std::vector<GoldenCaseResult> cases;
  std::map<std::string, std::map<std::string, int64_t>> per_op;  // op -> status -> count
  std::vector<std::string> stale;  // expected-failure entries that matched no case
  bool precision_compared = true;  // false for a backend reporting no output precision
  // How often each expected-failure entry matched (what `stale` is computed from; the jobs of
  // golden verify --jobs merge these before computing it over all of them).
  std::map<const ExpectationEntry*, EntryUse> uses;
  // No fail and no corrupt. An xpass (a listed case that passes) is reported, not failed: an
  // implementation that reads uninitialised memory can agree by chance.
  bool ok() const;
};

// Which of the manifest's cases one call verifies: case k (in manifest order) when
// k % job_count == job_index (golden verify --jobs, harness/golden/golden_jobs.h).
struct GoldenVerifyPart {
  int job_index = 0;
  int job_count = 1;
};

// Replays every case of the manifest in `dir` on `backend` (those of `part`); checks every
// file's sha256 first.
GoldenVerifyResult verify_golden(const Registry& registry, const std::string& dir,
                                 const std::string& backend,
                                 const ExpectationSet& expected = {},
                                 const GoldenVerifyPart& part = {});

std::string golden_table(const GoldenVerifyResult& result, const std::string& backend);


}  // namespace cvm
