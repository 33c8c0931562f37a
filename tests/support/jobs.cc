#include "support/jobs.h"

#include <sys/resource.h>

#include <cstdlib>

#include "optimized/kernels.h"

namespace cvm::testing {

void one_thread(int) { opt::set_threads(1); }

void crash_quietly() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  std::abort();
}

}  // namespace cvm::testing
