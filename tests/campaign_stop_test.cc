// A campaign stopped early loses nothing (docs/nightly.md, "A stopped or killed run"): SIGINT,
// SIGTERM and SIGHUP end it at the next call boundary with its table, campaign.json, junit.xml
// and its store record (interrupted, with its findings); SIGKILL leaves a store that the next
// run reads as "interrupted at T", its findings open, not new. Every signal is sent once the
// store shows what the test needs (a checkpoint with the finding): counts, never the clock.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

using testing::file_text;
using testing::spawn_cli;
using testing::store_int;
using testing::store_text;
using testing::wait_cli;
using testing::wait_for_store;

constexpr const char* kPlanted = "env CVMCHECK_PLANTED=planted-max-clamps-at-zero";
constexpr const char* kSignature = "max|planted-max-clamps-at-zero";
// Sightings the running run (the last one) has recorded.
constexpr const char* kSightingsOfLastRun =
    "SELECT count(*) FROM sightings WHERE run = (SELECT max(id) FROM runs)";

class CampaignStopTest : public testing::TempDirTest {
 protected:
  CampaignStopTest() : TempDirTest("cvmcheck-stop") {}
  std::string store() const { return (dir_ / "findings.sqlite").string(); }
  std::string report() const { return (dir_ / "report").string(); }
  std::string out() const { return (dir_ / "out.txt").string(); }
  std::string err() const { return (dir_ / "err.txt").string(); }
  // A campaign of the planted max bug that would run `seconds` unless stopped.
  std::string campaign_args(int seconds, int jobs, const std::string& seed = "7") const {
    return "campaign --ops max --backends planted-max-clamps-at-zero --seconds " +
           std::to_string(seconds) + " --jobs " + std::to_string(jobs) + " --seed " + seed +
           " --quiet --shrink-seconds 0.2 --checkpoint-seconds 0.1 --store " + store() +
           " --report " + report();
  }
  // Runs the planted campaign, signals it once the store holds its finding, and returns its
  // exit status.
  int stopped_by(int signal, int jobs) {
    const pid_t pid = spawn_cli(kPlanted, campaign_args(30, jobs), out(), err());
    EXPECT_TRUE(wait_for_store(store(), kSightingsOfLastRun, 1, pid)) << file_text(err());
    ::kill(pid, signal);
    return wait_cli(pid);
  }
  // What a stopped run leaves: the table with the stop line, both reports, and the store's
  // run interrupted by `name` with the finding.
  void expect_kept(const std::string& name) {
    const std::string printed = file_text(out());
    EXPECT_NE(printed.find("stopped by " + name + " after "), std::string::npos) << printed;
    EXPECT_NE(printed.find("findings store"), std::string::npos) << printed;
    const auto json = nlohmann::json::parse(file_text(report() + "/campaign.json"));
    EXPECT_EQ(json["run"]["stopped"], "signal:" + name);
    EXPECT_GE(json["findings"].size(), 1u);
    EXPECT_NE(file_text(report() + "/junit.xml").find("stopped by " + name), std::string::npos);
    EXPECT_EQ(store_text(store(), "SELECT status FROM runs ORDER BY id DESC"), "interrupted");
    EXPECT_EQ(store_text(store(), "SELECT stopped FROM runs ORDER BY id DESC"), "signal:" + name);
    EXPECT_GE(store_int(store(), kSightingsOfLastRun), 1);
    EXPECT_EQ(store_text(store(), "PRAGMA integrity_check"), "ok");
  }
};

// A stopped run with a mismatch still exits 1.
TEST_F(CampaignStopTest, SigintStopsAtACallBoundaryAndKeepsTheRun) {
  EXPECT_EQ(stopped_by(SIGINT, 1), 1) << file_text(err());
  expect_kept("SIGINT");
}

TEST_F(CampaignStopTest, SigtermStopsAtACallBoundaryAndKeepsTheRun) {
  EXPECT_EQ(stopped_by(SIGTERM, 1), 1) << file_text(err());
  expect_kept("SIGTERM");
}

TEST_F(CampaignStopTest, SighupStopsAtACallBoundaryAndKeepsTheRun) {
  EXPECT_EQ(stopped_by(SIGHUP, 1), 1) << file_text(err());
  expect_kept("SIGHUP");
}

// Of several jobs, the parent alone receives the signal (`kill PID`, as CI sends it) and every
// job stops; the jobs' findings reach the store through the parent's checkpoints.
TEST_F(CampaignStopTest, SigtermToTheParentStopsEveryJob) {
  EXPECT_EQ(stopped_by(SIGTERM, 2), 1) << file_text(err());
  expect_kept("SIGTERM");
}

// A clean run stopped by a signal exits 5 (interrupted), not 0: it checked less than asked.
TEST_F(CampaignStopTest, ACleanStoppedRunExitsInterrupted) {
  const pid_t pid = spawn_cli("", "campaign --ops max --backends optimized --seconds 30 --jobs 1 "
                                  "--quiet --checkpoint-seconds 0.1 --store " + store() +
                                  " --report " + report(), out(), err());
  ASSERT_TRUE(wait_for_store(store(), "SELECT max(calls) FROM runs", 1, pid)) << file_text(err());
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_cli(pid), 5) << file_text(err());
  EXPECT_EQ(nlohmann::json::parse(file_text(report() + "/campaign.json"))["run"]["stopped"],
            "signal:SIGTERM");
  EXPECT_EQ(store_text(store(), "SELECT status FROM runs ORDER BY id DESC"), "interrupted");
}

// The next run after a SIGKILL: it reports the killed run as interrupted at its last checkpoint
// and the killed run's finding as open, not new.
void expect_next_run_reads_the_killed(const std::string& printed, int killed_runs) {
  size_t lines = 0;
  for (size_t at = printed.find("was interrupted at"); at != std::string::npos;
       at = printed.find("was interrupted at", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, static_cast<size_t>(killed_runs)) << printed;
  EXPECT_NE(printed.find(": 0 new,"), std::string::npos) << printed;
  EXPECT_NE(printed.find(std::string("open       ") + kSignature), std::string::npos) << printed;
}

TEST_F(CampaignStopTest, SigkillLeavesTheRunAndItsFindingsForTheNextRun) {
  const pid_t pid = spawn_cli(kPlanted, campaign_args(30, 1), out(), err());
  ASSERT_TRUE(wait_for_store(store(), kSightingsOfLastRun, 1, pid)) << file_text(err());
  ::kill(pid, SIGKILL);
  EXPECT_EQ(wait_cli(pid), 128 + SIGKILL);
  EXPECT_EQ(store_text(store(), "PRAGMA integrity_check"), "ok");
  const pid_t next = spawn_cli(kPlanted, campaign_args(30, 1) + " --max-cases 300", out(), err());
  EXPECT_EQ(wait_cli(next), 1) << file_text(err());
  expect_next_run_reads_the_killed(file_text(out()), 1);
  EXPECT_EQ(store_text(store(), "SELECT stopped FROM runs WHERE id = 1"), "killed");
}

// SIGKILL at random moments of campaigns with a planted bug (starting, drawing, shrinking, in a
// checkpoint's transaction, one job or two): the store is intact after every kill, and the next
// run reads every killed run that had begun as interrupted and their findings as open.
TEST_F(CampaignStopTest, FiftyKillsAtRandomMomentsLeaveTheStoreIntact) {
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> wait_ms(0, 600);
  // One kill after the first checkpoint with the finding, so the findings exist to be kept.
  const pid_t first = spawn_cli(kPlanted, campaign_args(30, 1, "1"), out(), err());
  ASSERT_TRUE(wait_for_store(store(), kSightingsOfLastRun, 1, first)) << file_text(err());
  ::kill(first, SIGKILL);
  wait_cli(first);
  std::vector<pid_t> with_jobs;  // their checkpoint files are left behind
  for (int kill = 1; kill < 50; ++kill) {
    const int jobs = kill % 5 == 0 ? 2 : 1;
    const pid_t pid =
        spawn_cli(kPlanted, campaign_args(30, jobs, std::to_string(kill + 1)), out(), err());
    if (jobs > 1) with_jobs.push_back(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(random)));
    ::kill(pid, SIGKILL);
    wait_cli(pid);
    ASSERT_EQ(store_text(store(), "PRAGMA integrity_check"), "ok") << "after kill " << kill + 1;
  }
  const int64_t begun = store_int(store(), "SELECT count(*) FROM runs WHERE status = 'running'");
  const int64_t runs = store_int(store(), "SELECT count(*) FROM runs");
  EXPECT_GE(runs, 1);
  // Of two jobs: it also removes the killed campaigns' checkpoint files.
  const pid_t next = spawn_cli(kPlanted, campaign_args(30, 2, "1") + " --max-cases 300", out(),
                               err());
  EXPECT_EQ(wait_cli(next), 1) << file_text(err());
  expect_next_run_reads_the_killed(file_text(out()), static_cast<int>(begun));
  // Each killed run that had begun was found by the next run: interrupted, "killed".
  EXPECT_EQ(store_int(store(), "SELECT count(*) FROM runs WHERE status = 'interrupted' AND "
                               "stopped = 'killed'"),
            runs);
  EXPECT_EQ(store_text(store(), "PRAGMA integrity_check"), "ok");
  for (const pid_t pid : with_jobs) {
    for (int job = 0; job < 2; ++job) {
      const auto file = std::filesystem::temp_directory_path() /
                        ("cvmcheck-checkpoint-" + std::to_string(pid) + "-0-" +
                         std::to_string(job) + ".json");
      EXPECT_FALSE(std::filesystem::exists(file)) << file;
    }
  }
}

// mrt stops as the campaign does: the table of the cases made, exit 5 when none mismatched.
TEST_F(CampaignStopTest, MrtStopsAtACaseBoundary) {
  const pid_t pid = spawn_cli("", "mrt --seconds 30 --jobs 1 --identity dense --backend optimized",
                              out(), err());
  ASSERT_TRUE(testing::wait_for_handler(pid, SIGTERM));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_cli(pid), 5) << file_text(err());
  EXPECT_NE(file_text(out()).find("stopped by SIGTERM"), std::string::npos) << file_text(out());
}

}  // namespace
}  // namespace cvm
