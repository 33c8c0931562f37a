// AVX2 kernels of conv2d and dense for calls whose data and weights both have precision 8:
// s8 operands, 4 k-values per int32 lane, the vector operand b taken as |b| (u8) and the
// broadcast one a as a * sign(b) (s8, vpsignb):
// _mm256_maddubs_epi16 adds two products |b| * (a * sign(b)) = a * b into int16, which cannot
// saturate since |a|, |b| <= 127 (2 * 127 * 127 = 32,258), then _mm256_madd_epi16 by ones
// adds the pairs into int32. 32 products per four instructions on 8-bit operands: in the
// kernel, 1.09-1.22x faster than the int16 pairs of _mm256_madd_epi16 it replaces (16
// products per two instructions on twice the operand bytes; docs/performance.md). Calls where
// a side has precision <= 7 take nn_isa_avx2_u8.cc's tables (no vpsignb, no abs). The
// micro-kernel is nn_tile.h's skeleton over the traits below; packing is the generic code
// compiled for AVX2 (conv2d's weights: nn_avx2_pack.h's transposition), the direct conv2d
// nn_depthwise.h's kernel, dense of few rows nn_gemv_avx2.cc's. Used when CPUID reports AVX2 +
// FMA but not AVX-512 VNNI, or CVMCHECK_ISA=avx2.
#include <immintrin.h>

#define CVM_AVX2 __attribute__((target("avx2,fma")))
#define CVM_AVX2_OP __attribute__((target("avx2,fma"), always_inline))
#define CVM_NN_TARGET CVM_AVX2
#define CVM_NN_FLAT __attribute__((target("avx2,fma"), flatten))

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/nn_avx2_vec.h"
#include "optimized/nn_avx2_pack.h"
#include "optimized/nn_tile.h"
#include "optimized/nn_depthwise.h"

namespace cvm::opt::nn {
namespace {

// The nn_tile.h traits. A (broadcast) and B (vector) are s8 quads, the data unshifted (no
// compensation). Both sides are within [-127, 127], so the product is symmetric: |b| times
// a * sign(b) for conv2d (B the data) and dense (B the weights) alike, which takes vpabsb once
// per B vector and k-step, shared by the tile's rows.
struct Avx2 : Avx2Vec {
  using BElem = uint8_t;
  static constexpr int kGroup = 4;
  static constexpr int kShift = 0;  // s8 holds the signed data as it is
  // 8 accumulators + 2 data vectors and their absolute values + 1 broadcast + the pair sums +
  // the ones: 15 of 16 registers, for conv2d and dense alike.
  static constexpr int kConvMr = 4, kConvNv = 2, kDenseMr = 4, kDenseNv = 2;
  static_assert(kConvMr == kPackPanelRows, "full conv2d panels take pack_w_avx2's transposition");

  template <bool kConv>
  CVM_AVX2_OP static Vec mac(Vec acc, Vec b, Vec a) {
    const Vec pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(b), _mm256_sign_epi8(a, b));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
};

template <typename T>
CVM_NN_FLAT void fill_row(const T* const* src, int64_t stride, int64_t first, int64_t width,
                          int64_t count, void* dst) {
  fill_row_generic<T, uint8_t, 4, false>(src, stride, first, width, count, dst);
}

template <typename T>
CVM_NN_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                        int64_t nr, void* dst, int32_t* colsum, int32_t* range) {
  pack_b_generic<T, uint8_t, 4>(w, ld, units, valid, kc, nr, dst, colsum, range);
}

template <typename T>
CVM_NN_FLAT void pack_w(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst,
                        int32_t* row_sum, int32_t* range) {
  pack_w_avx2<T, uint8_t, 4>(w, rows, icg, taps, dst, row_sum, range);
}

template <typename T>
CVM_NN_FLAT void value_range(const T* data, int64_t n, int32_t* range) {
  range_generic<T>(data, n, range);
}

}  // namespace

const NnIsa& avx2_isa() {
  static const NnIsa isa = [] {
    NnIsa i = base_table<Avx2>(Isa::kAvx2);
    i.fill_row_i8 = fill_row<int8_t>;
    i.fill_row_i32 = fill_row<int32_t>;
    i.pack_b_i8 = pack_b<int8_t>;
    i.pack_b_i32 = pack_b<int32_t>;
    i.pack_a_i8 = pack_b<int8_t>;  // s8 data needs no shift: the same packing
    i.pack_a_i32 = pack_b<int32_t>;
    i.pack_w_i8 = pack_w<int8_t>;
    i.pack_w_i32 = pack_w<int32_t>;
    i.range_i8 = value_range<int8_t>;
    i.range_i32 = value_range<int32_t>;
    i.direct_i8 = direct_depthwise<Avx2Vec, int8_t, path::kConvDepthwiseAvx2>;
    i.direct_i32 = direct_depthwise<Avx2Vec, int32_t, path::kConvDepthwiseAvx2>;
    i.gemv_i8 = avx2_gemv_i8;
    i.gemv_i32 = avx2_gemv_i32;
    return i;
  }();
  return isa;
}

}  // namespace cvm::opt::nn
