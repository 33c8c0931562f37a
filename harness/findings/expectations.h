// Expected-failure lists (docs/expected-failures.md): what a known implementation is known to
// get wrong, each entry with its reason, so golden verify and the campaign report pass, expected
// failure, unexpected pass and failure apart and fail only on the unexpected.
//
//   # comment
//   SELECTOR  REASON...  [LINK]
//
// SELECTOR is OP/CASE (shell globs: `sum/invalid_axis_*`, `pad/*`, `*/example_int32_min_value`)
// or rule:GLOB (the rule the case breaks: `rule:global.precision_*`). A campaign call's case
// name is `valid` or `invalid_<rule tag>`, as golden names its generated cases. LINK is the last
// word when it starts with http:// or https:// or names a file under docs/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cvm {

struct ExpectationEntry {
  std::string op_glob, case_glob, rule_glob;  // rule_glob set for rule: selectors only
  std::string reason, link;
  std::string source;  // "FILE:LINE"
  std::string selector() const;
};

class ExpectedFailures {
 public:
  // LogicError naming FILE:LINE for a malformed line or an entry without a reason.
  static ExpectedFailures read(const std::string& path);
  void add(ExpectationEntry entry) { entries_.push_back(std::move(entry)); }

  // The first entry selecting the case, or -1. `rule` is the rule the case breaks (may be empty).
  int match(const std::string& op, const std::string& case_name, const std::string& rule) const;
  const std::vector<ExpectationEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<ExpectationEntry> entries_;
};

// Per backend: "--xfail FILE" applies to every backend (key ""), "--xfail-for NAME=FILE" to one.
struct ExpectationSet {
  std::map<std::string, ExpectedFailures> by_backend;
  // The entry (and its list) selecting the case for `backend`; nullptr when none.
  const ExpectationEntry* match(const std::string& backend, const std::string& op,
                                const std::string& case_name, const std::string& rule) const;
  bool empty() const { return by_backend.empty(); }
};

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
// "stale: FILE:LINE SELECTOR (matched no case)" lines for `uses` entries of `set` never matched.
std::vector<std::string> stale_entries(const ExpectationSet& set,
                                       const std::map<const ExpectationEntry*, EntryUse>& uses);

}  // namespace cvm
