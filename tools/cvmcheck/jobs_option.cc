#include "jobs_option.h"

#include <iostream>

#include "harness/jobs/forked_jobs.h"
#include "registry/registry.h"

namespace cvm::cli {

int jobs_for(const std::string& command, int requested, const std::vector<std::string>& backends) {
  const int jobs = requested > 0 ? requested : default_jobs();
  const std::string why = one_process_reason(registry(), backends);
  if (jobs > 1 && !why.empty()) {
    std::cerr << "cvmcheck " << command << ": one job, not " << jobs << ": " << why << "\n";
    return 1;
  }
  return jobs;
}

}  // namespace cvm::cli
