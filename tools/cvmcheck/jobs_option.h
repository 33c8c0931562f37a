// --jobs N, as every command that has it reads it.
#pragma once

#include <string>
#include <vector>

namespace cvm::cli {

// The number of jobs of `command` ("campaign", "golden verify", ...): the request (0: one per
// core), or 1 where one of `backends` cannot fork, said on stderr ("cvmcheck COMMAND: one job,
// not N: why").
int jobs_for(const std::string& command, int requested, const std::vector<std::string>& backends);

}  // namespace cvm::cli
