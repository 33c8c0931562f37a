// A night against an implementation with many known differences (harness/campaign/expected_groups.h,
// campaign_report.h): the screen summary counts expected failures by the rule id of their entries,
// one line per id, folds the operators with nothing unexpected, and stays on one screen; --table
// full and campaign.json keep every finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_report.h"
#include "harness/campaign/expected_groups.h"

namespace cvm {
namespace {

int64_t lines_of(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

int64_t lines_starting(const std::string& text, const std::string& prefix) {
  int64_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

const char* const kList = "adapters/cvm-runtime/known-differences.txt";

// A green night's result: 39 operators, the reference and one implementation, `findings`
// expected findings spread over `ids` rule ids (entry k of the list names id k % ids).
CampaignResult green_night(int findings, int ids) {
  CampaignResult r;
  r.seed = 23;
  r.seconds = 600;
  r.calls = 213826;
  r.backends = {"reference", "cvm-runtime-formal"};
  for (int op = 0; op < 39; ++op) {
    const std::string name = "op" + std::to_string(100 + op);
    for (const std::string& b : r.backends) r.table[name][b] = {5000, 5000, 0, 0, 0, 0, 0};
  }
  for (int k = 0; k < findings; ++k) {
    Finding f;
    f.op = "op" + std::to_string(100 + k % 39);
    f.backend = "cvm-runtime-formal";
    f.key = f.op + "|cvm-runtime-formal|class|ok->runtime_error|" + std::to_string(k);
    f.calls = 400 + k;
    f.expected_by = std::string(kList) + ":" + std::to_string(10 + k) + ": [rule-id-number-" +
                    std::to_string(k % ids) + "] a known difference, with its reason";
    CampaignCell& cell = r.table[f.op][f.backend];
    cell.mismatches += f.calls;
    cell.expected += f.calls;
    cell.ok -= f.calls;
    r.expected_failures += f.calls;
    r.findings.push_back(f);
  }
  return r;
}

TEST(ExpectedGroups, TheEntrysListAndRuleIdAreReadFromItsReference) {
  const ExpectedEntryRef ref = parse_expected_by("lists/known.txt:12: [int8-precision] int8 with p > 8");
  EXPECT_EQ(ref.source, "lists/known.txt:12");
  EXPECT_EQ(ref.list, "lists/known.txt");
  EXPECT_EQ(ref.rule_id, "int8-precision");
  EXPECT_EQ(ref.reason, "[int8-precision] int8 with p > 8");
  EXPECT_EQ(parse_expected_by("known.txt:3: no id here [x]").rule_id, "");
  EXPECT_EQ(parse_expected_by("known.txt:3: [not an id] words").rule_id, "");
  EXPECT_EQ(parse_expected_by("garbage").source, "garbage");
}

TEST(ExpectedGroups, ManyExpectedFindingsOverFewIdsPrintOneLinePerIdOnOneScreen) {
  const CampaignResult night = green_night(77, 5);
  const std::string screen = campaign_table(night);
  EXPECT_LT(lines_of(screen), 40) << screen;
  EXPECT_EQ(lines_starting(screen, "expected ["), 5) << screen;
  for (int id = 0; id < 5; ++id) {
    const std::string label = "expected [rule-id-number-" + std::to_string(id) + "]: ";
    EXPECT_EQ(lines_starting(screen, label), 1) << screen;
  }
  // Each line: the id's calls, its findings and its list.
  const std::vector<ExpectedRuleGroup> groups = group_expected_by_rule(night.findings);
  ASSERT_EQ(groups.size(), 5u);
  int64_t calls = 0, findings = 0;
  for (const ExpectedRuleGroup& g : groups) {
    EXPECT_NE(screen.find("expected " + g.label() + ": " + std::to_string(g.calls) + " calls, " +
                          std::to_string(g.findings) + " findings (" + kList + ")"),
              std::string::npos)
        << screen;
    calls += g.calls;
    findings += g.findings;
  }
  EXPECT_EQ(calls, night.expected_failures);
  EXPECT_EQ(findings, 77);
  EXPECT_GE(groups.front().calls, groups.back().calls) << "the most calls first";
  EXPECT_EQ(lines_starting(screen, "expected failure "), 0) << screen;
  EXPECT_NE(screen.find("39 operators with nothing unexpected (39 with known differences"),
            std::string::npos)
      << screen;
}

// The original runtime's list names 23 rule ids. Besides the table, a night prints the seed
// line, at most 7 progress lines (a sixth of the time box apart), the external backend's line,
// the report's paths and the store's line: 11, so the table may take 29 of the 40.
TEST(ExpectedGroups, ANightWithEveryRuleIdOfTheOriginalsListFitsFortyLines) {
  const std::string screen = campaign_table(green_night(77, 23));
  EXPECT_LE(lines_of(screen), 40 - 11) << screen;
  EXPECT_EQ(lines_starting(screen, "expected ["), 23) << screen;
}

TEST(ExpectedGroups, TheFullTableAndTheJsonKeepEveryFinding) {
  const CampaignResult night = green_night(77, 5);
  const std::string full = campaign_table(night, TableStyle::kFull);
  EXPECT_EQ(lines_starting(full, "expected failure "), 77);
  EXPECT_EQ(lines_starting(full, "expected ["), 0);
  const std::string json = campaign_json(night);
  EXPECT_NE(json.find("[rule-id-number-4] a known difference"), std::string::npos);
  EXPECT_NE(json.find("|76\""), std::string::npos) << "the 77th finding's signature";
}

TEST(ExpectedGroups, AnOperatorWithSomethingUnexpectedKeepsItsRow) {
  CampaignResult night = green_night(10, 2);
  Finding bug;
  bug.op = "op120";
  bug.backend = "cvm-runtime-formal";
  bug.key = "op120|cvm-runtime-formal|value|output 0";
  bug.calls = 3;
  night.findings.push_back(bug);
  night.table["op120"]["cvm-runtime-formal"].mismatches += 3;
  night.mismatches = 3;
  // No call of op130 at all (cut short); op131 skipped by the implementation, which is not news.
  night.table["op130"]["reference"] = {};
  night.table["op130"]["cvm-runtime-formal"] = {};
  night.table["op131"]["cvm-runtime-formal"] = {0, 0, 0, 0, 0, 5000, 0};
  const std::string screen = campaign_table(night);
  EXPECT_EQ(lines_starting(screen, "op120 "), 1) << screen;
  EXPECT_EQ(lines_starting(screen, "op130 "), 1) << screen;
  EXPECT_EQ(lines_starting(screen, "op101 "), 0) << screen;
  EXPECT_EQ(lines_starting(screen, "op131 "), 0) << screen;
  EXPECT_EQ(lines_starting(screen, "finding " + bug.key), 1) << screen;
  EXPECT_NE(screen.find("37 more operators with nothing unexpected"), std::string::npos)
      << screen;
}

TEST(ExpectedGroups, AnEntryWithoutAnIdIsItsOwnLineAndStaleEntriesOneLinePerList) {
  CampaignResult night = green_night(4, 2);
  night.findings[0].expected_by = "mine.txt:7: no id in this reason";
  night.findings[1].expected_by = "mine.txt:8: nor in this one";
  night.stale_expectations = {"stale: mine.txt:3 sig:a|* (matched no case)",
                              "stale: mine.txt:5 sig:b|* (matched no case)",
                              "stale: mine.txt:3 sig:a|* (matched no case)",
                              "stale: other.txt:1 sig:c|* (matched no case of x)"};
  const std::string screen = campaign_table(night);
  EXPECT_EQ(lines_starting(screen, "expected mine.txt:7: "), 1) << screen;
  EXPECT_EQ(lines_starting(screen, "expected mine.txt:8: "), 1) << screen;
  EXPECT_NE(screen.find("stale: 2 entries of mine.txt selected no call (lines 3, 5)\n"),
            std::string::npos)
      << screen;
  EXPECT_NE(screen.find("stale: 1 entry of other.txt selected no call of x (line 1)\n"),
            std::string::npos)
      << screen;
  EXPECT_EQ(lines_starting(campaign_table(night, TableStyle::kFull), "stale: mine.txt:"), 3);
}

}  // namespace
}  // namespace cvm
