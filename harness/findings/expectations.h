// Expected-failure lists (docs/expected-failures.md): what a known implementation is known to
// get wrong, each entry with its reason, so golden verify and the campaign report pass, expected
// failure, unexpected pass and failure apart and fail only on the unexpected.
//
//   # comment
//   SELECTOR  REASON...  [LINK]
//
// SELECTOR is OP/CASE (shell globs: `sum/invalid_axis_*`, `pad/*`, `*/example_int32_min_value`),
// rule:GLOB (the rule the case breaks: `rule:global.precision_*`) or sig:GLOB (the signature of
// the backend's difference, as findings name it: `sig:where|*|precision|*`). A campaign call's
// case name is `valid` or `invalid_<rule tag>`, as golden names its generated cases. Conditions
// on the call may follow the selector, each after '&', all of which must hold (NAME!=VALUE: the
// condition does not hold):
//   name=GLOB        the operator's name as called (an alias: `name=slice`)
//   rule=GLOB        the rule id a negative case or call breaks (`rule=global.value_range`)
//   attr.NAME=GLOB   the attribute's value (an absent attribute fails; `attr.end!=*`: absent)
//   inK.shape=GLOB   dims joined by 'x' (`2x3`; a scalar is empty)
//   inK.has=V        some element of input K equals V
//   NUMBER OP N      NUMBER is a term or a sum of terms (`attr.precision+attr.shift_bit`), OP one
//                    of = != < <= > >=, and with = or != N may be a range N..M. A term is an
//                    integer attribute attr.NAME or an input's ndim, prec, size, min, max (of its
//                    values), min_dim, max_dim, or colJ.min / colJ.max (the values at index J of
//                    the last axis). A term that does not exist (an absent attribute, the minimum
//                    of no values) makes the condition false, so its negation holds.
// e.g. `sig:cvm_right_shift|*|value|*&in0.has=2147483647`. LINK is the last word when it starts
// with http:// or https:// or names a file under docs/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cvm {

struct Call;

// One integer a numeric condition adds up: an attribute, or a property of one input.
struct NumericTerm {
  std::string attr;      // set for attr.NAME
  int input = -1;        // else input K's
  std::string property;  // ndim, prec, size, min, max, min_dim, max_dim, col.min or col.max
  int64_t column = 0;    // J of colJ.min / colJ.max
};

// One condition of an entry on the call (see above).
struct CallCondition {
  std::string text;      // as written: "attr.axis=()"
  std::string property;  // "name", "rule", "attr" or "shape", "has" (globs); else a numeric one's
                         // single input property ("ndim", "prec", ...) or "number"
  std::string name;      // the attribute's name
  int input = -1;        // the input's index
  std::string value;
  bool negated = false;  // written NAME!=VALUE
  std::string comparison = "=";    // = < <= > >= (!= is = negated)
  int64_t lo = 0, hi = 0;          // the value as integers: N..M for =, N otherwise (has: V)
  std::vector<NumericTerm> terms;  // a numeric condition's sum; empty for a glob
  bool holds(const Call& call) const;

 private:
  bool holds_plain(const Call& call) const;
  bool holds_numeric(const Call& call) const;
};

struct ExpectationEntry {
  std::string op_glob, case_glob, rule_glob;  // rule_glob set for rule: selectors only
  std::string sig_glob;                        // set for sig: selectors only
  std::vector<CallCondition> conditions;
  std::string reason, link;
  std::string source;  // "FILE:LINE"
  std::string selector() const;
};

// What a failure is matched on.
struct FailureFacts {
  std::string op, case_name;
  std::string rule;       // the rule the case breaks (may be empty)
  std::string signature;  // the backend's difference; empty: no sig: entry matches
  const Call* call = nullptr;  // without it, no entry with conditions matches
};

class ExpectedFailures {
 public:
  // LogicError naming FILE:LINE for a malformed line or an entry without a reason.
  static ExpectedFailures read(const std::string& path);
  void add(ExpectationEntry entry) { entries_.push_back(std::move(entry)); }

  // The first entry selecting the failure, or -1.
  int match(const FailureFacts& facts) const;
  const std::vector<ExpectationEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<ExpectationEntry> entries_;
};

// Per backend: "--xfail FILE" applies to every backend (key ""), "--xfail-for NAME=FILE" to one.
struct ExpectationSet {
  std::map<std::string, ExpectedFailures> by_backend;
  // The entry (and its list) selecting the case for `backend`; nullptr when none.
  const ExpectationEntry* match(const std::string& backend, const FailureFacts& facts) const;
  bool empty() const { return by_backend.empty(); }
};

// One condition as written after '&' (LogicError naming `source` when malformed).
CallCondition parse_condition(const std::string& text, const std::string& source);

// Reads the lists of --xfail FILE (every backend) and --xfail-for NAME=FILE options.
ExpectationSet read_expectations(const std::vector<std::string>& for_all,
                                 const std::vector<std::string>& for_one);

// The case name a campaign call has in expectation lists: "valid" or "invalid_<rule>".
std::string campaign_case_name(const std::string& rule);

// How often each entry matched, for the stale-entry report: an entry that matched nothing is
// stale (its gap is gone or its selector is wrong).
struct EntryUse {
  const ExpectationEntry* entry = nullptr;
  int64_t failures = 0, passes = 0;
};
// "stale: FILE:LINE SELECTOR (matched no case)" lines for `uses` entries of `set` never matched;
// for a campaign, only of the entries that can select a campaign call.
std::vector<std::string> stale_entries(const ExpectationSet& set,
                                       const std::map<const ExpectationEntry*, EntryUse>& uses,
                                       bool campaign = false);

// Whether an entry can select a campaign call at all: a sig: or rule: entry, or a case glob that
// matches "valid" or "invalid_..." (a golden case name such as example_* never does; a campaign
// does not report such entries stale).
bool selects_campaign_calls(const ExpectationEntry& e);

// A shell-style pattern (fnmatch: *, ?, [...]) matching the whole of `text`.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace cvm
