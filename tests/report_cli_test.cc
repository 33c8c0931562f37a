// The command line as a user meets it: typos named with a suggestion, --help of an unknown
// command an error, and `cvmcheck report` writing one self-contained page (its browser tests:
// tests/browser, ci/browser-test.sh).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/paths.h"

namespace {

using cvm::testing::CliRun;

CliRun run_cli(const std::string& args) { return cvm::testing::run_cli(args, true); }

TEST(CliTypos, UnknownCommandIsNamedWithTheClosest) {
  CliRun r = run_cli("nonsense");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("unknown command 'nonsense'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("A subcommand is required"), std::string::npos) << r.out;
  r = run_cli("campagn --seconds 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("did you mean 'campaign'?"), std::string::npos) << r.out;
  r = run_cli("golden verfy");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("cvmcheck golden: unknown command 'verfy'; did you mean 'verify'?"),
            std::string::npos)
      << r.out;
}

TEST(CliTypos, HelpOfAnUnknownCommandIsAnError) {
  const CliRun r = run_cli("triage --help");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("unknown command 'triage'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Usage"), std::string::npos) << "not the top-level help: " << r.out;
}

TEST(CliTypos, KnownCommandsAndHelpStillWork) {
  EXPECT_EQ(run_cli("--help").status, 0);
  EXPECT_EQ(run_cli("report --help").status, 0);
  const CliRun r = run_cli("golden verify --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cvmcheck-report-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ReportCommand, WritesOneSelfContainedPageFromARealRun) {
  const auto dir = scratch("run");
  const std::string report = (dir / "run").string();
  const CliRun campaign = run_cli("campaign --ops abs,sum --backends optimized --max-cases 40 "
                               "--seed 5 --quiet --jobs 1 --allow-unreached-paths "
                               "--commit abc123 --report " + report);
  ASSERT_EQ(campaign.status, 0) << campaign.out;
  const nlohmann::json json = nlohmann::json::parse(read(dir / "run" / "campaign.json"));
  EXPECT_EQ(json["run"]["commit"], "abc123");
  EXPECT_EQ(json["run"]["stopped"], "max_cases");
  EXPECT_FALSE(json["run"]["cpu_features"].get<std::string>().empty());
  EXPECT_EQ(json["table"]["abs"]["optimized"]["expected"], 0);
  const std::string page = (dir / "page.html").string();
  const CliRun r = run_cli("report --campaign " + report + "/campaign.json --history " + report +
                        "/campaign.json --out " + page);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, page + "\n");
  const std::string html = read(page);
  EXPECT_EQ(html.find("/*CVMCHECK_REPORT_DATA*/"), std::string::npos) << "the data is in";
  EXPECT_NE(html.find("\"commit\":\"abc123\""), std::string::npos);
  // Self-contained: no external script, style sheet, image or font.
  for (const char* external : {"src=\"http", "href=\"http", "@import", "url(http"}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
  std::filesystem::remove_all(dir);
}

TEST(ReportCommand, DataCannotEndItsScriptElement) {
  const auto dir = scratch("escape");
  nlohmann::json run = {{"seed", 1}, {"seconds", 1.0}, {"calls", 1}, {"mismatching_calls", 1},
                        {"backends", {"reference", "optimized"}}};
  run["table"]["abs"]["reference"] = {{"cases", 1}, {"ok", 1}, {"logic_error", 0},
                                      {"runtime_error", 0}, {"mismatches", 0}, {"skipped", 0}};
  run["table"]["abs"]["optimized"] = {{"cases", 1}, {"ok", 1}, {"logic_error", 0},
                                      {"runtime_error", 0}, {"mismatches", 1}, {"skipped", 0}};
  run["findings"] = {{{"op", "abs"}, {"backend", "optimized"}, {"signature", "abs optimized value"},
                      {"calls", 1}, {"case_seed", 1}, {"first_index", 0},
                      {"report", "</script><script>alert(1)</script><!--"}}};
  std::ofstream(dir / "campaign.json") << run.dump();
  const CliRun r = run_cli("report --campaign " + (dir / "campaign.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read(dir / "report.html");
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// golden verify --json and mrt --json write what the page's golden and MRT sections read.
TEST(ReportCommand, GoldenAndMrtJsonReachThePage) {
  const auto dir = scratch("parts");
  const std::string golden = (dir / "golden.json").string(), mrt = (dir / "mrt.json").string();
  const CliRun g = run_cli("golden verify " + std::string(CVMCHECK_SOURCE_DIR) +
                           "/golden --backend reference --jobs 1 --json " + golden);
  ASSERT_EQ(g.status, 0) << g.out;
  const nlohmann::json gj = nlohmann::json::parse(read(golden));
  EXPECT_EQ(gj["backends"]["reference"]["ok"], true);
  EXPECT_GT(gj["backends"]["reference"]["per_op"]["sum"]["pass"].get<int>(), 0);
  const CliRun m = run_cli("mrt --cases 2 --backend reference --jobs 1 --seed 3 --json " + mrt);
  ASSERT_EQ(m.status, 0) << m.out;
  const nlohmann::json mj = nlohmann::json::parse(read(mrt));
  ASSERT_FALSE(mj["rows"].empty());
  EXPECT_EQ(mj["rows"][0]["cases"], 2);
  EXPECT_EQ(mj["seed"], 3);
  const CliRun c = run_cli("campaign --ops abs --backends optimized --max-cases 10 --seed 5 "
                           "--quiet --jobs 1 --allow-unreached-paths --report " +
                           (dir / "run").string());
  ASSERT_EQ(c.status, 0) << c.out;
  const std::string page = (dir / "page.html").string();
  const CliRun r = run_cli("report --campaign " + (dir / "run" / "campaign.json").string() +
                           " --golden " + golden + " --mrt " + mrt + " --out " + page);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read(page);
  EXPECT_NE(html.find("\"golden\":{\"backends\":{\"reference\""), std::string::npos);
  EXPECT_NE(html.find("\"mrt\":{\"planted\""), std::string::npos);
  std::filesystem::remove_all(dir);
}

// --store puts the findings store's runs and findings on the page; a store that is not there is
// an error, never created.
TEST(ReportCommand, TheFindingsStoreReachesThePage) {
  const auto dir = scratch("store");
  const std::string store = (dir / "findings.sqlite").string();
  const CliRun c = run_cli("campaign --ops abs --backends optimized --max-cases 10 --seed 5 "
                           "--quiet --jobs 1 --allow-unreached-paths --commit abc123 --store " +
                           store + " --report " + (dir / "run").string());
  ASSERT_EQ(c.status, 0) << c.out;
  const std::string page = (dir / "page.html").string();
  const CliRun r = run_cli("report --campaign " + (dir / "run" / "campaign.json").string() +
                           " --store " + store + " --out " + page);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read(page);
  EXPECT_NE(html.find("\"path\":\"" + store + "\""), std::string::npos);
  EXPECT_NE(html.find("\"runs_total\":1"), std::string::npos);
  EXPECT_NE(html.find("\"commit\":\"abc123\""), std::string::npos);
  EXPECT_NE(html.find("\"known_by_rule\":[]"), std::string::npos);
  const std::string missing = (dir / "missing.sqlite").string();
  const CliRun m = run_cli("report --campaign " + (dir / "run" / "campaign.json").string() +
                           " --store " + missing + " --out " + page);
  EXPECT_EQ(m.status, 2) << m.out;
  EXPECT_NE(m.out.find("no findings store at " + missing), std::string::npos) << m.out;
  EXPECT_FALSE(std::filesystem::exists(missing));
  std::filesystem::remove_all(dir);
}

TEST(ReportCommand, UnknownHistorySourceIsAnError) {
  const CliRun r = run_cli("report --campaign /nonexistent/campaign.json");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("cannot read /nonexistent/campaign.json"), std::string::npos) << r.out;
  const CliRun s = run_cli("report --history store:x.db");
  EXPECT_EQ(s.status, 2) << s.out;
  EXPECT_NE(s.out.find("history source 'store:x.db': unknown scheme"), std::string::npos) << s.out;
}

}  // namespace
