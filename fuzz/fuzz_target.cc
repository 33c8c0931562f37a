// One libFuzzer target; CMake builds it once per target name (CVMCHECK_FUZZ_TARGET: "all" or a
// family). The bytes decode into one operator call (harness/fuzz_input.h), which runs through
// the diff engine on every backend. A disagreement, a runtime_error from the reference, or (for
// generator-mode inputs) a wrong class on the reference aborts, so libFuzzer saves the input;
// `cvmcheck repro INPUT --target NAME --out DIR` turns it into a case directory.
#include <cstdio>
#include <cstdlib>

#include "backends/registry.h"
#include "harness/fuzz_input.h"

#ifndef CVMCHECK_FUZZ_TARGET
#error "CVMCHECK_FUZZ_TARGET must name the target"
#endif

namespace {
const cvm::FuzzTarget* g_target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_target = cvm::find_fuzz_target(CVMCHECK_FUZZ_TARGET);
  if (g_target == nullptr) {
    std::fprintf(stderr, "unknown fuzz target %s\n", CVMCHECK_FUZZ_TARGET);
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<cvm::Call> call = cvm::decode_fuzz_input(*g_target, data, size);
  if (!call) return -1;  // outside the bounds: not worth keeping in the corpus
  if (const std::optional<std::string> finding = cvm::fuzz_one(cvm::registry(), *call)) {
    std::fprintf(stderr, "\n==cvmcheck finding (target %s)==\n%s\n", CVMCHECK_FUZZ_TARGET,
                 finding->c_str());
    std::abort();
  }
  return 0;
}
