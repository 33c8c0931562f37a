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
  std::string report;      // empty when passed
  std::string repro_dir;   // set when a repro was written
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

// Runs `call` through the diff engine against `backends`. A valid call (no `expected`) must give
// ok on the reference. When it fails and `repro_root` is non-empty, the call is written as a
// case directory under repro_root/<name> and the report ends with the __REPRO line.
CallVerdict judge_call(const Registry& registry, const Call& call,
                       const std::vector<std::string>& backends, const std::string& repro_root,
                       const std::string& name);

// The signature of a failing call: what a developer would call "the same bug": operator,
// backend, what differs (value, shape, precision, dtype, output count, error class with both
// classes, rule id with both ids, or the reference breaking the call's rule) and which output;
// never the index.
std::string finding_signature(const std::string& op, const CallVerdict& verdict,
                              const std::string& rule);
// The signature of one backend's difference from the reference (finding_signature gives the first
// failing backend's): "op|backend|kind", "|ref->actual" classes or rule ids, "|output N".
std::string difference_signature(const std::string& op, const std::string& backend,
                                 const Difference& d, const Outcome& reference,
                                 const Outcome& actual);

// Writes the failing `call` of `verdict` as a case directory `dir` (replacing it) and appends the
// __REPRO lines to its report: the directory's, then the call descriptor's (repro_call_line).
// `note` is added to the case's note (which holds the call's description).
void save_repro(const Call& call, const std::string& dir, CallVerdict& verdict,
                const std::string& note = "");

// The bytes of the regular files under `dir` (0 when it does not exist).
int64_t directory_bytes(const std::string& dir);

// True when every output of an ok outcome is all zeros (a sign of a vacuous generator).
bool all_outputs_zero(const Outcome& outcome);

}  // namespace cvm
