// The benchmark's calls: one per operator, sized so that a launch moves tens of megabytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/tensor.h"

namespace cvm::bench {

// A GEMM of the same arithmetic as a conv2d or dense call (M x K times K x N, int8 -> int32).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

struct BenchCase {
  std::string label;
  std::string op;
  std::string attrs;  // the call's attribute object, as JSON text
  std::vector<Tensor> inputs;
  GemmShape gemm;  // m == 0: no GEMM peer
};

std::vector<BenchCase> bench_cases();

}  // namespace cvm::bench
