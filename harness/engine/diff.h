// The diff engine: runs one call on the reference (the oracle) and on every other backend that
// implements the operator, and compares outcome class, output count, shapes, precisions and
// bytes. A disagreement, or a reference outcome other than the call's expected class, is a
// finding (harness/findings/finding.h); its text is harness/engine/diff_report.h's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/compare.h"
#include "harness/engine/call.h"

namespace cvm {

struct BackendRun {
  std::string backend;
  bool skipped = false;
  std::string skip_reason;          // "unavailable: no CUDA device", "not implemented"
  Outcome outcome;
  std::optional<Difference> difference;  // vs the reference
  // Wall time of this backend's run (run_op_outcome) and of comparing its outcome with the
  // reference's, in seconds (0 when skipped); the campaign's profile sums them.
  double seconds = 0, compare_seconds = 0;
};

struct DiffResult {
  Outcome reference;
  std::vector<BackendRun> runs;     // the other backends, in the order asked
  // Set when the call carries an expected class and the reference gave another one.
  std::optional<std::string> expectation_failure;
  // Wall time of the reference's run in seconds (set by diff_call; diff_call_against leaves 0).
  double reference_seconds = 0;

  bool agree() const;               // no backend differs from the reference
  bool passed() const { return agree() && !expectation_failure; }
  // The first failing backend ("reference" for an expectation failure), or empty.
  std::string failing_backend() const;
};

// `backends`: names to compare with the reference; "reference" itself is ignored if listed.
// Unknown names are a RuntimeError; unavailable ones and ones not implementing the operator are
// recorded as skipped.
// `expect`, when set, is the class the reference must give in place of the call's own (the
// verdict's default for a generated valid call, without copying the call).
DiffResult diff_call(const Registry& registry, const Call& call,
                     const std::vector<std::string>& backends,
                     std::optional<OutcomeKind> expect = std::nullopt);
// As diff_call, with the reference's outcome already computed (by a caller that ran it under a
// bound first, as the fuzz targets do) or known (a case's stored expectation: then
// `run_reference` runs a listed "reference" backend against it too).
DiffResult diff_call_against(const Registry& registry, const Call& call, Outcome reference,
                             const std::vector<std::string>& backends,
                             bool run_reference = false,
                             std::optional<OutcomeKind> expect = std::nullopt);

// All backends of the registry except the reference.
std::vector<std::string> other_backends(const Registry& registry);

}  // namespace cvm
