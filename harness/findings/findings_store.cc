#include "harness/findings/findings_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "cvmcheck/errors.h"
#include "harness/findings/findings_store_detail.h"
#include "harness/findings/sqlite_statement.h"

namespace cvm {
namespace {

// "CVMC": marks the file as ours, so that a foreign SQLite file is refused, never altered.
constexpr int kApplicationId = 0x43564d43;

// Statements creating each schema version from the one before (index 0: from an empty file).
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, started TEXT, commit_id TEXT, version TEXT,
  cpu_features TEXT, run_group TEXT, seed TEXT, seconds REAL, calls INTEGER,
  backends TEXT, ops TEXT);
CREATE TABLE findings(
  signature TEXT PRIMARY KEY, op TEXT, backend TEXT, status TEXT NOT NULL, summary TEXT,
  descriptor TEXT, repro_dir TEXT, expected_by TEXT, first_run INTEGER, last_run INTEGER,
  fixed_run INTEGER, total_calls INTEGER NOT NULL DEFAULT 0, last_group TEXT, fixed_group TEXT);
CREATE TABLE sightings(
  signature TEXT NOT NULL, run INTEGER NOT NULL, calls INTEGER NOT NULL, status TEXT,
  PRIMARY KEY(signature, run));
CREATE INDEX sightings_by_run ON sightings(run);
)sql",
    R"sql(
CREATE TABLE culprits(
  signature TEXT PRIMARY KEY, introduced TEXT, fixed TEXT, note TEXT, report TEXT, bisected TEXT);
)sql",
    R"sql(
ALTER TABLE runs ADD COLUMN source TEXT;
)sql",
    // Every run that marked a finding fixed (findings.fixed_run keeps only the last), so that a
    // finding's life reads fixed, regressed, fixed again; the last fix of each is known already.
    R"sql(
CREATE TABLE fixes(signature TEXT NOT NULL, run INTEGER NOT NULL, PRIMARY KEY(signature, run));
INSERT INTO fixes(signature, run) SELECT signature, fixed_run FROM findings
  WHERE fixed_run IS NOT NULL;
)sql",
    // A run is recorded when it starts (status running) and its findings as they come, so a run
    // killed on the way leaves what it found; owner (host:pid) tells a later run whether its
    // process is gone; updated: the time of its last checkpoint. Older runs are complete.
    R"sql(
ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';
ALTER TABLE runs ADD COLUMN stopped TEXT;
ALTER TABLE runs ADD COLUMN updated TEXT;
ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN resume TEXT;
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == FindingsStore::kSchemaVersion);

}  // namespace

namespace store_detail {

std::string join_list(const std::vector<std::string>& items) {
  std::string text = ",";
  for (const std::string& item : items) text += item + ",";
  return text;
}

}  // namespace store_detail

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text) {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      items.push_back(std::move(item));
      item.clear();
    }
  }
  if (!item.empty()) items.push_back(item);
  return items;
}

// Brings the file to the current schema inside one write transaction, so that two processes
// opening a new store at once create it once.
void migrate(sqlite3* db, const std::string& path) {
  Transaction tx(db, path);
  const int64_t app = Statement(db, path, "PRAGMA application_id").single_int();
  const int64_t version = Statement(db, path, "PRAGMA user_version").single_int();
  const int64_t tables =
      Statement(db, path, "SELECT count(*) FROM sqlite_master").single_int();
  if (app != kApplicationId && (app != 0 || tables != 0)) {
    throw RuntimeError(concat(path, ": not a cvmcheck findings store (an SQLite file of another "
                              "application); give --store another path"));
  }
  if (version > FindingsStore::kSchemaVersion) {
    throw RuntimeError(concat(path, ": findings store of schema ", version, ", newer than this "
                              "cvmcheck reads (", FindingsStore::kSchemaVersion,
                              "): use a newer cvmcheck"));
  }
  for (int64_t v = version; v < FindingsStore::kSchemaVersion; ++v) {
    exec_sql(db, path, kMigrations[v]);
  }
  if (version < FindingsStore::kSchemaVersion) {
    exec_sql(db, path, concat("PRAGMA application_id = ", kApplicationId));
    exec_sql(db, path, concat("PRAGMA user_version = ", FindingsStore::kSchemaVersion));
  }
  tx.commit();
}

}  // namespace

namespace store_detail {

Prior prior_of(sqlite3* db, const std::string& path, const std::string& signature) {
  Statement q(db, path, "SELECT status, fixed_group, last_run FROM findings WHERE signature = ?");
  q.bind(1, signature);
  Prior prior;
  if (q.step()) {
    prior.exists = true;
    prior.status = q.text(0);
    prior.fixed_group = q.text(1);
    prior.last_run = q.integer(2);
  }
  return prior;
}

std::string next_status(const Prior& prior, const StoreFinding& f, int64_t run_id,
                        const std::string& group) {
  if (!f.expected_by.empty()) return "expected";
  if (!prior.exists) return "new";
  if (prior.last_run == run_id) return prior.status;  // a second report of it in this run
  if (prior.status == "fixed") {
    // Marked fixed by a sibling shard that did not happen to draw it: still open.
    return !group.empty() && prior.fixed_group == group ? "open" : "regressed";
  }
  return "open";
}

// The descriptor kept for a finding: the shortest non-empty one seen.
constexpr const char* kUpsertFinding = R"sql(
INSERT INTO findings(signature, op, backend, status, summary, descriptor, repro_dir, expected_by,
                     first_run, last_run, total_calls, last_group)
VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11)
ON CONFLICT(signature) DO UPDATE SET
  status = ?4, last_run = ?9, total_calls = total_calls + ?10, last_group = ?11,
  expected_by = ?8, fixed_run = NULL, fixed_group = NULL,
  summary = CASE WHEN ?6 <> '' AND (descriptor IS NULL OR descriptor = ''
                 OR length(?6) < length(descriptor)) THEN ?5 ELSE summary END,
  repro_dir = CASE WHEN ?6 <> '' AND (descriptor IS NULL OR descriptor = ''
                   OR length(?6) < length(descriptor)) THEN ?7 ELSE repro_dir END,
  descriptor = CASE WHEN ?6 <> '' AND (descriptor IS NULL OR descriptor = ''
                    OR length(?6) < length(descriptor)) THEN ?6 ELSE descriptor END
)sql";

void record_sighting(sqlite3* db, const std::string& path, const StoreFinding& f,
                     const std::string& status, int64_t run_id, const std::string& group) {
  Statement up(db, path, kUpsertFinding);
  up.bind(1, f.signature).bind(2, f.op).bind(3, f.backend).bind(4, status).bind(5, f.summary);
  up.bind(6, f.descriptor).bind(7, f.repro_dir).bind(8, f.expected_by).bind(9, run_id);
  up.bind(10, f.calls).bind(11, group);
  up.run();
  Statement seen(db, path, R"sql(
INSERT INTO sightings(signature, run, calls, status) VALUES(?1, ?2, ?3, ?4)
ON CONFLICT(signature, run) DO UPDATE SET calls = calls + ?3, status = ?4)sql");
  seen.bind(1, f.signature).bind(2, run_id).bind(3, f.calls).bind(4, status);
  seen.run();
}

// A finding last seen by a run of the same group is left alone.
std::vector<std::string> mark_fixed(sqlite3* db, const std::string& path, const StoreRun& run,
                                    int64_t run_id) {
  const std::set<std::string> ops(run.ops.begin(), run.ops.end());
  const std::set<std::string> backends(run.backends.begin(), run.backends.end());
  Statement q(db, path, R"sql(
SELECT signature, op, backend, last_group FROM findings
WHERE status IN ('new', 'open', 'regressed') AND last_run <> ?1)sql");
  q.bind(1, run_id);
  std::vector<std::string> fixed;
  while (q.step()) {
    // The reference's own findings need a run of the reference (a golden verify of another
    // backend replays stored outcomes and runs no reference).
    const bool covered = ops.count(q.text(1)) != 0 && backends.count(q.text(2)) != 0;
    const bool sibling = !run.group.empty() && q.text(3) == run.group;
    if (covered && !sibling) fixed.push_back(q.text(0));
  }
  for (const std::string& signature : fixed) {
    Statement up(db, path, "UPDATE findings SET status = 'fixed', fixed_run = ?2, "
                           "fixed_group = ?3 WHERE signature = ?1");
    up.bind(1, signature).bind(2, run_id).bind(3, run.group);
    up.run();
    Statement fix(db, path, "INSERT OR IGNORE INTO fixes(signature, run) VALUES(?1, ?2)");
    fix.bind(1, signature).bind(2, run_id);
    fix.run();
  }
  return fixed;
}

int64_t insert_run(sqlite3* db, const std::string& path, const StoreRun& run,
                   const std::string& status) {
  Statement ins(db, path, R"sql(
INSERT INTO runs(kind, started, commit_id, version, cpu_features, run_group, seed, seconds, calls,
                 backends, ops, source, status, stopped, updated, owner, resume)
VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17))sql");
  ins.bind(1, run.kind).bind(2, run.started).bind(3, run.commit).bind(4, run.version);
  ins.bind(5, run.cpu_features).bind(6, run.group).bind(7, std::to_string(run.seed));
  ins.bind(8, run.seconds).bind(9, run.calls).bind(10, join_list(run.backends));
  ins.bind(11, join_list(run.ops)).bind(12, run.source).bind(13, status).bind(14, run.stopped);
  ins.bind(15, run.updated).bind(16, run.owner).bind(17, run.resume);
  ins.run();
  return sqlite3_last_insert_rowid(db);
}

}  // namespace store_detail

namespace {

StoredFinding finding_from(Statement& q) {
  StoredFinding f;
  f.signature = q.text(0);
  f.op = q.text(1);
  f.backend = q.text(2);
  f.status = q.text(3);
  f.summary = q.text(4);
  f.descriptor = q.text(5);
  f.repro_dir = q.text(6);
  f.expected_by = q.text(7);
  f.first_run = q.integer(8);
  f.last_run = q.integer(9);
  f.fixed_run = q.integer(10);
  f.total_calls = q.integer(11);
  f.runs_seen = q.integer(12);
  f.first_commit = q.text(13);
  f.last_commit = q.text(14);
  f.fixed_commit = q.text(15);
  f.culprit = {q.text(16), q.text(17), q.text(18), q.text(19), q.text(20)};
  return f;
}

constexpr const char* kSelectFindings = R"sql(
SELECT f.signature, f.op, f.backend, f.status, f.summary, f.descriptor, f.repro_dir,
       f.expected_by, f.first_run, f.last_run, f.fixed_run, f.total_calls,
       (SELECT count(*) FROM sightings s WHERE s.signature = f.signature),
       (SELECT commit_id FROM runs WHERE id = f.first_run),
       (SELECT commit_id FROM runs WHERE id = f.last_run),
       (SELECT commit_id FROM runs WHERE id = f.fixed_run),
       c.introduced, c.fixed, c.note, c.report, c.bisected
FROM findings f LEFT JOIN culprits c ON c.signature = f.signature)sql";

}  // namespace

FindingsStore FindingsStore::open(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ignored;  // a directory that cannot be made is reported by the open below
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                 nullptr);
  FindingsStore store(db, path);  // closes `db` on every path out
  if (rc != SQLITE_OK) {
    throw RuntimeError(concat(path, ": cannot open the findings store: ",
                              db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  // Concurrent writers (jobs, shards, separate runs) wait for each other rather than fail.
  sqlite3_busy_timeout(db, 60000);
  migrate(db, path);
  const std::string check = Statement(db, path, "PRAGMA quick_check").single_text();
  if (check != "ok") throw RuntimeError(concat(path, ": the findings store is damaged: ", check));
  exec_sql(db, path, "PRAGMA journal_mode = WAL");
  return store;
}

FindingsStore::FindingsStore(FindingsStore&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

FindingsStore& FindingsStore::operator=(FindingsStore&& other) noexcept {
  std::swap(db_, other.db_);
  std::swap(path_, other.path_);
  return *this;
}

FindingsStore::~FindingsStore() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

StoreDelta FindingsStore::record(const StoreRun& run, const std::vector<StoreFinding>& findings) {
  Transaction tx(db_, path_);
  StoreDelta delta;
  Statement last(db_, path_, "SELECT id, commit_id FROM runs ORDER BY id DESC LIMIT 1");
  if (last.step()) {
    delta.previous_run = last.integer(0);
    delta.previous_commit = last.text(1);
  }
  const bool complete = run.stopped.empty();
  delta.run = store_detail::insert_run(db_, path_, run, complete ? "complete" : "interrupted");
  for (const StoreFinding& f : findings) {
    const store_detail::Prior prior = store_detail::prior_of(db_, path_, f.signature);
    const std::string status = store_detail::next_status(prior, f, delta.run, run.group);
    store_detail::record_sighting(db_, path_, f, status, delta.run, run.group);
    if (prior.exists && prior.last_run == delta.run) continue;
    if (status == "new") delta.fresh.push_back(f.signature);
    if (status == "open") delta.open.push_back(f.signature);
    if (status == "expected") delta.expected.push_back(f.signature);
    if (status == "regressed") delta.regressed.push_back(f.signature);
  }
  // A run cut short proves less than it was asked to: it fixes nothing.
  if (complete) delta.fixed = store_detail::mark_fixed(db_, path_, run, delta.run);
  tx.commit();
  return delta;
}

std::vector<StoredFinding> FindingsStore::findings() const {
  Statement q(db_, path_, std::string(kSelectFindings) + " ORDER BY f.last_run DESC, f.signature");
  std::vector<StoredFinding> out;
  while (q.step()) out.push_back(finding_from(q));
  return out;
}

std::optional<StoredFinding> FindingsStore::find(const std::string& key) const {
  Statement q(db_, path_, std::string(kSelectFindings) +
                              " WHERE f.signature = ?1 OR substr(f.signature, 1, length(?1)) = ?1"
                              " ORDER BY f.signature = ?1 DESC LIMIT 2");
  q.bind(1, key);
  if (!q.step()) return std::nullopt;
  StoredFinding first = finding_from(q);
  if (first.signature != key && q.step()) {
    throw RuntimeError(concat("'", key, "' names more than one finding (", first.signature,
                              ", ", q.text(0), ", ...): give more of the signature"));
  }
  return first;
}

std::vector<StoredSighting> FindingsStore::sightings(const std::string& signature) const {
  Statement q(db_, path_, "SELECT s.run, s.calls, r.commit_id, s.status FROM sightings s "
                          "JOIN runs r ON r.id = s.run WHERE s.signature = ? ORDER BY s.run");
  q.bind(1, signature);
  std::vector<StoredSighting> out;
  while (q.step()) out.push_back({q.integer(0), q.integer(1), q.text(2), q.text(3)});
  return out;
}

std::vector<StoredRun> FindingsStore::runs() const {
  Statement q(db_, path_, R"sql(
SELECT id, kind, started, commit_id, version, cpu_features, run_group, seed, seconds, calls,
       backends, ops, (SELECT count(*) FROM sightings s WHERE s.run = runs.id), source,
       status, stopped, updated, owner, resume
FROM runs ORDER BY id)sql");
  std::vector<StoredRun> out;
  while (q.step()) {
    StoredRun r;
    r.id = q.integer(0);
    r.run.kind = q.text(1);
    r.run.started = q.text(2);
    r.run.commit = q.text(3);
    r.run.version = q.text(4);
    r.run.cpu_features = q.text(5);
    r.run.group = q.text(6);
    r.run.seed = std::stoull("0" + q.text(7));
    r.run.seconds = q.real(8);
    r.run.calls = q.integer(9);
    r.run.backends = split_list(q.text(10));
    r.run.ops = split_list(q.text(11));
    r.findings = q.integer(12);
    r.run.source = q.text(13);
    r.run.status = q.text(14);
    r.run.stopped = q.text(15);
    r.run.updated = q.text(16);
    r.run.owner = q.text(17);
    r.run.resume = q.text(18);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<StoredEvent> FindingsStore::events() const {
  Statement q(db_, path_, R"sql(
SELECT signature, run, calls, status FROM sightings
UNION ALL SELECT signature, run, 0, 'fixed' FROM fixes
ORDER BY 2, 1, 4)sql");
  std::vector<StoredEvent> out;
  while (q.step()) out.push_back({q.text(0), q.integer(1), q.integer(2), q.text(3)});
  return out;
}

std::vector<std::string> FindingsStore::run_signatures(int64_t id) const {
  Statement q(db_, path_, "SELECT signature FROM sightings WHERE run = ? ORDER BY signature");
  q.bind(1, id);
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.text(0));
  return out;
}

void FindingsStore::record_culprit(const std::string& signature, const StoreCulprit& culprit) {
  Transaction tx(db_, path_);
  Statement known(db_, path_, "SELECT count(*) FROM findings WHERE signature = ?");
  known.bind(1, signature);
  check(known.single_int() == 1, path_, ": no finding '", signature, "' to record a culprit for");
  Statement up(db_, path_, R"sql(
INSERT INTO culprits(signature, introduced, fixed, note, report, bisected)
VALUES(?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT(signature) DO UPDATE SET introduced = ?2, fixed = ?3, note = ?4, report = ?5,
                                     bisected = ?6)sql");
  up.bind(1, signature).bind(2, culprit.introduced).bind(3, culprit.fixed).bind(4, culprit.note);
  up.bind(5, culprit.report).bind(6, culprit.bisected);
  up.run();
  tx.commit();
}

}  // namespace cvm
