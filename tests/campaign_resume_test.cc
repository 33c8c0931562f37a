// Resuming a stopped campaign (CampaignOptions::resume_state, `campaign --resume`): the resumed
// run makes the calls the stopped one had not made, with the schedule it had, so the two runs
// together (merged by the one merge, harness/campaign/campaign_merge.h) make the uninterrupted
// run's calls, each once.
#include <gtest/gtest.h>

#include <signal.h>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_merge.h"
#include "harness/campaign/campaign_resume.h"
#include "registry/registry.h"
#include "support/jobs.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

CampaignOptions campaign_of(int64_t max_cases) {
  CampaignOptions options;
  options.seconds = 600;
  options.max_cases = max_cases;
  options.ops = {"sum", "abs", "conv2d", "take"};
  options.backends = {"optimized", "cuda-host"};
  options.seed = 77;
  options.shrink_seconds = 0;
  return options;
}

// Calls made, drawn ones whose generator gave up included: positions of the sequence.
int64_t positions(const CampaignResult& r) { return r.calls + r.generator_failures; }

// The stopped run and the resumed one, merged as `cvmcheck merge` joins them (one shard), make
// the uninterrupted run's calls.
void expect_same_calls(const CampaignResult& whole, const CampaignResult& first,
                       CampaignResult rest) {
  rest.resumed_from = first.resume_state;  // as `campaign --resume` records it
  const CampaignResult both = merge_campaign({rest, first}, MergeOf::kShards).result;
  EXPECT_TRUE(both.partial_shards.empty());
  EXPECT_EQ(positions(both), positions(whole));
  EXPECT_EQ(both.resume_state, rest.resume_state);
  for (const auto& [op, row] : whole.table) {
    for (const auto& [backend, cell] : row) {
      const CampaignCell& merged = both.table.at(op).at(backend);
      EXPECT_EQ(merged.cases, cell.cases) << op << " " << backend;
      EXPECT_EQ(merged.ok, cell.ok) << op << " " << backend;
      EXPECT_EQ(merged.logic_error, cell.logic_error) << op << " " << backend;
    }
  }
}

TEST(CampaignResume, AStoppedAndAResumedRunMakeTheUninterruptedRunsCalls) {
  const CampaignResult whole = run_campaign(registry(), campaign_of(500));
  const CampaignResult first = run_campaign(registry(), campaign_of(180));
  const ResumeState state = parse_resume_state(first.resume_state);
  ASSERT_EQ(state.places.size(), 1u);
  EXPECT_EQ(state.places[0].next, static_cast<uint64_t>(positions(first)));
  CampaignOptions rest_options = campaign_of(500);
  rest_options.resume_state = first.resume_state;
  const CampaignResult rest = run_campaign(registry(), rest_options);
  expect_same_calls(whole, first, rest);
}

// Past the schedule's feedback (every 4096 calls of a job, the operators of paths few calls
// reached get twice their share), a resumed run boosts what the uninterrupted run would have:
// its resume state carries the paths' calls of the runs before it.
TEST(CampaignResume, AResumedRunPastTheFeedbackMakesTheUninterruptedRunsCalls) {
  const CampaignResult whole = run_campaign(registry(), campaign_of(12000));
  const CampaignResult first = run_campaign(registry(), campaign_of(5000));
  ASSERT_TRUE(parse_resume_state(first.resume_state).places[0].path_calls.is_object());
  CampaignOptions rest_options = campaign_of(12000);
  rest_options.resume_state = first.resume_state;
  const CampaignResult rest = run_campaign(registry(), rest_options);
  expect_same_calls(whole, first, rest);
}

TEST(CampaignResume, EachJobGoesOnFromItsOwnPlace) {
  const auto jobs = [](CampaignOptions o) {
    return run_campaign_jobs(registry(), o, 2, [] { testing::one_thread(0); });
  };
  const CampaignResult whole = jobs(campaign_of(400));
  const CampaignResult first = jobs(campaign_of(150));
  ASSERT_EQ(parse_resume_state(first.resume_state).places.size(), 2u);
  CampaignOptions rest_options = campaign_of(400);
  rest_options.resume_state = first.resume_state;
  const CampaignResult rest = jobs(rest_options);
  expect_same_calls(whole, first, rest);
}

TEST(CampaignResume, AStateOfAnotherRunIsAnError) {
  const CampaignResult first = run_campaign(registry(), campaign_of(20));
  CampaignOptions other = campaign_of(40);
  other.seed = 78;
  other.resume_state = first.resume_state;
  EXPECT_THROW(run_campaign(registry(), other), RuntimeError);
  EXPECT_THROW(parse_resume_state("{\"seed\": 1}"), RuntimeError);
  EXPECT_THROW(parse_resume_state("not json"), RuntimeError);
}

// The command: a run stopped by SIGTERM is interrupted in the store with its resume state, and
// `--resume` goes on from it (the same seed), saying so.
class CampaignResumeCli : public testing::TempDirTest {
 protected:
  CampaignResumeCli() : TempDirTest("cvmcheck-resume") {}
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::string args(int seconds) const {
    return "campaign --ops relu,abs --backends optimized --jobs 1 --quiet --checkpoint-seconds "
           "0.1 --seconds " + std::to_string(seconds) + " --store " + path("store.sqlite");
  }
};

TEST_F(CampaignResumeCli, ResumeGoesOnFromTheStoppedRun) {
  const pid_t pid = testing::spawn_cli("", args(60) + " --seed 4321", path("out1"), path("err1"));
  ASSERT_TRUE(testing::wait_for_store(path("store.sqlite"),
                                      "SELECT count(*) FROM runs WHERE resume != ''", 1, pid))
      << testing::file_text(path("err1"));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(testing::wait_cli(pid), 5) << testing::file_text(path("err1"));
  const pid_t next = testing::spawn_cli("", args(1) + " --resume", path("out2"),
                                        path("err2"));
  EXPECT_EQ(testing::wait_cli(next), 0) << testing::file_text(path("err2"));
  const std::string said = testing::file_text(path("err2"));
  EXPECT_NE(said.find("resuming run 1 (seed 4321"), std::string::npos) << said;
  EXPECT_NE(said.find("seed 4321"), std::string::npos) << said;

  const pid_t none = testing::spawn_cli("", args(1) + " --resume --seed 99", path("out3"),
                                        path("err3"));
  EXPECT_EQ(testing::wait_cli(none), 2);
  EXPECT_NE(testing::file_text(path("err3")).find("no interrupted campaign of seed 99"),
            std::string::npos);
}

// --resume-from: a run's campaign.json is where the next run goes on, with no store (how a
// requeued Slurm shard goes on: ci/slurm/shard.sh). The two runs make the uninterrupted run's
// calls, each once, and the second says where it started (run.resumed_from), which a merge of a
// shard's runs joins them by.
class CampaignResumeFromReport : public testing::TempDirTest {
 protected:
  CampaignResumeFromReport() : TempDirTest("cvmcheck-resume-from") {}
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Shard 2 of 3 of seed 4321, in blocks of 20 calls, making its `max_cases` first calls (of a
  // campaign of 3 x max_cases), into report NAME; its exit status. Two jobs: their calls are
  // bounded by index, resumed or not.
  int run(const std::string& name, int max_cases, const std::string& more = "") {
    const pid_t pid = testing::spawn_cli(
        "", "campaign --ops relu,abs,max --backends optimized --jobs 2 --quiet --seconds 600 "
            "--seed 4321 --shard 2/3 --block-calls 20 --max-cases " +
                std::to_string(3 * max_cases) + " --report " +
            path(name) + " " + more,
        path(name + ".out"), path(name + ".err"));
    return testing::wait_cli(pid);
  }
  nlohmann::json report(const std::string& name) const {
    return nlohmann::json::parse(testing::file_text(path(name) + "/campaign.json"));
  }
};

int64_t positions(const nlohmann::json& r) {
  return r["calls"].get<int64_t>() + r["generator_failures"].get<int64_t>();
}

TEST_F(CampaignResumeFromReport, GoesOnWhereTheReportsRunStopped) {
  ASSERT_EQ(run("whole", 300), 0) << testing::file_text(path("whole.err"));
  ASSERT_EQ(run("first", 120), 0) << testing::file_text(path("first.err"));
  ASSERT_EQ(run("rest", 300, "--resume-from " + path("first/campaign.json")), 0)
      << testing::file_text(path("rest.err"));
  EXPECT_NE(testing::file_text(path("rest.err")).find("resuming the run of"), std::string::npos);
  const nlohmann::json whole = report("whole"), first = report("first"), rest = report("rest");
  EXPECT_EQ(positions(first) + positions(rest), positions(whole));
  for (const auto& [op, row] : whole["table"].items()) {
    for (const auto& [backend, cell] : row.items()) {
      EXPECT_EQ(first["table"][op][backend]["cases"].get<int64_t>() +
                    rest["table"][op][backend]["cases"].get<int64_t>(),
                cell["cases"].get<int64_t>())
          << op << " " << backend;
    }
  }
  EXPECT_EQ(first["run"]["resumed_from"], "");
  EXPECT_EQ(rest["run"]["resumed_from"], first["resume_state"]);
  // It stopped at --max-cases, counted by index: its own calls are fewer.
  EXPECT_EQ(rest["run"]["stopped"], "max_cases");
}

TEST_F(CampaignResumeFromReport, AReportOfAnotherRunOrNoReportIsAUsageError) {
  ASSERT_EQ(run("first", 40), 0) << testing::file_text(path("first.err"));
  const pid_t other = testing::spawn_cli(
      "", "campaign --ops relu --backends optimized --jobs 2 --quiet --shard 1/3 --resume-from " +
              path("first/campaign.json"),
      path("other.out"), path("other.err"));
  EXPECT_EQ(testing::wait_cli(other), 2);
  EXPECT_NE(testing::file_text(path("other.err")).find("its run was shard 2/3"), std::string::npos)
      << testing::file_text(path("other.err"));
  EXPECT_EQ(run("bad", 40, "--resume-from " + path("first.out")), 2);
  EXPECT_NE(testing::file_text(path("bad.err")).find("not a campaign.json with a resume state"),
            std::string::npos)
      << testing::file_text(path("bad.err"));
  EXPECT_EQ(run("both", 40, "--resume --store " + path("s.sqlite") + " --resume-from " +
                                path("first/campaign.json")),
            2);
}

}  // namespace
}  // namespace cvm
