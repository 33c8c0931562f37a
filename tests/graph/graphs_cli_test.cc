// `cvmcheck graphs` as a user runs it: the report, the exit status, a planted backend's finding
// with its repro folder, and the folder replayed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

using testing::file_text;
using testing::spawn_cli;
using testing::wait_cli;

constexpr const char* kPlanted = "env CVMCHECK_PLANTED=planted-clip-upper-bound-off-by-one";
constexpr const char* kBackend = "planted-clip-upper-bound-off-by-one";

class GraphsCliTest : public testing::TempDirTest {
 protected:
  GraphsCliTest() : TempDirTest("cvmcheck-graphs-cli") {}
  int run(const std::string& env, const std::string& args) {
    return wait_cli(spawn_cli(env, args, out(), (dir_ / "err.txt").string()));
  }
  std::string out() const { return (dir_ / "out.txt").string(); }
  std::string report() const { return (dir_ / "report").string(); }
};

TEST_F(GraphsCliTest, WritesItsReportAndExitsZeroWithoutFindings) {
  ASSERT_EQ(run("env", "graphs --max-graphs 25 --seconds 600 --seed 4 --report " + report()), 0)
      << file_text(out());
  const auto j = nlohmann::json::parse(file_text(report() + "/graphs.json"));
  EXPECT_EQ(j["graphs"], 25);
  EXPECT_EQ(j["seed"], 4);
  EXPECT_TRUE(j["findings"].empty());
  EXPECT_GT(j["operators_covered"].size(), 10u);
}

TEST_F(GraphsCliTest, ReportsAPlantedBugWithAFolderThatReplaysIt) {
  ASSERT_EQ(run(kPlanted, std::string("graphs --max-graphs 30 --seconds 600 --seed 3 --backends ") +
                              kBackend + " --report " + report()),
            1)
      << file_text(out());
  const std::string text = file_text(out());
  // The clip differs as a single call too: the campaign's signature.
  EXPECT_NE(text.find("FINDING cvm_clip|" + std::string(kBackend) + "|value"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(file_text(report() + "/graphs.json"));
  ASSERT_EQ(j["findings"].size(), 1u);
  const std::string folder = j["findings"][0]["repro"];
  for (const char* file : {"graph.json", "params", "data.npy", "finding.json"}) {
    EXPECT_TRUE(std::filesystem::exists(folder + "/" + file)) << file;
  }
  const auto finding = nlohmann::json::parse(file_text(folder + "/finding.json"));
  EXPECT_EQ(finding["replay"], "cvmcheck run " + folder + " --backend " + kBackend);
  EXPECT_NE(text.find("__REPRO: cvmcheck run " + folder + " --backend " + kBackend), std::string::npos) << text;
  EXPECT_EQ(run(kPlanted, "run " + folder + " --backend " + kBackend), 1);
  const auto replay = nlohmann::json::parse(file_text(out()));
  EXPECT_EQ(replay[kBackend]["difference"]["kind"], "value") << replay.dump();
  EXPECT_EQ(replay[kBackend]["difference"]["signature"], finding["signature"]) << replay.dump();
  EXPECT_EQ(run("env", "run " + folder + " --backend optimized"), 0) << file_text(out());
  // --replay is an alias.
  EXPECT_EQ(run(kPlanted, "graphs --replay " + folder + " --backends " + kBackend), 1);
  EXPECT_EQ(run("env", "graphs --replay " + folder + " --backends optimized"), 0) << file_text(out());
}

TEST_F(GraphsCliTest, RecordsItsFindingsInTheStore) {
  const std::string store = (dir_ / "findings.sqlite").string();
  ASSERT_EQ(run(kPlanted, std::string("graphs --max-graphs 30 --seconds 600 --seed 3 --backends ") +
                              kBackend + " --store " + store),
            1)
      << file_text(out());
  EXPECT_NE(file_text(out()).find("1 new"), std::string::npos) << file_text(out());
  ASSERT_EQ(run("env", "findings list --store " + store), 0) << file_text(out());
  EXPECT_NE(file_text(out()).find("cvm_clip|" + std::string(kBackend) + "|value"), std::string::npos)
      << file_text(out());
}

TEST_F(GraphsCliTest, RunRefusesADamagedGraphFolder) {
  const std::string folder = (dir_ / "damaged").string();
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/graph.json") << "{not json";
  EXPECT_EQ(run("env", "run " + folder), 3) << file_text(out());
}

}  // namespace
}  // namespace cvm
