// The text of a diff (harness/engine/diff.h), apart from the engine: what a developer reads of a
// failing call in a finding's summary, a property's failure and `cvmcheck repro`.
#pragma once

#include <string>

#include "harness/engine/diff.h"

namespace cvm {

// A precise multi-line account: call, its one-line descriptor for the failing backend
// (harness/engine/call_descriptor.h; or why it has none), each differing backend, first differing
// index with both values and the input values at that index where an input has the output's
// shape.
std::string diff_report(const DiffResult& diff, const Call& call);

}  // namespace cvm
