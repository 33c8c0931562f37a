// Fused elementwise passes of the optimized backend: one loop computes an operator's int32
// output and, from the same loads, the min and max of every input, so the contract's value check
// (values within +-alpha(p), else logic_error) costs no second read of the inputs. On 64 MiB
// tensors a separate check pass was a whole extra DRAM read, single-threaded. The caller
// allocates the output, runs the pass, then fails if an input was out of range: the output is
// discarded then, so writing it first is harmless, but the operator must be free of undefined
// behaviour for ANY int32 input (unsigned wrap-around or formulas that cannot overflow).
//
// The flat range is split into chunks of kChunk elements; threads take contiguous runs of
// chunks. Each loop is compiled for the baseline x86-64, AVX2 and AVX-512 and chosen per call
// from the vector class of opt::active_isa() (the nn family's CPUID choice, so CVMCHECK_ISA caps
// it too; optimized/isa_list.h's `vectors`): the library is built without -march, and SSE2 has
// no 32-bit min, max or abs, so the baseline loop needs about three times the instructions per
// element. AVX-VNNI takes the AVX2 loop (its vectors are AVX2's). The emulated twins
// (optimized/isa_twin.h) take the same loop source without target attributes, which is the
// baseline instantiation: the loops hold no intrinsics, so what a twin checks of an ISA's pass is
// its source and dispatch, not the compiler's code for that ISA.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"

#if defined(__x86_64__) || defined(__i386__)
#define CVM_FUSED_X86 1
#define CVM_FUSED_AVX2 __attribute__((target("avx2")))
#define CVM_FUSED_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#endif

namespace cvm::opt::fused {

// Elements per chunk: a few thousand keeps the per-chunk call negligible while a thread's share
// of a large tensor is still many chunks.
constexpr int64_t kChunk = path::kFusedChunk;

// The smallest and largest value a pass saw in one input; lo > hi when it saw none.
struct Seen {
  int32_t lo = std::numeric_limits<int32_t>::max();
  int32_t hi = std::numeric_limits<int32_t>::min();
  void merge(const Seen& o) {
    lo = std::min(lo, o.lo);
    hi = std::max(hi, o.hi);
  }
};

// out[i] = f(in[i]), folding every in[i] into `seen`.
template <typename T, typename F>
[[gnu::always_inline]] inline void unary_loop(const T* __restrict in, int32_t* __restrict out,
                                              int64_t n, F f, Seen* seen) {
  int32_t lo = seen->lo, hi = seen->hi;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = in[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    out[i] = f(v);
  }
  seen->lo = lo;
  seen->hi = hi;
}

// out[i] = f(a[kA ? i : 0], b[kB ? i : 0]): both operands walked (elemwise, same-shape
// broadcast rows) or one held (a broadcast scalar per row), folding both into seen[0], seen[1].
template <bool kA, bool kB, typename A, typename B, typename F>
[[gnu::always_inline]] inline void binary_loop(const A* __restrict a, const B* __restrict b,
                                               int32_t* __restrict out, int64_t n, F f,
                                               Seen* seen) {
  int32_t alo = seen[0].lo, ahi = seen[0].hi, blo = seen[1].lo, bhi = seen[1].hi;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t va = a[kA ? i : 0];
    const int32_t vb = b[kB ? i : 0];
    alo = va < alo ? va : alo;
    ahi = va > ahi ? va : ahi;
    blo = vb < blo ? vb : blo;
    bhi = vb > bhi ? vb : bhi;
    out[i] = f(va, vb);
  }
  seen[0] = {alo, ahi};
  seen[1] = {blo, bhi};
}

template <typename T, typename F>
using UnaryPass = void (*)(const T*, int32_t*, int64_t, F, Seen*);
template <typename A, typename B, typename F>
using BinaryPass = void (*)(const A*, const B*, int32_t*, int64_t, F, Seen*);

// The same loops compiled per instruction set (the target attributes cannot go on the
// always_inline bodies, which are shared), from one definition: the baseline pass, which is
// also the emulated twins' (the twin of a loop without intrinsics is its source compiled
// without target attributes), and the AVX2 and AVX-512 passes. One definition, so that a change
// to a pass is a change to every ISA's and runs on every machine.
#define CVM_FUSED_PASSES(suffix, attr)                                                        \
  template <typename T, typename F>                                                         \
  attr void unary_##suffix(const T* in, int32_t* out, int64_t n, F f, Seen* seen) {         \
    unary_loop(in, out, n, f, seen);                                                        \
  }                                                                                         \
  template <bool kA, bool kB, typename A, typename B, typename F>                           \
  attr void binary_##suffix(const A* a, const B* b, int32_t* out, int64_t n, F f,           \
                            Seen* seen) {                                                   \
    binary_loop<kA, kB>(a, b, out, n, f, seen);                                             \
  }
CVM_FUSED_PASSES(base, )
#ifdef CVM_FUSED_X86
CVM_FUSED_PASSES(avx2, CVM_FUSED_AVX2)
CVM_FUSED_PASSES(avx512, CVM_FUSED_AVX512)
#endif
#undef CVM_FUSED_PASSES

// Marks the pass of the active ISA taken (the three passes are each a path) and returns the
// ISA's vector class (isa_list.h), which chooses the pass.
inline Vectors hit_isa_pass() {
  const Vectors vectors = isa_vectors(active_isa());
  path::hit(vectors == Vectors::kAvx512Vectors ? path::kFusedAvx512
            : vectors == Vectors::kAvx2Vectors ? path::kFusedAvx2
                                               : path::kFusedPortable);
  return vectors;
}

// Whether the ISA's pass must run without target attributes (an emulated twin's, or no x86).
inline bool baseline_pass() {
#ifdef CVM_FUSED_X86
  return active_isa_emulated();
#else
  return true;
#endif
}

template <typename T, typename F>
UnaryPass<T, F> unary_pass() {
  [[maybe_unused]] const Vectors vectors = hit_isa_pass();
#ifdef CVM_FUSED_X86
  if (!baseline_pass()) {
    switch (vectors) {
      case Vectors::kAvx512Vectors: return unary_avx512<T, F>;
      case Vectors::kAvx2Vectors: return unary_avx2<T, F>;
      case Vectors::kBaselineVectors: break;
    }
  }
#endif
  return unary_base<T, F>;
}

template <bool kA, bool kB, typename A, typename B, typename F>
BinaryPass<A, B, F> binary_pass() {
  [[maybe_unused]] const Vectors vectors = hit_isa_pass();
#ifdef CVM_FUSED_X86
  if (!baseline_pass()) {
    switch (vectors) {
      case Vectors::kAvx512Vectors: return binary_avx512<kA, kB, A, B, F>;
      case Vectors::kAvx2Vectors: return binary_avx2<kA, kB, A, B, F>;
      case Vectors::kBaselineVectors: break;
    }
  }
#endif
  return binary_base<kA, kB, A, B, F>;
}

// Calls body(begin, count, seen) for every chunk of [0, n), on threads_for(work) threads
// (contiguous runs of chunks), each thread into its own Seen per input; returns them merged.
template <size_t kInputs, typename Body>
std::array<Seen, kInputs> for_chunks(int64_t n, int64_t work, Body body) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  path::hit(chunks > 1 ? path::kFusedChunks : path::kFusedOneChunk);
  const int team = chunks > 1 ? threads_for(work) : 1;
  std::array<Seen, kInputs> all{};
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::array<Seen, kInputs> mine{};
#pragma omp for schedule(static) nowait
    for (int64_t c = 0; c < chunks; ++c) {
      body(c * kChunk, std::min(kChunk, n - c * kChunk), mine.data());
    }
#pragma omp critical(cvm_fused_merge)
    for (size_t k = 0; k < kInputs; ++k) all[k].merge(mine[k]);
  }
  return all;
}

// The identity: copies (reshape, concatenate) fused with the value check of their input.
struct Identity {
  int32_t operator()(int32_t v) const { return v; }
};

// out = f(in) over n elements; what the pass saw of `in`.
template <typename T, typename F>
Seen unary(const T* in, int32_t* out, int64_t n, F f) {
  const UnaryPass<T, F> pass = unary_pass<T, F>();
  return for_chunks<1>(n, n, [&](int64_t begin, int64_t count, Seen* seen) {
    pass(in + begin, out + begin, count, f, seen);
  })[0];
}

// out = f(a, b) elementwise over n elements; what the pass saw of a and b.
template <typename A, typename B, typename F>
std::array<Seen, 2> binary(const A* a, const B* b, int32_t* out, int64_t n, F f) {
  const BinaryPass<A, B, F> pass = binary_pass<true, true, A, B, F>();
  return for_chunks<2>(n, n, [&](int64_t begin, int64_t count, Seen* seen) {
    pass(a + begin, b + begin, out + begin, count, f, seen);
  });
}

}  // namespace cvm::opt::fused
