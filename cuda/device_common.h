// Shared by the CUDA kernels (nvcc) and their host emulation (the host C++ compiler): the
// per-thread building blocks. Everything here is plain data and CVM_HD functions, so the same
// per-element code runs in a kernel's grid-stride loop and in the "cuda-host" CPU loop.
#pragma once

#include <cstdint>

#include "cvmcheck/errors.h"

#if defined(__CUDACC__)
#define CVM_HD __host__ __device__ inline
#else
#define CVM_HD inline  // host compiler: the CUDA qualifiers vanish
#endif

// Unrolls a loop of compile-time trip count in device code, so that the arrays it indexes (a
// warp's fragments and accumulators) stay in registers instead of local memory (ptxas put the
// 64x64 tile's accumulators on the stack without it). Nothing for a host compiler.
#if defined(__CUDA_ARCH__)
#define CVM_UNROLL _Pragma("unroll")
#else
#define CVM_UNROLL
#endif

namespace cvm::cuda {

inline constexpr int kMaxDims = 6;
inline constexpr int kWarp = 32;  // lanes

// Test-only faults (tests/cuda/gemm_tiles_test.cc, tests/cuda/fast_kernels_test.cc): each breaks
// one predicate, index or bit the way a real kernel bug would, to prove that the harness catches
// it. Plans never set one but for the tests' backends; device code compiles them out
// (planted_fault is 0 there).
enum PlantedFault : int32_t {
  kNoFault = 0,
  kFaultKTail = 1,        // GEMM: the K-tail predicate drops the last k
  kFaultPartialM = 2,     // GEMM: the partial-M predicate drops the last row
  kFaultBorder = 3,       // GEMM: the border predicate takes image row 0 for padding
  kFaultFragment = 4,     // GEMM: A fragment registers 1 and 2 swapped
  kFaultPartialN = 5,     // GEMM: the partial-N predicate drops the last column
  kFaultVectorTail = 6,   // vector kernels: the scalar tail after the last full vector dropped
  kFaultReduceSplit = 7,  // split reduction: each chunk but the last ends one element early
  kFaultNmsMaskBit = 8,   // NMS: the last box of each mask word never suppressed
  kFaultWarpShuffle = 9,  // warp reduction: the shuffle tree skips its last (offset 1) level
};

// The fault a step's parameters carry, as its kernel sees it.
CVM_HD int32_t planted_fault(int32_t planted) {
#if defined(__CUDA_ARCH__)
  (void)planted;
  return kNoFault;
#else
  return planted;
#endif
}

// A shape of up to 6 dims (n == 0: a single element, no dims).
struct Dims {
  int32_t n = 0;
  int64_t d[kMaxDims] = {};
};

// One input as the kernels see it: int8 or int32 storage, read widened to int32. The storage
// type is a run-time flag (uniform across a launch) rather than a template, which keeps the
// number of kernel instantiations, and nvcc's compile time, small.
struct InView {
  const void* data = nullptr;
  int32_t is_int8 = 0;
};

// The up to three inputs of one step.
struct Views {
  InView in[3];
};

CVM_HD int32_t load(const InView& v, int64_t i) {
  return v.is_int8 != 0 ? int32_t{static_cast<const int8_t*>(v.data)[i]}
                        : static_cast<const int32_t*>(v.data)[i];
}

// The device's misaligned-address fault, on the host. load4 and store4 are one 16-byte (int8
// storage: 4-byte) access on the device, whose buffers are 256-byte aligned, so an element index
// that is not a multiple of 4 faults there. The host's element-by-element loop would read the
// right values anyway and hide the kernel bug, so it checks the index and fails as the device
// does: a RuntimeError, which the campaign reports against the reference's result.
CVM_HD void require_vector_index(int64_t i) {
#if defined(__CUDA_ARCH__)
  (void)i;
#else
  if (i % 4 != 0) {
    fail_runtime("cuda-host: a 4-element vector access at element ", i,
                 ", not a multiple of 4 (a misaligned address on the device)");
  }
#endif
}

// Four consecutive elements from element i (i % 4 == 0; device buffers are 256-byte aligned, so
// the read is one 16-byte load of int32 storage, or one 4-byte load of int8 storage). The host
// reads them one by one: the same values, which is all the emulation must reproduce.
CVM_HD void load4(const InView& v, int64_t i, int32_t* out) {
#if defined(__CUDA_ARCH__)
  if (v.is_int8 != 0) {
    const char4 q = *reinterpret_cast<const char4*>(static_cast<const int8_t*>(v.data) + i);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
  } else {
    const int4 q = *reinterpret_cast<const int4*>(static_cast<const int32_t*>(v.data) + i);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
  }
#else
  require_vector_index(i);
  for (int32_t k = 0; k < 4; ++k) out[k] = load(v, i + k);
#endif
}

// Stores four consecutive int32 elements at out + i (i % 4 == 0): one 16-byte store on the device.
CVM_HD void store4(int32_t* out, int64_t i, const int32_t* values) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<int4*>(out + i) = make_int4(values[0], values[1], values[2], values[3]);
#else
  require_vector_index(i);
  for (int32_t k = 0; k < 4; ++k) out[i + k] = values[k];
#endif
}

CVM_HD int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
CVM_HD int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
CVM_HD int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Number of significant bits of m (bitlen(0) = 0); a loop rather than an intrinsic, so host and
// device run literally the same code.
CVM_HD int32_t bit_length(uint64_t m) {
  int32_t bits = 0;
  while (m != 0) {
    ++bits;
    m >>= 1;
  }
  return bits;
}

// Row-major multi-index of flat index i over `dims` into coords[0..n).
CVM_HD void unravel(const Dims& dims, int64_t i, int64_t* coords) {
  for (int32_t j = dims.n - 1; j >= 0; --j) {
    coords[j] = i % dims.d[j];
    i /= dims.d[j];
  }
}

}  // namespace cvm::cuda
