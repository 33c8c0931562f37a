// The 256-bit int32 vector operations that every AVX2-class nn traits struct shares (nn_tile.h's
// traits in nn_isa_avx2.cc and nn_isa_avxvnni.cc, the twin included): each of those
// files derives its traits from Avx2Vec and adds only its element layout and its
// multiply-accumulate. The functions carry AVX2's target attribute, a subset of every including
// file's, so they inline into its kernels; under the emulated twin (isa_twin.h) they have none.
// Everything is in an unnamed namespace: each translation unit compiles its own copy.
#pragma once

#include "optimized/isa_twin.h"  // first: the twin's SIMDe must precede any <immintrin.h>

#include <cstdint>

#define CVM_AVX2_VEC_OP CVM_ISA_TARGET("avx2,fma") CVM_ISA_INLINE

namespace cvm::opt::nn {
namespace {

// Lanes [0, n) set (n in [0, 8]), the mask of AVX2's masked loads and stores.
CVM_AVX2_VEC_OP inline __m256i low_lanes(int n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
}

// nn_tile.h's vector operations and nn_depthwise.h's mullo on 8 int32 lanes.
struct Avx2Vec {
  using Vec = __m256i;
  static constexpr int kLanes = 8;

  CVM_AVX2_VEC_OP static Vec zero() { return _mm256_setzero_si256(); }
  CVM_AVX2_VEC_OP static Vec set1(int32_t x) { return _mm256_set1_epi32(x); }
  CVM_AVX2_VEC_OP static Vec add(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  CVM_AVX2_VEC_OP static Vec mullo(Vec a, Vec b) { return _mm256_mullo_epi32(a, b); }
  CVM_AVX2_VEC_OP static Vec loadu(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  }
  CVM_AVX2_VEC_OP static Vec load_low(const int32_t* p, int n) {
    return _mm256_maskload_epi32(p, low_lanes(n));
  }
  CVM_AVX2_VEC_OP static void store(int32_t* p, Vec v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  CVM_AVX2_VEC_OP static void store_low(int32_t* p, int n, Vec v) {
    _mm256_maskstore_epi32(p, low_lanes(n), v);
  }
  CVM_AVX2_VEC_OP static Vec rotate(Vec v, int s) {  // lane j takes lane (j + s) mod 8
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i idx =
        _mm256_and_si256(_mm256_add_epi32(lane, _mm256_set1_epi32(s)), _mm256_set1_epi32(7));
    return _mm256_permutevar8x32_epi32(v, idx);
  }
};

}  // namespace
}  // namespace cvm::opt::nn
