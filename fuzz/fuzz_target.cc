// One libFuzzer target; CMake builds it once per target name (CVMCHECK_FUZZ_TARGET: "all" or a
// family). The bytes decode into one operator call (harness/gen/fuzz_input.h), which runs through
// the diff engine on every backend. A disagreement, a runtime_error from the reference, or (for
// generator-mode inputs) a wrong class on the reference aborts, so libFuzzer saves the input;
// `cvmcheck repro INPUT --target NAME --out DIR` turns it into a case directory.
// With CVMCHECK_WORKER=COMMAND in the environment, the target fuzzes that external worker
// (docs/backend-protocol.md) against the reference instead of the built-in backends; its crash,
// hang (CVMCHECK_WORKER_TIMEOUT seconds, default 10) or malformed reply is a finding too.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "registry/registry.h"
#include "harness/worker_client/exec_backend.h"
#include "harness/gen/fuzz_input.h"
#include "harness/worker_client/worker_client.h"
#include "optimized/kernels.h"

#ifndef CVMCHECK_FUZZ_TARGET
#error "CVMCHECK_FUZZ_TARGET must name the target"
#endif

namespace {
const cvm::FuzzTarget* g_target = nullptr;
std::vector<std::string> g_backends;  // empty: every built-in backend
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The campaign's savings (docs/fuzzing.md): freed buffers stay in the heap (no page faults per
  // exec; ASan's allocator ignores this), and the default optimized backend runs on one thread,
  // as each campaign job does: libFuzzer scales by processes (-jobs), and the threaded paths
  // are still fuzzed through the optimized@3 variant, which forces them.
  // OpenMP threads wait passively (as in cvmcheck, tools/cvmcheck/main.cc): optimized@3's team
  // otherwise spins in sched_yield between calls, a quarter of the CPU under perf on 2 cores.
  // libomp (clang's, which builds the fuzz targets) reads it at its first parallel region.
  ::setenv("OMP_WAIT_POLICY", "passive", 0);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  cvm::opt::set_threads(1);
  g_target = cvm::find_fuzz_target(CVMCHECK_FUZZ_TARGET);
  if (g_target == nullptr) {
    std::fprintf(stderr, "unknown fuzz target %s\n", CVMCHECK_FUZZ_TARGET);
    std::abort();
  }
  if (const char* worker = std::getenv("CVMCHECK_WORKER"); worker != nullptr && *worker != '\0') {
    cvm::ExecSettings settings;
    settings.memory_bytes = 0;  // the fuzzer's -rss_limit_mb watches memory; ASan needs address space
    if (const char* t = std::getenv("CVMCHECK_WORKER_TIMEOUT")) settings.call_timeout_s = std::atof(t);
    if (settings.call_timeout_s <= 0) settings.call_timeout_s = 10;
    try {
      g_backends.push_back(
          cvm::resolve_backend(cvm::registry(), std::string(cvm::kExecPrefix) + worker, settings));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "CVMCHECK_WORKER: %s\n", e.what());
      std::exit(4);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<cvm::Call> call = cvm::decode_fuzz_input(*g_target, data, size);
  if (!call) return -1;  // outside the bounds: not worth keeping in the corpus
  const std::optional<std::string> finding =
      g_backends.empty() ? cvm::fuzz_one(cvm::registry(), *call)
                         : cvm::fuzz_one(cvm::registry(), *call, g_backends);
  if (finding) {
    std::fprintf(stderr, "\n==cvmcheck finding (target %s)==\n%s\n", CVMCHECK_FUZZ_TARGET,
                 finding->c_str());
    std::abort();
  }
  return 0;
}
