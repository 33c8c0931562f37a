// A campaign through a worker that declares kernel paths runs to its end: the built-in worker of
// `optimized` and of `cuda-host` (`cvmcheck worker --backend NAME`) declares its backend's paths
// but no thresholds, and the path oracle's rows that read a threshold cannot be sized for it.
// Whatever a worker declares or answers, the campaign never stops on it (exit 2): a wrong row or
// reply is a finding of that backend.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

class CampaignThroughWorkerTest : public testing::TempDirTest {
 protected:
  CampaignThroughWorkerTest() : TempDirTest("cvmcheck-through-worker") {}
  // A campaign of `calls` calls of `ops`, compared through the built-in worker of `backend`.
  testing::CliRun campaign(const std::string& backend, const std::string& ops, int calls) {
    // --worker-memory 0: a sanitized build's worker reserves terabytes of address space at start.
    const std::string worker =
        "exec:" + std::string(CVMCHECK_BINARY) + " worker --backend " + backend;
    return testing::run_cli("campaign --quiet --jobs 1 --seed 5 --seconds 3600 --worker-memory 0"
                            " --max-cases " + std::to_string(calls) + " --ops " + ops +
                                " --report " + report() + " --backends 'reference," + worker + "'",
                            true);
  }
  nlohmann::json report_json() const {
    return nlohmann::json::parse(testing::file_text(report() + "/campaign.json"));
  }
  std::string report() const { return (dir_ / "report").string(); }
};

TEST_F(CampaignThroughWorkerTest, TheOptimizedWorkerRunsToItsEnd) {
  const testing::CliRun run = campaign("optimized", "relu,abs,sum", 120);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out.find("tensor dim"), std::string::npos) << run.out;
  const nlohmann::json json = report_json();
  EXPECT_EQ(json.at("calls").get<int64_t>(), 120) << run.out;
  EXPECT_EQ(json.at("mismatching_calls").get<int64_t>(), 0) << run.out;
}

TEST_F(CampaignThroughWorkerTest, TheCudaHostWorkerRunsToItsEnd) {
  const testing::CliRun run = campaign("cuda-host", "relu,abs,sum", 120);
  EXPECT_EQ(run.status, 0) << run.out;
  const nlohmann::json json = report_json();
  EXPECT_EQ(json.at("calls").get<int64_t>(), 120) << run.out;
  EXPECT_EQ(json.at("mismatching_calls").get<int64_t>(), 0) << run.out;
}

}  // namespace
}  // namespace cvm
