// A finding's life in one place: what makes failing calls "the same bug" (the signature), how a
// finding is described (its one-line call descriptor), and its repros (shrunk, bounded however
// often the bug repeats, de-duplicated, written as a case directory with its __REPRO lines).
// Everything that turns a failing call into a finding comes here: the campaign, the properties,
// `cvmcheck run` and `cvmcheck repro`, the store (by signature); the verdict that a call fails
// is judge's alone (harness/engine/verdict.h). docs/architecture.md, "A failing call's journey".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "harness/engine/verdict.h"
#include "harness/findings/shrink.h"

namespace cvm {

// One finding: every failing call with the same signature, which is what a developer would call
// "the same bug": operator, backend, what differs (value, shape, precision, dtype, output
// count, error class with both classes, or the reference breaking its expectation with the
// rule) and which output, never the index where it showed.
struct Finding {
  std::string op, backend, rule, summary, repro_dir;  // of the first call; repro_dir may be empty
  uint64_t case_seed = 0;                             // the first call's
  std::string key;                                    // the signature
  int64_t calls = 0;                                  // failing calls with this signature
  std::vector<std::string> repro_dirs;                // every repro written for it
  int64_t original_elements = 0, shrunk_elements = 0;  // the first repro's inputs, drawn/saved
  std::string expected_by;  // an expected failure: the entry's "FILE:LINE: reason"
  uint64_t first_index = 0;  // the first failing call's index in the campaign
  // The one-line call descriptor (harness/engine/call_descriptor.h) of the repro's saved (shrunk)
  // call on `backend`, or of the first failing call when no repro was written; empty when the
  // call has none short enough for one line, and then `descriptor_note` says why.
  std::string descriptor, descriptor_note;
  // Repros not written because the shrunk call was one this finding had saved already (the same
  // descriptor: the same call); only with repros_per_signature above 1.
  int64_t duplicate_repros = 0;
};

// --- Identity -----------------------------------------------------------------------------------

// The signature of a failing call: operator, backend, what differs (value, shape, precision,
// dtype, output count, error class with both classes, rule id with both ids, or the reference
// breaking the call's rule) and which output; never the index.
std::string finding_signature(const std::string& op, const CallVerdict& verdict,
                              const std::string& rule);
// The signature of one backend's difference from the reference (finding_signature gives the first
// failing backend's): "op|backend|kind", "|ref->actual" classes or rule ids, "|output N".
std::string difference_signature(const std::string& op, const std::string& backend,
                                 const Difference& d, const Outcome& reference,
                                 const Outcome& actual);

// The exact descriptor of a call (of any length), identifying it; empty for a call that has
// none (attributes that are not valid UTF-8).
std::string exact_descriptor(const Call& call, const std::string& backend);
// Sets the finding's one-line descriptor of `call` as judged (or the note saying why it has none).
void describe_finding(Finding& finding, const Call& call, const std::string& backend);

// --- Repro folders and lines --------------------------------------------------------------------

// Writes `call` as a case directory whose expectation is the reference's outcome, naming the
// call's rule_id as the expected rule of a logic_error (none when the call declares none).
// `note` is appended to the case's note, which describes the call.
void write_repro(const Call& call, const Outcome& reference, const std::string& dir,
                 const std::string& note = "");
// Writes the failing `call` of `verdict` as a case directory `dir` (replacing it) and appends the
// __REPRO lines to its report: the directory's, then the call descriptor's (repro_call_line).
void save_repro(const Call& call, const std::string& dir, CallVerdict& verdict,
                const std::string& note = "");
// "__REPRO: cvmcheck run DIR --backend NAME"
std::string repro_line(const std::string& dir, const std::string& backend);
// The same call without its directory: "__REPRO: cvmcheck run --call 'DESCRIPTOR'" (plus
// --backend-def for a backend defined by one), or, where the call has no descriptor short enough
// for one line (harness/engine/call_descriptor.h), a comment "# no __REPRO --call line: WHY".
std::string repro_call_line(const Call& call, const std::string& backend);
// The bytes of the regular files under `dir` (0 when it does not exist).
int64_t directory_bytes(const std::string& dir);

// --- A run's repros -----------------------------------------------------------------------------

// How many repros a run writes, however often a bug repeats: `per_signature` per finding, no new
// one once `max_bytes` have been written, and beyond each finding's first repro at most
// `max_repros` directories in all (0: none at all; an empty root: none either).
struct ReproBounds {
  std::string root;
  int max_repros = 20;
  int per_signature = 1;
  int64_t max_bytes = 16 << 20;
  double shrink_seconds = 2;  // to shrink a finding before its repro is saved (0: as drawn)
};

// What a run's repros cost so far.
struct ReproTally {
  int64_t written = 0, bytes = 0;
  double shrink_seconds = 0;
};

// A failing call to save as a repro of its finding: the call, its verdict, its signature, its
// case seed (the folder's name) and how to shrink it.
struct FailingCall {
  const Call& call;
  CallVerdict verdict;
  const std::string& signature;
  uint64_t seed = 0;
  // The call's shrink tree (the generator's, from its seed), drawn only when shrinking runs.
  std::function<rc::Shrinkable<Call>()> shrink_tree;
  const std::vector<std::string>& backends;  // judged on
  ShrinkKeeps keeps;                         // a shrink is taken only where this holds too
};

// The repros of one run's findings: shrinks each failing call before it is saved, within the
// bounds, and writes a call a finding already holds (the same exact descriptor) once.
class ReproWriter {
 public:
  ReproWriter(const Registry& registry, ReproBounds bounds)
      : registry_(registry), bounds_(std::move(bounds)) {}
  // Saves `failing` as a repro of `finding` while the bounds leave room; the first repro also
  // sets the finding's description (descriptor, summary, sizes) from the saved call.
  void save(Finding& finding, FailingCall failing);
  const ReproTally& tally() const { return tally_; }

 private:
  bool room_for(const Finding& finding) const;

  const Registry& registry_;
  const ReproBounds bounds_;
  ReproTally tally_;
  // Per signature, the exact descriptors of the calls its repros hold.
  std::map<std::string, std::set<std::string>> saved_calls_;
};

}  // namespace cvm
