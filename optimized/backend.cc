#include <cstdlib>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "infer/common.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"

namespace cvm::opt {
namespace {

int default_threads() {
  const char* text = std::getenv("CVMCHECK_THREADS");
  const int value = text != nullptr ? std::atoi(text) : 0;
#ifdef _OPENMP
  return value > 0 ? value : omp_get_max_threads();
#else
  return 1;  // built without OpenMP
#endif
}

int g_threads = 0;

}  // namespace

void set_threads(int threads) { g_threads = threads > 0 ? threads : default_threads(); }

int threads() {
  if (g_threads == 0) g_threads = default_threads();
  return g_threads;
}

static int64_t g_work_threshold = path::kWorkThreshold;  // elementary operations

void set_work_threshold(int64_t work) { g_work_threshold = work; }

int64_t work_threshold() { return g_work_threshold; }

int threads_for(int64_t work) {
  const int team = work >= g_work_threshold ? threads() : 1;
  path::hit_if(team > 1, path::kThreads);
  return team;
}

Backend make_backend() {
  Backend backend;
  backend.name = "optimized";
#define CVMCHECK_FAMILY_KERNELS(family) add_##family,
  for (auto add : {CVMCHECK_FAMILIES(CVMCHECK_FAMILY_KERNELS)}) {
#undef CVMCHECK_FAMILY_KERNELS
    add(backend);
  }
  path::declare(backend, -1, false);
  backend.threads = threads;  // the process's count (its variants fix their own)
  return backend;
}

}  // namespace cvm::opt
