// A run's life in the findings store: begun (running), checkpointed, finished, or found abandoned
// by a later run (findings_store.h).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "cvmcheck/errors.h"
#include "harness/findings/findings_store.h"
#include "harness/findings/findings_store_detail.h"
#include "harness/findings/sqlite_statement.h"

namespace cvm {
namespace {

std::string store_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string this_owner() { return this_host() + ":" + std::to_string(::getpid()); }

// Whether `owner` (host:pid) names a process of this host that no longer exists. A run of
// another host, or one whose process is there, may still be running.
bool owner_gone(const std::string& owner) {
  const size_t colon = owner.rfind(':');
  if (colon == std::string::npos || owner.substr(0, colon) != this_host()) return false;
  const std::string pid_text = owner.substr(colon + 1);
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (pid_text.empty() || pid_text.size() > 9 ||
      !std::all_of(pid_text.begin(), pid_text.end(), digit)) {
    return false;
  }
  const auto pid = static_cast<pid_t>(std::stol(pid_text));
  return pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

void update_run_row(sqlite3* db, const std::string& path, int64_t id, const StoreRun& run,
                    const std::string& status) {
  Statement up(db, path, R"sql(
UPDATE runs SET seconds = ?2, calls = ?3, backends = ?4, ops = ?5, status = ?6, stopped = ?7,
                updated = ?8, resume = ?9 WHERE id = ?1)sql");
  up.bind(1, id).bind(2, run.seconds).bind(3, run.calls);
  up.bind(4, store_detail::join_list(run.backends)).bind(5, store_detail::join_list(run.ops));
  up.bind(6, status).bind(7, run.stopped).bind(8, store_time_now()).bind(9, run.resume);
  up.run();
}

// Records each finding's calls so far in run `id`: what the last checkpoint recorded of it is
// subtracted, so that the sighting and the finding's total count each call once.
void record_so_far(sqlite3* db, const std::string& path, int64_t id, const StoreRun& run,
                   const std::vector<StoreFinding>& findings) {
  for (const StoreFinding& f : findings) {
    Statement q(db, path, "SELECT calls FROM sightings WHERE signature = ?1 AND run = ?2");
    q.bind(1, f.signature).bind(2, id);
    const int64_t recorded = q.step() ? q.integer(0) : 0;
    StoreFinding more = f;
    more.calls = std::max<int64_t>(0, f.calls - recorded);
    const store_detail::Prior prior = store_detail::prior_of(db, path, f.signature);
    const std::string status = store_detail::next_status(prior, f, id, run.group);
    store_detail::record_sighting(db, path, more, status, id, run.group);
  }
}

void check_running(sqlite3* db, const std::string& path, int64_t id) {
  Statement q(db, path, "SELECT status FROM runs WHERE id = ?1");
  q.bind(1, id);
  check(q.step() && q.text(0) == "running", path, ": run ", id, " is not running");
}

}  // namespace

int64_t FindingsStore::begin(const StoreRun& run) {
  Transaction tx(db_, path_);
  StoreRun mine = run;
  mine.owner = this_owner();
  mine.updated = store_time_now();
  mine.stopped.clear();
  const int64_t id = store_detail::insert_run(db_, path_, mine, "running");
  tx.commit();
  return id;
}

void FindingsStore::checkpoint(int64_t id, const StoreRun& run,
                               const std::vector<StoreFinding>& findings) {
  Transaction tx(db_, path_);
  check_running(db_, path_, id);
  update_run_row(db_, path_, id, run, "running");
  record_so_far(db_, path_, id, run, findings);
  tx.commit();
}

StoreDelta FindingsStore::finish(int64_t id, const StoreRun& run,
                                 const std::vector<StoreFinding>& findings) {
  Transaction tx(db_, path_);
  check_running(db_, path_, id);
  const bool complete = run.stopped.empty();
  update_run_row(db_, path_, id, run, complete ? "complete" : "interrupted");
  record_so_far(db_, path_, id, run, findings);
  StoreDelta delta;
  delta.run = id;
  Statement last(db_, path_, "SELECT id, commit_id FROM runs WHERE id < ?1 ORDER BY id DESC "
                             "LIMIT 1");
  last.bind(1, id);
  if (last.step()) {
    delta.previous_run = last.integer(0);
    delta.previous_commit = last.text(1);
  }
  Statement seen(db_, path_, "SELECT signature, status FROM sightings WHERE run = ?1 "
                             "ORDER BY rowid");
  seen.bind(1, id);
  while (seen.step()) {
    const std::string status = seen.text(1);
    if (status == "new") delta.fresh.push_back(seen.text(0));
    if (status == "open") delta.open.push_back(seen.text(0));
    if (status == "expected") delta.expected.push_back(seen.text(0));
    if (status == "regressed") delta.regressed.push_back(seen.text(0));
  }
  if (complete) delta.fixed = store_detail::mark_fixed(db_, path_, run, id);
  tx.commit();
  return delta;
}

std::vector<StoredRun> FindingsStore::close_abandoned() {
  Transaction tx(db_, path_);
  std::vector<int64_t> gone;
  {
    Statement q(db_, path_, "SELECT id, owner FROM runs WHERE status = 'running' ORDER BY id");
    while (q.step()) {
      if (owner_gone(q.text(1))) gone.push_back(q.integer(0));
    }
  }
  for (const int64_t id : gone) {
    Statement up(db_, path_, "UPDATE runs SET status = 'interrupted', stopped = 'killed' "
                             "WHERE id = ?1");
    up.bind(1, id);
    up.run();
  }
  tx.commit();
  std::vector<StoredRun> out;
  if (gone.empty()) return out;
  for (StoredRun& r : runs()) {
    if (std::find(gone.begin(), gone.end(), r.id) != gone.end()) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cvm
