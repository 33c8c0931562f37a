// The optimized CPU backend ("optimized"): fast kernels with the production inference (infer/),
// bit-exact with the reference. Each family file adds its kernels (optimized/<family>.cc).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/op_list.h"
#include "cvmcheck/registry.h"

namespace cvm::opt {

#define CVMCHECK_FAMILY_KERNELS(family) void add_##family(Backend& backend);
CVMCHECK_FAMILIES(CVMCHECK_FAMILY_KERNELS)
#undef CVMCHECK_FAMILY_KERNELS

// A kernel's outputs, moved into the result. `return {y};` would copy every tensor (the
// elements of an initializer list are const): on large outputs a whole extra pass over them.
template <typename... Ts>
std::vector<Tensor> results(Ts&&... outputs) {
  std::vector<Tensor> list;
  list.reserve(sizeof...(Ts));
  (list.push_back(std::forward<Ts>(outputs)), ...);
  return list;
}

// The backend with every family above.
Backend make_backend();

// Threads used by the kernels (OpenMP). Results never depend on it. 0 restores the default
// (CVMCHECK_THREADS if set, else OpenMP's default).
void set_threads(int threads);
int threads();
// Threads worth using for `work` elementary operations: 1 below a threshold, where waking a
// thread pool costs more than it saves.
int threads_for(int64_t work);
// That threshold (default 2^16). The thread variants set 0, so that the threaded paths run on
// every call, however small (the campaign's shapes never reach the default).
void set_work_threshold(int64_t work);
int64_t work_threshold();

// The dispatch variants, as backends of their own: optimized/<isa> forces one ISA path of those
// this binary holds (isa_built; unavailable, with why, where the CPU lacks it), optimized/<isa>~simde
// forces that ISA's emulated twin (x86 builds, any x86-64 CPU; the ISAs of optimized/isa_list.h
// with a twin: AVX-VNNI and AVX-512 VNNI) and optimized@<n> runs on n threads
// with a work threshold of 0, each wrapping `optimized`'s kernels. `optimized` stays the CPUID
// pick.
std::vector<Backend> make_variant_backends(const Backend& optimized);

// The test-only variants with a fault planted: optimized/planted_faults.h.

}  // namespace cvm::opt
