// The check behind `cvmcheck mrt`: random cases of every selected MRT identity (case k of an
// identity drawn from the seed and k alone) on every selected backend, one row per identity and
// backend. With --jobs N, job j makes the cases k with k % N == j of every identity
// (harness/jobs/forked_jobs.h) and the rows merge by adding, so a seed with a case count gives the
// same table, first mismatches and exit status for any N.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "mrt/mrt_identity.h"

namespace cvm::mrt {

struct MrtRunOptions {
  std::vector<Scheme> schemes;
  std::string backend = "all";  // a backend's name, or "all"
  uint64_t seed = 1;
  int64_t cases = 200;          // per identity, unless seconds_per_identity > 0
  double seconds_per_identity = 0;
  PlantedBug bug = PlantedBug::kNone;
  int job_index = 0, job_count = 1;  // this job makes the cases k with k % job_count == job_index
};

struct MrtRow {
  std::string identity, backend, skipped, first_mismatch;
  int64_t cases = 0, mismatches = 0;
  int64_t first_mismatch_case = -1;  // the case index of first_mismatch
};

// The registered backends `backend` selects ("all": every one), in registry order.
std::vector<const Backend*> selected_backends(const Registry& registry,
                                              const std::string& backend);

// Rows in order: identity by identity, each with every selected backend.
std::vector<MrtRow> run_mrt(const Registry& registry, const MrtRunOptions& options);

// Adds the jobs' rows (the same rows in the same order in each): counts add, the first mismatch
// is the one of the smallest case index.
std::vector<MrtRow> merge_mrt_jobs(const std::vector<std::vector<MrtRow>>& jobs);

// Runs `options` as `jobs` processes; `in_child(k)` runs first in job k (its own external
// workers, its thread count). A job that fails or crashes is an error naming it.
std::vector<MrtRow> run_mrt_jobs(const Registry& registry, const MrtRunOptions& options, int jobs,
                                 const std::function<void(int)>& in_child);

// The table `cvmcheck mrt` prints, with a MISMATCH line per row that has one: by default one
// row per operator family and one column per backend (fits a screen); `full`: one row per
// identity x backend.
std::string mrt_table(const std::vector<MrtRow>& rows, uint64_t seed, const std::string& planted,
                      bool full = false);

}  // namespace cvm::mrt
