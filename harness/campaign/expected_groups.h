// Known differences grouped by the rule id their entries name (docs/expected-failures.md): a
// night against an implementation with many known differences shows one line per id, not one
// per finding (a green night on one screen); the findings themselves stay in campaign.json.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"

namespace cvm {

// Where an expected finding's entry is and what it says: a finding's `expected_by` is
// "FILE:LINE: REASON", and lists name the rule in brackets first ("[int8-precision] ...").
struct ExpectedEntryRef {
  std::string source;   // "FILE:LINE"
  std::string list;     // "FILE"
  std::string rule_id;  // "int8-precision"; empty when the reason names none
  std::string reason;   // the reason as written, the id included
};
ExpectedEntryRef parse_expected_by(const std::string& expected_by);

struct ExpectedRuleGroup {
  std::string rule_id;  // empty: an entry without an id, which is a group of its own
  std::string entry;    // that entry's "FILE:LINE" (set for an id too: the first entry seen)
  std::string reason;   // the first entry's reason
  std::set<std::string> lists;  // the list files its entries come from
  int64_t calls = 0, findings = 0;
  std::vector<std::string> signatures;
  // "[int8-precision]", or the entry's "FILE:LINE" when it names no id.
  std::string label() const { return rule_id.empty() ? entry : "[" + rule_id + "]"; }
};

// The expected findings of `findings` by rule id, the most calls first (ties by label).
std::vector<ExpectedRuleGroup> group_expected_by_rule(const std::vector<Finding>& findings);

// One line per group: "expected [ID]: N calls, F findings (LIST, ...)".
std::string expected_group_lines(const std::vector<ExpectedRuleGroup>& groups);

}  // namespace cvm
