// The findings store (docs/nightly.md): an SQLite file that remembers every run and every finding
// by its signature across runs, so that a nightly says what is new since last night, what is still
// open, what was fixed and what came back. Each report is one transaction; the file is in WAL mode
// with a busy timeout, so jobs, shards and separate processes may write it concurrently.
//
// A finding's status after a run:
//   new        first seen in this run;
//   open       seen before and again in this run;
//   expected   every failing call of it is a known difference (an expected-failure entry);
//   fixed      seen before, not seen by a later run that compared its operator on its backend
//              (an expected finding stays expected: a random run not drawing it proves nothing);
//   regressed  seen again after it was fixed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace cvm {

// What a run reports about itself.
struct StoreRun {
  std::string kind = "campaign";  // campaign, golden, fuzz
  std::string commit, version, cpu_features, started;  // started: ISO 8601, UTC
  // Runs of one group (the shards of one sharded campaign) never mark each other's findings fixed.
  std::string group;
  uint64_t seed = 0;
  double seconds = 0;
  int64_t calls = 0;
  // What the run compared (decides what it can fix); the reference's findings only by a run
  // listing "reference" among its backends.
  std::vector<std::string> backends, ops;
  std::string source;  // what it replayed: a golden suite's directory, a fuzz artifact; "" none
  // Its life (FindingsStore::begin): "running" from its start, "complete", or "interrupted" with
  // `stopped` saying why ("signal:SIGTERM"; "killed" for a run whose process vanished without
  // finishing it); `updated`: the time (ISO 8601, UTC) of its last checkpoint; `owner`: the
  // host and process (host:pid) that records it.
  std::string status = "complete", stopped, updated, owner;
  // A campaign's state at its last checkpoint, to go on from there (`campaign --resume`): JSON,
  // CampaignResult::resume_state; "" for other runs.
  std::string resume;
};

// What a run reports about one finding.
struct StoreFinding {
  std::string signature, op, backend, summary;
  std::string descriptor;  // the (shrunk) call descriptor; the shortest so far is kept
  std::string repro_dir;
  int64_t calls = 0;
  std::string expected_by;  // non-empty: a known difference ("FILE:LINE: reason")
};

// What `cvmcheck bisect` found for a finding (docs/bisect.md).
struct StoreCulprit {
  std::string introduced;  // the first bad commit; "" when the bisect could not name one
  std::string fixed;       // the first commit without it; "" while it still reproduces
  std::string note;        // what a reader must know, e.g. "present since the operator was added"
  std::string report;      // the bisect's JSON report
  std::string bisected;    // when, ISO 8601, UTC; "" for a finding never bisected
};

// A finding as the store holds it.
struct StoredFinding {
  std::string signature, op, backend, status, summary, descriptor, repro_dir, expected_by;
  int64_t first_run = 0, last_run = 0, fixed_run = 0, runs_seen = 0, total_calls = 0;
  std::string first_commit, last_commit, fixed_commit;
  StoreCulprit culprit;
};

struct StoredRun {
  int64_t id = 0;
  StoreRun run;
  int64_t findings = 0;
};

// One finding's calls in one run.
struct StoredSighting {
  int64_t run = 0, calls = 0;
  std::string commit, status;
};

// What one run did to one finding: saw it (its status after the run: new, open, expected,
// regressed; with its calls) or marked it fixed (calls 0).
struct StoredEvent {
  std::string signature;
  int64_t run = 0, calls = 0;
  std::string status;
};

// What a recorded run changed: signatures by their status after it.
struct StoreDelta {
  int64_t run = 0, previous_run = 0;  // previous_run: the last run before it (0: none)
  std::string previous_commit;
  std::vector<std::string> fresh, open, expected, fixed, regressed;
};

class FindingsStore {
 public:
  // Opens (creating when absent) the store at `path`. RuntimeError, and the file left as it was,
  // when it is not an SQLite file, not a cvmcheck store, from a newer schema, or locked too long.
  static FindingsStore open(const std::string& path);
  FindingsStore(FindingsStore&&) noexcept;
  FindingsStore& operator=(FindingsStore&&) noexcept;
  ~FindingsStore();

  // Records a run and its findings in one transaction and returns what it changed.
  StoreDelta record(const StoreRun& run, const std::vector<StoreFinding>& findings);

  // A run's life, so that a run killed on the way leaves what it found (docs/nightly.md, "A
  // stopped or killed run"). begin() records it as running (owner: this process) and returns its
  // id; checkpoint() records its findings so far, each with the run's calls so far (replacing the
  // last checkpoint's, never adding to them); finish() records the last of them and the run's end:
  // complete, or interrupted when run.stopped says why (a run cut short marks nothing fixed: it
  // proves less than it was asked to), and returns what the run changed. Each is one transaction.
  int64_t begin(const StoreRun& run);
  void checkpoint(int64_t id, const StoreRun& run, const std::vector<StoreFinding>& findings);
  StoreDelta finish(int64_t id, const StoreRun& run, const std::vector<StoreFinding>& findings);
  // The runs left running by a process of this host that is gone (killed, out of memory, a power
  // cut): marked interrupted ("killed") and returned, their `updated` the last checkpoint's time.
  // Their findings stay as the last checkpoint left them, so a later run finds them open.
  std::vector<StoredRun> close_abandoned();

  std::vector<StoredFinding> findings() const;  // every finding, the latest seen first
  // The finding whose signature is `key` or starts with it (RuntimeError when ambiguous).
  std::optional<StoredFinding> find(const std::string& key) const;
  std::vector<StoredSighting> sightings(const std::string& signature) const;
  std::vector<StoredRun> runs() const;  // oldest first
  // Every sighting and every fix of every finding, by run (oldest first), then signature.
  std::vector<StoredEvent> events() const;
  // Signatures seen in run `id`.
  std::vector<std::string> run_signatures(int64_t id) const;
  // Records (replacing) what a bisect found for the finding `signature`; RuntimeError when the
  // store has no such finding.
  void record_culprit(const std::string& signature, const StoreCulprit& culprit);
  const std::string& path() const { return path_; }

  static constexpr int kSchemaVersion = 5;

 private:
  FindingsStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cvm
