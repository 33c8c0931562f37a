// Helpers shared by the tests of the CUDA backend's fast kernels through cuda-host
// (tests/cuda/*_test.cc): a call checked against the reference and for the kernel path it took,
// and a short campaign on a cuda-host backend of one kernel choice (a planted fault's proof).
#pragma once

#include <string>
#include <vector>

#include "cuda/plan.h"
#include "ops/schema.h"

namespace cvm::testing {

// `op` on `backend` gives the reference's outputs, bit for bit, and reports one of `paths`.
void expect_kernel_as_reference(const std::string& backend, const std::string& op,
                                const std::string& attrs, const std::vector<ExampleTensor>& inputs,
                                const std::vector<std::string>& paths);

// A campaign (20 s at most, `max_cases` valid calls of `ops`, seed `seed`) on a cuda-host
// backend of `choice`: its mismatching calls. Fails the test when the backend computed under
// 100 calls (too few to judge).
int64_t campaign_mismatches(const cuda::KernelChoice& choice, const std::vector<std::string>& ops,
                            int64_t max_cases, uint64_t seed);

}  // namespace cvm::testing
