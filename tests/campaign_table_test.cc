// The campaign's terminal table (campaign_report.h): the default fits a screen for every
// operator and backend, and still shows a finding's cell, line and replay command; the full
// table keeps a row per operator x backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_report.h"
#include "registry/registry.h"
#include "support/planted_registry.h"

namespace cvm {
namespace {

int64_t lines_of(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(CampaignTable, EveryOperatorAndBackendFitsAScreen) {
  CampaignOptions o;
  o.max_cases = 400;
  o.seconds = 3600;  // the calls bound the run, not the machine's speed or load
  o.seed = 5;
  const CampaignResult result = run_campaign(registry(), o);
  ASSERT_EQ(result.table.size(), registry().ops().size());
  const std::string screen = campaign_table(result);
  EXPECT_LE(lines_of(screen), 60) << screen;
  for (const std::string& line : [&] {
         std::vector<std::string> v;
         std::istringstream in(screen);
         for (std::string l; std::getline(in, l);) v.push_back(l);
         return v;
       }()) {
    EXPECT_LE(line.size(), 100u) << line;
  }
  EXPECT_NE(screen.find("\nsum "), std::string::npos) << screen;
  EXPECT_NE(screen.find("operators ok"), std::string::npos) << screen;
  // The full table: a row per operator x backend.
  const std::string full = campaign_table(result, TableStyle::kFull);
  EXPECT_GE(lines_of(full), static_cast<int64_t>(result.table.size() * result.backends.size()));
}

TEST(CampaignTable, AFindingShowsInItsCellWithItsReplayLine) {
  const PlantedBug& bug = planted_bugs().front();
  const auto r = testing::registry_with(bug);
  const std::string root = ::testing::TempDir() + "/table-" + bug.backend;
  std::filesystem::remove_all(root);
  CampaignOptions o;
  o.max_cases = 300;
  o.seed = 777;
  o.ops = {bug.op};
  o.backends = {bug.backend};
  o.repro_root = root;
  o.shrink_seconds = 0;
  const CampaignResult result = run_campaign(*r, o);
  ASSERT_EQ(result.findings.size(), 1u) << campaign_table(result, TableStyle::kFull);
  const std::string screen = campaign_table(result);
  EXPECT_NE(screen.find(" x" + std::to_string(result.findings[0].calls)), std::string::npos)
      << screen;
  EXPECT_NE(screen.find("finding " + result.findings[0].key), std::string::npos) << screen;
  EXPECT_NE(screen.find("  cvmcheck run "), std::string::npos) << screen;
  std::filesystem::remove_all(root);
}

// An expected-failure entry for the planted bug: its cell counts the calls as expected
// ("eN"), apart from unexpected ones, in the table and in campaign.json; the screen folds the
// operator (nothing unexpected in it) and counts its calls on the entry's line.
TEST(CampaignTable, ExpectedMismatchesShowApart) {
  const PlantedBug& bug = planted_bugs().front();
  const auto r = testing::registry_with(bug);
  ExpectedFailures list;
  ExpectationEntry entry;
  entry.op_glob = bug.op;
  entry.case_glob = "*";
  entry.reason = "planted for the test";
  entry.source = "test:1";
  list.add(entry);
  CampaignOptions o;
  o.max_cases = 300;
  o.seed = 777;
  o.ops = {bug.op};
  o.backends = {bug.backend};
  o.shrink_seconds = 0;
  o.expected.by_backend[bug.backend] = list;
  const CampaignResult result = run_campaign(*r, o);
  const CampaignCell& cell = result.table.at(bug.op).at(bug.backend);
  ASSERT_GT(cell.mismatches, 0) << campaign_table(result, TableStyle::kFull);
  EXPECT_EQ(cell.expected, cell.mismatches);
  EXPECT_EQ(result.mismatches, 0);
  EXPECT_EQ(result.expected_failures, cell.expected);
  const std::string screen = campaign_table(result);
  EXPECT_EQ(screen.find("\n" + bug.op + " "), std::string::npos) << screen;
  EXPECT_NE(screen.find("1 operator with nothing unexpected (1 with known differences only"),
            std::string::npos)
      << screen;
  EXPECT_NE(screen.find("expected test:1: " + std::to_string(cell.expected) + " calls, 1 finding"),
            std::string::npos)
      << screen;
  o.expected = {};
  const std::string unlisted = campaign_table(run_campaign(*r, o));
  const size_t row = unlisted.find("\n" + bug.op + " ");
  ASSERT_NE(row, std::string::npos) << unlisted;
  EXPECT_NE(campaign_json(result).find("\"expected\": " + std::to_string(cell.expected)),
            std::string::npos);
}

// A run too short to reach most operators (one call here) leaves every backend with operators
// it declares but never compared, and may leave many with nothing compared at all: the screen
// folds both into a few lines of at most 100 columns, however many headings, and says where the
// full lists are.
TEST(CampaignTable, BackendsThatComparedNothingFoldIntoAFewLines) {
  CampaignOptions o;
  o.max_cases = 1;
  o.seconds = 3600;
  o.seed = 5;
  CampaignResult result = run_campaign(registry(), o);
  ASSERT_GT(result.declared_not_compared.size(), 3u) << campaign_table(result);
  for (int k = 0; k < 40; ++k) {
    result.nothing_compared["backend" + std::to_string(k)] = "a reason shared by them all";
  }
  // A second reason, as a machine with a GPU gives (its variants that implement none of the
  // run's operators): the headings share the trailer's lines instead of adding theirs.
  for (int k = 0; k < 15; ++k) {
    result.nothing_compared["other_backend" + std::to_string(k)] = "another reason";
  }
  const std::string screen = campaign_table(result);
  std::istringstream in(screen);
  int64_t trailer = 0;  // the not-compared lines and their continuations
  for (std::string line; std::getline(in, line);) {
    EXPECT_LE(line.size(), 100u) << line;
    if (line.rfind("nothing compared", 0) == 0 || (trailer > 0 && line.rfind("  ", 0) == 0)) {
      ++trailer;
    }
  }
  EXPECT_LE(trailer, 10) << screen;
  EXPECT_NE(screen.find("nothing compared, a reason shared by them all: backend0,"),
            std::string::npos) << screen;
  EXPECT_NE(screen.find("more (campaign.json)"), std::string::npos) << screen;
  EXPECT_NE(screen.find("nothing compared for backends that skipped every call"),
            std::string::npos) << screen;
  const std::string full = campaign_table(result, TableStyle::kFull);
  EXPECT_NE(full.find("nothing compared for backend backend39: a reason"), std::string::npos);
}

}  // namespace
}  // namespace cvm
