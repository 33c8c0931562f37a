#include "harness/findings/expectations.h"

#include <fnmatch.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "cvmcheck/errors.h"

namespace cvm {

bool glob_match(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

namespace {

bool is_link(const std::string& word) {
  return word.rfind("http://", 0) == 0 || word.rfind("https://", 0) == 0 ||
         word.rfind("docs/", 0) == 0;
}

}  // namespace

std::string ExpectationEntry::selector() const {
  std::string text = !sig_glob.empty()    ? "sig:" + sig_glob
                     : !rule_glob.empty() ? "rule:" + rule_glob
                                          : op_glob + "/" + case_glob;
  for (const CallCondition& c : conditions) text += "&" + c.text;
  return text;
}

namespace {

// A finding's signature names an output as "output N", with a space ("max|b|value|output 0"): a
// sig: selector that ends in "output" takes the next word when it starts with a digit (with the
// conditions after it), where the space would otherwise end the selector and make the rest the
// reason: an entry that silently selects nothing.
void join_output_number(std::string& selector, std::istringstream& words) {
  const std::string tail = "output";
  if (selector.rfind("sig:", 0) != 0 || selector.size() < tail.size() ||
      selector.compare(selector.size() - tail.size(), tail.size(), tail) != 0) {
    return;
  }
  const std::streampos at = words.tellg();
  std::string next;
  if (words >> next && std::isdigit(static_cast<unsigned char>(next[0])) != 0) {
    selector += " " + next;
    return;
  }
  words.clear();
  words.seekg(at);
}

}  // namespace

ExpectedFailures ExpectedFailures::read(const std::string& path) {
  std::ifstream in(path);
  verify(in.good(), "cannot read the expected-failure list ", path);
  ExpectedFailures list;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::istringstream words(line);
    std::string selector;
    if (!(words >> selector)) continue;
    join_output_number(selector, words);
    ExpectationEntry e;
    e.source = path + ":" + std::to_string(number);
    for (size_t amp = selector.rfind('&'); amp != std::string::npos; amp = selector.rfind('&')) {
      e.conditions.insert(e.conditions.begin(), parse_condition(selector.substr(amp + 1), e.source));
      selector.resize(amp);
    }
    if (selector.rfind("sig:", 0) == 0) {
      e.sig_glob = selector.substr(4);
      e.op_glob = e.case_glob = "*";
      verify(!e.sig_glob.empty(), e.source, ": empty signature selector");
    } else if (selector.rfind("rule:", 0) == 0) {
      e.rule_glob = selector.substr(5);
      e.op_glob = e.case_glob = "*";
      verify(!e.rule_glob.empty(), e.source, ": empty rule selector");
    } else {
      const size_t slash = selector.find('/');
      verify(slash != std::string::npos && slash > 0 && slash + 1 < selector.size(), e.source,
             ": selector '", selector, "' is neither OP/CASE, rule:GLOB nor sig:GLOB");
      e.op_glob = selector.substr(0, slash);
      e.case_glob = selector.substr(slash + 1);
    }
    std::vector<std::string> rest;
    for (std::string w; words >> w;) rest.push_back(w);
    if (!rest.empty() && is_link(rest.back())) {
      e.link = rest.back();
      rest.pop_back();
    }
    for (const std::string& w : rest) e.reason += (e.reason.empty() ? "" : " ") + w;
    verify(!e.reason.empty(), e.source, ": entry '", selector, "' has no reason");
    list.add(std::move(e));
  }
  return list;
}

int ExpectedFailures::match(const FailureFacts& facts) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    const ExpectationEntry& e = entries_[i];
    bool selected = false;
    if (!e.sig_glob.empty()) {
      selected = !facts.signature.empty() && glob_match(e.sig_glob, facts.signature);
    } else if (!e.rule_glob.empty()) {
      selected = !facts.rule.empty() && glob_match(e.rule_glob, facts.rule);
    } else {
      selected = glob_match(e.op_glob, facts.op) && glob_match(e.case_glob, facts.case_name);
    }
    for (const CallCondition& c : e.conditions) {
      // The rule a negative case breaks and the case's name are facts of the failure, known
      // without the call (a graph-level difference has none).
      const bool holds = c.property == "rule"   ? glob_match(c.value, facts.rule) != c.negated
                         : c.property == "case" ? glob_match(c.value, facts.case_name) != c.negated
                                                : facts.call != nullptr && c.holds(*facts.call);
      selected = selected && holds;
    }
    if (selected) return static_cast<int>(i);
  }
  return -1;
}

const ExpectationEntry* ExpectationSet::match(const std::string& backend,
                                              const FailureFacts& facts) const {
  for (const std::string& key : {backend, std::string()}) {
    const auto it = by_backend.find(key);
    if (it == by_backend.end()) continue;
    const int i = it->second.match(facts);
    if (i >= 0) return &it->second.entries()[static_cast<size_t>(i)];
  }
  return nullptr;
}

ExpectationSet read_expectations(const std::vector<std::string>& for_all,
                                 const std::vector<std::string>& for_one) {
  ExpectationSet set;
  const auto append = [&](const std::string& backend, const std::string& path) {
    const ExpectedFailures list = ExpectedFailures::read(path);
    for (const ExpectationEntry& e : list.entries()) set.by_backend[backend].add(e);
  };
  for (const std::string& path : for_all) append("", path);
  for (const std::string& spec : for_one) {
    const size_t eq = spec.find('=');
    verify(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), "--xfail-for '", spec,
           "': expected BACKEND=FILE");
    append(spec.substr(0, eq), spec.substr(eq + 1));
  }
  return set;
}

std::string campaign_case_name(const std::string& rule) {
  return rule.empty() ? "valid" : "invalid_" + rule;
}

bool selects_campaign_calls(const ExpectationEntry& e) {
  if (!e.sig_glob.empty() || !e.rule_glob.empty()) return true;
  return glob_match(e.case_glob, "valid") || glob_match(e.case_glob, "invalid_x") ||
         e.case_glob.rfind("invalid_", 0) == 0;
}

std::vector<std::string> stale_entries(const ExpectationSet& set,
                                       const std::map<const ExpectationEntry*, EntryUse>& uses,
                                       bool campaign) {
  std::vector<std::string> lines;
  for (const auto& [backend, list] : set.by_backend) {
    for (const ExpectationEntry& e : list.entries()) {
      if (campaign && !selects_campaign_calls(e)) continue;
      const auto it = uses.find(&e);
      if (it == uses.end() || (it->second.failures == 0 && it->second.passes == 0)) {
        lines.push_back("stale: " + e.source + " " + e.selector() + " (matched no case" +
                        (backend.empty() ? "" : " of " + backend) + ")");
      }
    }
  }
  return lines;
}

}  // namespace cvm
