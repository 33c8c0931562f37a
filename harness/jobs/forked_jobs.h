// Work shared by forked processes, the generic part of `--jobs N` (campaign, golden verify, mrt):
// fork N jobs, let each publish counters through shared memory for one merged progress line,
// wait for them, and hand back each job's serialized result in job order. Processes, not
// threads: RapidCheck's generation state is per process, and an external worker's pipes belong
// to one process (each job starts its own workers). What a job computes and how its results
// merge is the caller's: each command derives its split so that the merged result is the same
// for any N.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm {

// Adds each value of `part` to `into`'s under the same key: how jobs' and shards' per-key
// counters (per operator, per backend, per kind) merge.
template <typename Map>
void sum_counts(Map& into, const Map& part) {
  for (const auto& [key, value] : part) into[key] += value;
}

// The counters every job publishes while it runs (shared memory): `per_job` per job.
class JobCounters {
 public:
  JobCounters(std::atomic<int64_t>* values, int jobs, int per_job)
      : values_(values), jobs_(jobs), per_job_(per_job) {}
  std::atomic<int64_t>& at(int job, int counter) const {
    return values_[static_cast<size_t>(job) * static_cast<size_t>(per_job_) +
                   static_cast<size_t>(counter)];
  }
  int64_t sum(int counter) const;
  int64_t max(int counter) const;
  int jobs() const { return jobs_; }

 private:
  std::atomic<int64_t>* values_;
  int jobs_, per_job_;
};

struct ForkedJobsOptions {
  std::string what = "cvmcheck";  // names a job in messages: "<what> job K of N ..."
  int counters_per_job = 0;
  // Called in the parent every 100 ms while the jobs run (and once after the last one ended),
  // with the seconds since they started.
  std::function<void(const JobCounters&, double)> progress;
};

// Fork before the parent runs any OpenMP parallel region with more than one thread, or have each
// job run one thread (opt::set_threads(1), as the commands do): libgomp's thread pool does not
// survive fork, and a job entering a parallel region on an inherited pool waits forever.
//
// Forks `jobs` processes; job k runs `body(k, counters)` and its returned string comes back in
// the result's slot k. A job ends with _exit: no exit handlers, they belong to the parent (and a
// leak check would count the OpenMP pool inherited through fork); its own external workers die
// with it (PR_SET_PDEATHSIG). When a job throws or dies, the others are stopped and the parent
// throws: the job's WorkerStartError or CaseFileError again (so the exit status is the one a
// single process gives), else a RuntimeError naming the job ("WHAT job K of N: message", or
// "... failed (signal S)" for a crash).
std::vector<std::string> run_forked_jobs(
    int jobs, const std::function<std::string(int job, const JobCounters& counters)>& body,
    const ForkedJobsOptions& options = {});

// The default of --jobs: one job per core.
int default_jobs();

// Why calls on `backends` must stay in one process ("" when they need not): an available backend
// that is not Backend::fork_safe, e.g. one whose runtime the parent initialized and a forked
// child cannot use (`cuda` only where its device probe could not run in a child: docs/cuda.md,
// "Calls without overhead"). campaign, golden verify and mrt then run one job and say so.
std::string one_process_reason(const Registry& registry, const std::vector<std::string>& backends);

}  // namespace cvm
