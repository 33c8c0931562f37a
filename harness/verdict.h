// The checks one generated call must pass, shared by the RapidCheck properties, the campaign and
// the fuzz targets: the reference gives the call's expected class (ok for a valid call,
// logic_error for a call breaking one rule), and every other backend agrees with it exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/diff.h"

namespace cvm {

struct CallVerdict {
  DiffResult diff;
  bool passed = false;
  std::string report;      // empty when passed
  std::string repro_dir;   // set when a repro was written
};

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
