#include "harness/campaign/expected_groups.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace cvm {
namespace {

// An id is what a list writes between the brackets: letters, digits, '-', '_', '.'.
bool is_id(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
}

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

ExpectedEntryRef parse_expected_by(const std::string& expected_by) {
  ExpectedEntryRef ref;
  const size_t sep = expected_by.find(": ");
  ref.source = expected_by.substr(0, sep);
  ref.reason = sep == std::string::npos ? "" : expected_by.substr(sep + 2);
  const size_t colon = ref.source.rfind(':');
  ref.list = colon == std::string::npos ? ref.source : ref.source.substr(0, colon);
  const size_t start = ref.reason.find_first_not_of(' ');
  if (start != std::string::npos && ref.reason[start] == '[') {
    const size_t close = ref.reason.find(']', start);
    const std::string id =
        close == std::string::npos ? "" : ref.reason.substr(start + 1, close - start - 1);
    if (is_id(id)) ref.rule_id = id;
  }
  return ref;
}

std::vector<ExpectedRuleGroup> group_expected_by_rule(const std::vector<Finding>& findings) {
  std::map<std::string, ExpectedRuleGroup> by_key;
  for (const Finding& f : findings) {
    if (f.expected_by.empty()) continue;
    const ExpectedEntryRef ref = parse_expected_by(f.expected_by);
    // An entry without an id is its own group: two unnamed entries are two differences.
    const std::string key = ref.rule_id.empty() ? "\n" + ref.source : ref.rule_id;
    ExpectedRuleGroup& g = by_key[key];
    if (g.entry.empty()) {
      g.rule_id = ref.rule_id;
      g.entry = ref.source;
      g.reason = ref.reason;
    }
    g.lists.insert(ref.list);
    g.calls += f.calls;
    g.findings += 1;
    g.signatures.push_back(f.key);
  }
  std::vector<ExpectedRuleGroup> groups;
  for (auto& [key, g] : by_key) groups.push_back(std::move(g));
  std::stable_sort(groups.begin(), groups.end(),
                   [](const ExpectedRuleGroup& a, const ExpectedRuleGroup& b) {
                     if (a.calls != b.calls) return a.calls > b.calls;
                     return a.label() < b.label();
                   });
  return groups;
}

std::string expected_group_lines(const std::vector<ExpectedRuleGroup>& groups) {
  std::ostringstream out;
  for (const ExpectedRuleGroup& g : groups) {
    out << "expected " << g.label() << ": " << plural(g.calls, "call") << ", "
        << plural(g.findings, "finding");
    if (!g.rule_id.empty()) {
      std::string lists;
      for (const std::string& list : g.lists) lists += (lists.empty() ? "" : ", ") + list;
      out << " (" << lists << ")";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace cvm
