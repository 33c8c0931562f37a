// The findings store (harness/findings/findings_store.h): a finding's life across runs (new, open,
// fixed, regressed, expected), concurrent writers, a killed writer, and files it must refuse
// without touching them.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_store.h"
#include "harness/findings/findings_store.h"
#include "registry/registry.h"
#include "support/planted_registry.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

class FindingsStoreTest : public testing::TempDirTest {
 protected:
  FindingsStoreTest() : TempDirTest("cvmcheck-store") {}
  std::string path(const std::string& name = "findings.sqlite") const {
    return (dir_ / name).string();
  }
};

StoreRun run_of(std::vector<std::string> ops, std::vector<std::string> backends,
                const std::string& group = "") {
  StoreRun run;
  run.commit = "c0ffee";
  run.ops = std::move(ops);
  run.backends = std::move(backends);
  run.group = group;
  return run;
}

StoreFinding finding(const std::string& signature, int64_t calls, const std::string& op = "max",
                     const std::string& backend = "optimized") {
  StoreFinding f;
  f.signature = signature;
  f.op = op;
  f.backend = backend;
  f.calls = calls;
  f.descriptor = std::string(static_cast<size_t>(calls), 'x');
  return f;
}

std::string status_of(const FindingsStore& store, const std::string& signature) {
  const std::optional<StoredFinding> f = store.find(signature);
  return f ? f->status : "absent";
}

// Makes a store of schema 4 or older again: the runs' life (schema 5) undone.
constexpr const char* kDropRunLife =
    "ALTER TABLE runs DROP COLUMN status; ALTER TABLE runs DROP COLUMN stopped; "
    "ALTER TABLE runs DROP COLUMN updated; ALTER TABLE runs DROP COLUMN owner; "
    "ALTER TABLE runs DROP COLUMN resume; ";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(FindingsStoreTest, AFindingIsNewThenOpenThenFixedThenRegressed) {
  FindingsStore store = FindingsStore::open(path());
  const StoreRun run = run_of({"max", "sum"}, {"reference", "optimized"});
  StoreDelta d1 = store.record(run, {finding("max:optimized:value", 5)});
  EXPECT_EQ(d1.fresh, std::vector<std::string>{"max:optimized:value"});
  EXPECT_EQ(d1.previous_run, 0);
  StoreDelta d2 = store.record(run, {finding("max:optimized:value", 3)});
  EXPECT_EQ(d2.open, std::vector<std::string>{"max:optimized:value"});
  EXPECT_EQ(d2.previous_run, d1.run);
  const StoredFinding open = *store.find("max:optimized");
  EXPECT_EQ(open.total_calls, 8);
  EXPECT_EQ(open.runs_seen, 2);
  EXPECT_EQ(open.descriptor, "xxx");  // the smallest repro so far
  StoreDelta d3 = store.record(run, {});
  EXPECT_EQ(d3.fixed, std::vector<std::string>{"max:optimized:value"});
  EXPECT_EQ(store.find("max:optimized:value")->fixed_run, d3.run);
  StoreDelta d4 = store.record(run, {finding("max:optimized:value", 1)});
  EXPECT_EQ(d4.regressed, std::vector<std::string>{"max:optimized:value"});
  EXPECT_EQ(store.sightings("max:optimized:value").size(), 3u);
  EXPECT_EQ(store.runs().size(), 4u);
}

TEST_F(FindingsStoreTest, OnlyARunThatComparedTheOperatorOnTheBackendFixesAFinding) {
  FindingsStore store = FindingsStore::open(path());
  store.record(run_of({"max"}, {"reference", "optimized"}), {finding("max:optimized:value", 1)});
  EXPECT_TRUE(store.record(run_of({"sum"}, {"reference", "optimized"}), {}).fixed.empty());
  EXPECT_TRUE(store.record(run_of({"max"}, {"reference", "cuda-host"}), {}).fixed.empty());
  EXPECT_EQ(status_of(store, "max:optimized:value"), "new");
  EXPECT_EQ(store.record(run_of({"max"}, {"reference", "optimized"}), {}).fixed.size(), 1u);
}

TEST_F(FindingsStoreTest, ShardsOfOneCampaignDoNotFixEachOthersFindings) {
  FindingsStore store = FindingsStore::open(path());
  const StoreRun night1 = run_of({"max"}, {"reference", "optimized"});
  store.record(night1, {finding("max:optimized:value", 1)});
  // Shard 2 commits first, without the finding; shard 1 then sees it: open, not regressed.
  const StoreRun shard = run_of({"max"}, {"reference", "optimized"}, "seed 7 in 2 shards");
  EXPECT_EQ(store.record(shard, {}).fixed.size(), 1u);
  EXPECT_EQ(store.record(shard, {finding("max:optimized:value", 2)}).open.size(), 1u);
  // The other order: a shard that saw it first is not undone by its sibling.
  const StoreRun next = run_of({"max"}, {"reference", "optimized"}, "seed 8 in 2 shards");
  store.record(next, {finding("max:optimized:value", 1)});
  EXPECT_TRUE(store.record(next, {}).fixed.empty());
  EXPECT_EQ(status_of(store, "max:optimized:value"), "open");
}

TEST_F(FindingsStoreTest, AKnownDifferenceIsExpected) {
  FindingsStore store = FindingsStore::open(path());
  StoreFinding f = finding("where:w:precision", 4, "where", "w");
  f.expected_by = "xfail.txt:3: where's precision with a 1-D condition";
  const StoreDelta d = store.record(run_of({"where"}, {"reference", "w"}), {f});
  EXPECT_EQ(d.expected, std::vector<std::string>{"where:w:precision"});
  EXPECT_EQ(store.find("where:w")->expected_by, f.expected_by);
}

TEST_F(FindingsStoreTest, ConcurrentWritersLoseNothing) {
  const std::string file = path();
  FindingsStore::open(file);
  constexpr int kWriters = 4, kRunsEach = 10;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        FindingsStore store = FindingsStore::open(file);
        for (int r = 0; r < kRunsEach; ++r) {
          store.record(run_of({"max"}, {"reference", "optimized"}, "writers"),
                       {finding("w" + std::to_string(w) + ":" + std::to_string(r), 1),
                        finding("shared", 1)});
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const FindingsStore store = FindingsStore::open(file);
  EXPECT_EQ(store.runs().size(), static_cast<size_t>(kWriters * kRunsEach));
  EXPECT_EQ(store.findings().size(), static_cast<size_t>(kWriters * kRunsEach + 1));
  EXPECT_EQ(store.find("shared")->total_calls, kWriters * kRunsEach);
}

TEST_F(FindingsStoreTest, AWriterKilledMidTransactionLeavesTheStoreAsItWas) {
  const std::string file = path();
  FindingsStore::open(file).record(run_of({"max"}, {"reference"}), {finding("kept", 1)});
  const pid_t pid = ::fork();
  if (pid == 0) {
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO runs(kind) VALUES('half');", nullptr, nullptr,
                 nullptr);
    ::kill(::getpid(), SIGKILL);  // dies holding the write lock, uncommitted
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  FindingsStore store = FindingsStore::open(file);
  EXPECT_EQ(store.runs().size(), 1u);
  store.record(run_of({"max"}, {"reference"}), {finding("kept", 1)});
  EXPECT_EQ(store.runs().size(), 2u);
}

TEST_F(FindingsStoreTest, ATruncatedStoreIsAClearErrorAndIsNotOverwritten) {
  const std::string file = path();
  {
    FindingsStore store = FindingsStore::open(file);
    for (int r = 0; r < 50; ++r) {
      store.record(run_of({"max"}, {"reference"}), {finding(std::string(200, 'a' + r % 26) +
                                                            std::to_string(r), 40)});
    }
  }
  // Fold the WAL into the main file, then cut it in half.
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;", nullptr,
               nullptr, nullptr);
  sqlite3_close(db);
  fs::resize_file(file, fs::file_size(file) / 2);
  const std::string before = read_file(file);
  try {
    FindingsStore::open(file);
    ADD_FAILURE() << "a truncated store opened";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(file), before);
}

TEST_F(FindingsStoreTest, ForeignAndNewerFilesAreRefusedUntouched) {
  const std::string text = path("notes.txt");
  std::ofstream(text) << "not a database, and long enough to be read as one's header...........\n";
  EXPECT_THROW(FindingsStore::open(text), RuntimeError);
  EXPECT_EQ(read_file(text).substr(0, 14), "not a database");

  const std::string foreign = path("other.sqlite");
  sqlite3* db = nullptr;
  sqlite3_open(foreign.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    FindingsStore::open(foreign);
    ADD_FAILURE() << "a foreign SQLite file opened";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("not a cvmcheck findings store"), std::string::npos);
  }

  const std::string newer = path();
  FindingsStore::open(newer).record(run_of({"max"}, {"reference"}), {});
  sqlite3_open(newer.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 99;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    FindingsStore::open(newer);
    ADD_FAILURE() << "a store of a newer schema opened";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

// What cvmcheck bisect found is kept with the finding, also in a store made before culprits and
// run sources were (schema 1), which gains them when opened; a culprit for no finding is refused.
TEST_F(FindingsStoreTest, ABisectsCulpritIsKeptWithTheFindingAlsoInAnOldStore) {
  const std::string file = path();
  const std::string sig = "max|optimized|value|output 0";
  FindingsStore::open(file).record(run_of({"max"}, {"optimized"}), {finding(sig, 3)});
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_exec(db, (std::string(kDropRunLife) + "DROP TABLE culprits; DROP TABLE fixes; "
                   "ALTER TABLE runs DROP COLUMN source; PRAGMA user_version = 1;").c_str(),
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  FindingsStore store = FindingsStore::open(file);
  EXPECT_TRUE(store.find(sig)->culprit.bisected.empty());
  EXPECT_EQ(store.runs().front().run.source, "");
  store.record_culprit(sig, {"abc123", "", "present since the operator was added", "r.json",
                             "2026-11-26T00:00:00Z"});
  store.record_culprit(sig, {"abc123", "def456", "", "r.json", "2026-11-27T00:00:00Z"});
  const StoreCulprit c = store.find(sig)->culprit;
  EXPECT_EQ(c.introduced, "abc123");
  EXPECT_EQ(c.fixed, "def456");
  EXPECT_EQ(c.note, "");
  EXPECT_EQ(c.bisected, "2026-11-27T00:00:00Z");
  EXPECT_EQ(store.findings().front().culprit.fixed, "def456");
  EXPECT_THROW(store.record_culprit("sum|optimized|value|output 0", c), RuntimeError);
}

// A finding's life as the report page reads it: every sighting and every fix by run, also a
// fix before a regression (the finding keeps only its last); a store made before fixes were kept
// (schema 3) gains each finding's last fix when opened.
TEST_F(FindingsStoreTest, EveryFixIsAnEventAlsoBeforeARegression) {
  const std::string file = path();
  const StoreRun run = run_of({"max"}, {"optimized"});
  const std::string sig = "max|optimized|value|output 0";
  {
    FindingsStore store = FindingsStore::open(file);
    store.record(run, {finding(sig, 2)});
    store.record(run, {});
    store.record(run, {finding(sig, 4)});
    store.record(run, {});
    std::vector<std::string> life;
    for (const StoredEvent& e : store.events()) {
      EXPECT_EQ(e.signature, sig);
      life.push_back(std::to_string(e.run) + " " + e.status + " " + std::to_string(e.calls));
    }
    EXPECT_EQ(life, (std::vector<std::string>{"1 new 2", "2 fixed 0", "3 regressed 4",
                                              "4 fixed 0"}));
  }
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_exec(db, (std::string(kDropRunLife) + "DROP TABLE fixes; PRAGMA user_version = 3;")
                       .c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const std::vector<StoredEvent> migrated = FindingsStore::open(file).events();
  ASSERT_EQ(migrated.size(), 3u);
  EXPECT_EQ(migrated.back().run, 4);
  EXPECT_EQ(migrated.back().status, "fixed");
}

// The campaign end to end: a bug planted in a built-in backend's kernel is new, then open with
// its calls added, then fixed once the kernel is right again.
TEST_F(FindingsStoreTest, APlantedBugIsNewThenOpenThenFixed) {
  const Registry buggy = testing::with_planted_kernel("planted-max-clamps-at-zero", "optimized");
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 150;
  options.ops = {"max"};
  options.backends = {"optimized"};
  options.shrink_seconds = 0;
  FindingsStore store = FindingsStore::open(path());
  const auto night = [&](const Registry& r, uint64_t seed) {
    options.seed = seed;
    const CampaignResult result = run_campaign(r, options);
    return store.record(campaign_store_run(result, StoreRun{}), campaign_store_findings(result));
  };
  const StoreDelta first = night(buggy, 1);
  ASSERT_FALSE(first.fresh.empty());
  const std::string signature = first.fresh.front();
  const int64_t calls_first = store.find(signature)->total_calls;
  const StoreDelta second = night(buggy, 2);
  EXPECT_NE(std::find(second.open.begin(), second.open.end(), signature), second.open.end());
  EXPECT_GT(store.find(signature)->total_calls, calls_first);
  const StoreDelta third = night(registry(), 3);
  EXPECT_NE(std::find(third.fixed.begin(), third.fixed.end(), signature), third.fixed.end());
  EXPECT_EQ(status_of(store, signature), "fixed");
}

// A campaign.json read back (a shard's, or the merge of a sharded nightly) records as the campaign
// itself did: the same findings, the same coverage.
TEST_F(FindingsStoreTest, ACampaignReportRecordsAsTheCampaignItself) {
  const Registry buggy = testing::with_planted_kernel("planted-max-clamps-at-zero", "optimized");
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 150;
  options.ops = {"max", "sum"};
  options.backends = {"optimized"};
  options.shrink_seconds = 0;
  options.seed = 4;
  CampaignResult result = run_campaign(buggy, options);
  result.commit = "abc";
  const CampaignResult read = campaign_from_json(nlohmann::json::parse(campaign_json(result)));
  EXPECT_EQ(read.commit, "abc");
  const StoreRun direct = campaign_store_run(result, StoreRun{});
  const StoreRun replayed = campaign_store_run(read, StoreRun{});
  EXPECT_EQ(replayed.ops, direct.ops);
  EXPECT_EQ(replayed.backends, direct.backends);
  ASSERT_FALSE(result.findings.empty());
  FindingsStore store = FindingsStore::open(path());
  const StoreDelta d = store.record(replayed, campaign_store_findings(read));
  EXPECT_EQ(d.fresh.size(), result.findings.size());
  EXPECT_EQ(store.find(result.findings[0].key)->total_calls, result.findings[0].calls);
  EXPECT_THROW(campaign_from_json(nlohmann::json::parse(R"({"seed": 1})")), LogicError);
}

}  // namespace
}  // namespace cvm
