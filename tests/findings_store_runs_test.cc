// A run's life in the findings store (FindingsStore::begin, checkpoint, finish, close_abandoned):
// a run is recorded from its start, its findings as they come, so that a run whose process died
// leaves them, and the next run reports it as interrupted and its findings as open, not new.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cvmcheck/errors.h"
#include "harness/findings/findings_store.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

class StoreRunLifeTest : public testing::TempDirTest {
 protected:
  StoreRunLifeTest() : TempDirTest("cvmcheck-store-life") {}
  std::string path() const { return (dir_ / "findings.sqlite").string(); }
};

StoreRun max_run() {
  StoreRun run;
  run.commit = "c0ffee";
  run.ops = {"max"};
  run.backends = {"reference", "optimized"};
  return run;
}

StoreFinding max_finding(int64_t calls) {
  StoreFinding f;
  f.signature = "max|optimized|value|output 0";
  f.op = "max";
  f.backend = "optimized";
  f.calls = calls;
  f.descriptor = "max(x)";
  return f;
}

StoredRun run_with_id(const FindingsStore& store, int64_t id) {
  for (const StoredRun& r : store.runs()) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "no run " << id;
  return {};
}

// A process id that no process has (a child that has exited and been reaped).
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

void set_owner(const std::string& file, int64_t id, const std::string& owner) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "UPDATE runs SET owner = '" + owner + "' WHERE id = " + std::to_string(id) + ";";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

std::string host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// Checkpoints carry the run's calls so far: each call is counted once, however many there were.
TEST_F(StoreRunLifeTest, CheckpointsCountEachCallOnce) {
  FindingsStore store = FindingsStore::open(path());
  const int64_t id = store.begin(max_run());
  EXPECT_EQ(run_with_id(store, id).run.status, "running");
  store.checkpoint(id, max_run(), {max_finding(3)});
  store.checkpoint(id, max_run(), {max_finding(5)});
  EXPECT_EQ(store.find("max|optimized")->total_calls, 5);
  EXPECT_EQ(store.find("max|optimized")->status, "new");
  const StoreDelta delta = store.finish(id, max_run(), {max_finding(7)});
  EXPECT_EQ(delta.run, id);
  EXPECT_EQ(delta.fresh, std::vector<std::string>{"max|optimized|value|output 0"});
  EXPECT_EQ(store.find("max|optimized")->total_calls, 7);
  ASSERT_EQ(store.sightings("max|optimized|value|output 0").size(), 1u);
  EXPECT_EQ(store.sightings("max|optimized|value|output 0")[0].calls, 7);
  EXPECT_EQ(run_with_id(store, id).run.status, "complete");
  // A finished run takes no more checkpoints.
  EXPECT_THROW(store.checkpoint(id, max_run(), {}), RuntimeError);
}

// A run a signal stopped is interrupted, keeps its findings, and fixes nothing: a run cut short
// proves less than it was asked to.
TEST_F(StoreRunLifeTest, AnInterruptedRunKeepsItsFindingsAndFixesNothing) {
  FindingsStore store = FindingsStore::open(path());
  store.record(max_run(), {max_finding(2)});
  StoreRun stopped = max_run();
  stopped.stopped = "signal:SIGTERM";
  const int64_t id = store.begin(stopped);
  const StoreDelta delta = store.finish(id, stopped, {});
  EXPECT_TRUE(delta.fixed.empty());
  EXPECT_EQ(store.find("max|optimized")->status, "new");
  const StoredRun r = run_with_id(store, id);
  EXPECT_EQ(r.run.status, "interrupted");
  EXPECT_EQ(r.run.stopped, "signal:SIGTERM");
  // The same run complete fixes it.
  const int64_t next = store.begin(max_run());
  EXPECT_EQ(store.finish(next, max_run(), {}).fixed.size(), 1u);
}

// A run whose process is gone (SIGKILL, OOM, power cut) is found by the next one: interrupted at
// its last checkpoint, its findings kept, and the next run sees them as open, not new. A run of a
// process that is still there (this one) is left running.
TEST_F(StoreRunLifeTest, ARunWhoseProcessIsGoneIsInterruptedAndItsFindingsAreOpen) {
  const int64_t killed = [&] {
    FindingsStore store = FindingsStore::open(path());
    const int64_t id = store.begin(max_run());
    store.checkpoint(id, max_run(), {max_finding(4)});
    return id;
  }();
  FindingsStore store = FindingsStore::open(path());
  EXPECT_TRUE(store.close_abandoned().empty());  // its owner, this process, is alive
  EXPECT_EQ(run_with_id(store, killed).run.status, "running");
  set_owner(path(), killed, "another-host:1");
  EXPECT_TRUE(store.close_abandoned().empty());  // another host's run may still be running
  set_owner(path(), killed, host() + ":" + std::to_string(dead_pid()));
  const std::vector<StoredRun> gone = store.close_abandoned();
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].id, killed);
  EXPECT_EQ(gone[0].run.status, "interrupted");
  EXPECT_EQ(gone[0].run.stopped, "killed");
  EXPECT_EQ(gone[0].findings, 1);
  EXPECT_FALSE(gone[0].run.updated.empty());
  EXPECT_TRUE(store.close_abandoned().empty());  // reported once
  const int64_t next = store.begin(max_run());
  const StoreDelta delta = store.finish(next, max_run(), {max_finding(1)});
  EXPECT_TRUE(delta.fresh.empty());
  EXPECT_EQ(delta.open, std::vector<std::string>{"max|optimized|value|output 0"});
  EXPECT_EQ(store.find("max|optimized")->total_calls, 5);
}

// A store older than the runs' life (schema 4) keeps its runs, complete.
TEST_F(StoreRunLifeTest, AnOlderStoresRunsAreComplete) {
  FindingsStore::open(path()).record(max_run(), {max_finding(1)});
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN status; ALTER TABLE runs DROP COLUMN stopped; "
               "ALTER TABLE runs DROP COLUMN updated; ALTER TABLE runs DROP COLUMN owner; "
               "ALTER TABLE runs DROP COLUMN resume; PRAGMA user_version = 4;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  FindingsStore store = FindingsStore::open(path());
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].run.status, "complete");
  EXPECT_TRUE(store.close_abandoned().empty());
}

}  // namespace
}  // namespace cvm
