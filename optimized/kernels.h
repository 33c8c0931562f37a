// The optimized CPU backend ("optimized"): fast kernels with the production inference (infer/),
// bit-exact with the reference. Each family file adds its kernels (optimized/<family>.cc).
#pragma once

#include "cvmcheck/registry.h"

namespace cvm::opt {

void add_reduce(Backend& backend);

// The backend with every family above.
Backend make_backend();

// Threads used by the kernels (OpenMP). Results never depend on it. 0 restores the default
// (CVMCHECK_THREADS if set, else OpenMP's default).
void set_threads(int threads);
int threads();

}  // namespace cvm::opt
