// A narrow run is judged on what was asked (docs/paths.md, "What the campaign does with them"): a
// backend of the default selection that implements none of the selected operators is left out
// (not applicable), one named explicitly still fails with "nothing compared"; an unreached
// declared path fails a run of the default scope and is a warning in a narrower one, unless
// --require-paths.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

class NarrowRunTest : public testing::TempDirTest {
 protected:
  NarrowRunTest() : TempDirTest("cvmcheck-narrow") {}
  testing::CliRun campaign(const std::string& args) {
    // Bounded by calls alone (--max-cases in each test; no verdict by the clock): under load, or
    // where each process starts a shared GPU, a 20-s default can end before every operator ran.
    return testing::run_cli(
        "campaign --quiet --jobs 1 --seed 3 --seconds 3600 --report " + report() + " " + args, true);
  }
  nlohmann::json report_json() const {
    return nlohmann::json::parse(testing::file_text(report() + "/campaign.json"));
  }
  std::string report() const { return (dir_ / "report").string(); }
};

TEST_F(NarrowRunTest, BackendsImplementingNoneOfTheOperatorsAreNotApplicable) {
  const testing::CliRun run = campaign("--ops conv2d --max-cases 60");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out.find("nothing compared"), std::string::npos) << run.out;
  const nlohmann::json json = report_json();
  // cuda-host@nms8 runs non_max_suppression alone.
  ASSERT_TRUE(json["not_applicable"].contains("cuda-host@nms8")) << json["not_applicable"];
  for (const auto& b : json["backends"]) EXPECT_NE(b, "cuda-host@nms8");
  EXPECT_NE(run.out.find("not applicable (implement none of the selected operators): "),
            std::string::npos) << run.out;
}

TEST_F(NarrowRunTest, ABackendNamedExplicitlyStillFailsWhenItComparesNothing) {
  const testing::CliRun run = campaign("--ops conv2d --backends cuda-host@nms8 --max-cases 10");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("nothing compared for backend cuda-host@nms8"), std::string::npos)
      << run.out;
}

// A worker campaign (--backend-def adds it to the default selection) on three operators: the
// default backends are judged as the default selection (an unavailable one is a listed skip, one
// implementing none of the operators not applicable); the defined worker counts as named.
TEST_F(NarrowRunTest, AWorkerCampaignOnThreeOperatorsIsJudgedOnWhatWasAsked) {
  // --worker-memory 0: a sanitized build's worker reserves terabytes of address space at start.
  const std::string worker =
      std::string(" --worker-memory 0 --backend-def ex=") + CVMCHECK_EXAMPLE_CPP_WORKER;
  const testing::CliRun run = campaign("--ops abs,negative,clip --max-cases 60" + worker);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_TRUE(report_json()["not_applicable"].contains("cuda-host@nms8"));
  const testing::CliRun none = campaign("--ops relu,sum --max-cases 20" + worker);
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.out.find("nothing compared for backend ex"), std::string::npos) << none.out;
}

// Three calls are too few to judge conv2d's paths (docs/paths.md, "Paths judged by calls"): a
// warning, exit 0; --require-paths fails on them.
TEST_F(NarrowRunTest, PathsTooFewCallsJudgeAreAWarning) {
  const testing::CliRun run = campaign("--ops conv2d --max-cases 3");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("warning: too few calls to judge paths: "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(" declares kernel paths no call reached: "), std::string::npos) << run.out;
  const testing::CliRun strict = campaign("--ops conv2d --max-cases 3 --require-paths");
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_NE(strict.out.find("made too few calls to judge kernel paths"), std::string::npos)
      << strict.out;
}

// The main job's scope (every operator, the default backends) is judged by calls too: 40 calls
// judge no path, so nothing fails for want of them (tests/main_job_verdict_test.cc fails it on a
// path dropped from the generators).
TEST_F(NarrowRunTest, ARunOfTheDefaultScopeTooShortToJudgePathsPasses) {
  const testing::CliRun run = campaign("--max-cases 40 --allow-nothing-compared");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("warning: too few calls to judge paths: "), std::string::npos) << run.out;
  const testing::CliRun strict = campaign("--max-cases 40 --allow-nothing-compared --require-paths");
  EXPECT_EQ(strict.status, 1) << strict.out;
}

}  // namespace
}  // namespace cvm
