// The one verdict on a call, shared by everything that judges calls: the campaign and its
// shrinker, the RapidCheck properties, the fuzz targets, golden verify and `cvmcheck run`
// (tests/one_verdict_test.cc holds them together). The reference (or a case's stored outcome)
// gives the call's expected class (ok for a valid call, logic_error for a call breaking one rule,
// either for a free-form fuzz call, never runtime_error), and every backend agrees with it
// exactly: class, rule id where the call breaks one known rule, outputs bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/case.h"
#include "harness/engine/diff.h"

namespace cvm {

struct CallVerdict {
  DiffResult diff;
  bool passed = false;
  std::string report;      // empty when passed (harness/engine/diff_report.h)
  std::string repro_dir;   // set when a repro was written (harness/findings/finding.h)
};

// How a call is judged (judge).
struct Judgement {
  std::vector<std::string> backends;  // compared with the reference
  // A call without an expected class: a generated valid call must succeed on the reference; a
  // free-form call (a fuzz input in explicit mode) may give either error class. A
  // runtime_error from the reference is a finding either way (a bug of ours).
  bool free_form = false;
  // The expected outcome when already known: a case's stored outcome (then a listed "reference"
  // backend runs against it too), or a reference run under the fuzz bound. Else the reference
  // runs.
  std::optional<Outcome> reference;
  bool reference_is_stored = false;
};

CallVerdict judge(const Registry& registry, const Call& call, Judgement how);

// Runs the case directory `dir` on `backend` and, when it has an expectation, judges it with
// `judge` against the stored outcome. CaseFileError when the directory is unusable. Inputs the
// tensor type rejects (a well-formed .npy over the limits) are a logic_error outcome of the case
// on every backend, without running it.
CaseResult judge_case(const Registry& registry, const std::string& dir, const std::string& backend);

// The call as judge_call judges it: a call without an expected class is expected to succeed on
// the reference (expect=ok in its descriptor, so that `cvmcheck run --call` judges it the same).
Call judged_call(const Call& call);

// Runs `call` through the diff engine against `backends`: a valid call (no `expected`) must give
// ok on the reference. A failing call's finding and repro are harness/findings/finding.h's.
CallVerdict judge_call(const Registry& registry, const Call& call,
                       const std::vector<std::string>& backends);

// True when every output of an ok outcome is all zeros (a sign of a vacuous generator).
bool all_outputs_zero(const Outcome& outcome);

}  // namespace cvm
