// AVX2 kernels of conv2d and dense: int16 operands, 2 k-values per int32 lane,
// _mm256_madd_epi16 (each lane adds two exact int16 products; no saturation is possible with
// |x|, |w| <= 127), 8 lanes. Packing and the direct kernels are the generic code compiled for
// AVX2. Used when CPUID reports AVX2 + FMA but not AVX-512 VNNI, or CVMCHECK_ISA=avx2.
#include <immintrin.h>

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"

#define CVM_AVX2 __attribute__((target("avx2,fma")))
#define CVM_AVX2_FLAT __attribute__((target("avx2,fma"), flatten))

namespace cvm::opt::nn {
namespace {

constexpr int kMr = 4, kNv = 2;  // 8 accumulators + 2 data vectors + 1 broadcast

CVM_AVX2 inline __m256i low_lanes(int n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
}

CVM_AVX2 inline void store_vec(int32_t* row, const VecStore& s, __m256i v) {
  if (s.n1 == 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + s.off1), v);
  } else if (s.n1 > 0) {
    _mm256_maskstore_epi32(row + s.off1, low_lanes(s.n1), v);
  }
  if (s.n2 > 0) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i idx =
        _mm256_and_si256(_mm256_add_epi32(lane, _mm256_set1_epi32(s.s2)), _mm256_set1_epi32(7));
    _mm256_maskstore_epi32(row + s.off2, low_lanes(s.n2), _mm256_permutevar8x32_epi32(v, idx));
  }
}

// A (broadcast) and B (vector) are int16 pairs; the product is symmetric, so conv2d and dense
// differ only in how B is addressed.
template <int MR, int NV, bool kConv>
CVM_AVX2 void tile(const Tile& t) {
  __m256i acc[MR][NV];
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) {
      __m256i a = _mm256_setzero_si256();
      if (t.accumulate && t.vec[v].n1 > 0) {
        a = _mm256_maskload_epi32(t.c + r * t.ldc + t.vec[v].off1, low_lanes(t.vec[v].n1));
      }
      if (t.row_init != nullptr) a = _mm256_add_epi32(a, _mm256_set1_epi32(t.row_init[r]));
      if (t.col_init != nullptr) {
        a = _mm256_add_epi32(
            a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.col_init + 8 * v)));
      }
      acc[r][v] = a;
    }
  }
  const int32_t* ap = static_cast<const int32_t*>(t.a);
  const int16_t* bp = static_cast<const int16_t*>(t.b);
  for (int64_t k = 0; k < t.kt; ++k) {
    const int16_t* bk = kConv ? bp + t.b_off[k] : bp + k * t.b_step;
    __m256i bv[NV];
    for (int v = 0; v < NV; ++v) {
      bv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bk + 16 * v));
    }
    const int32_t* ak = ap + k * MR;
    for (int r = 0; r < MR; ++r) {
      const __m256i av = _mm256_set1_epi32(ak[r]);
      for (int v = 0; v < NV; ++v)
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(bv[v], av));
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) store_vec(t.c + r * t.ldc, t.vec[v], acc[r][v]);
  }
}

template <int NV, bool kConv>
CVM_AVX2 void tile_rows(const Tile& t) {
  switch (t.rows) {
    case 1: return tile<1, NV, kConv>(t);
    case 2: return tile<2, NV, kConv>(t);
    case 3: return tile<3, NV, kConv>(t);
    case 4: return tile<4, NV, kConv>(t);
    default: break;
  }
  __builtin_trap();  // the drivers never ask for more rows than kMr
}

CVM_AVX2 void conv_tile(const Tile& t) { tile_rows<kNv, true>(t); }

CVM_AVX2 void dense_tile(const Tile& t) {
  if (t.nv == 1) return tile_rows<1, false>(t);
  tile_rows<2, false>(t);
}

template <typename T>
CVM_AVX2_FLAT void fill_row(const T* const* src, int64_t stride, int64_t first, int64_t width,
                            int64_t count, void* dst) {
  fill_row_generic<T, int16_t, 2, false>(src, stride, first, width, count, dst);
}

template <typename T>
CVM_AVX2_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                          int64_t nr, void* dst, int32_t* colsum, int32_t* range) {
  pack_b_generic<T, int16_t, 2>(w, ld, units, valid, kc, nr, dst, colsum, range);
}

template <typename T>
CVM_AVX2_FLAT void pack_w(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst,
                          int32_t* row_sum, int32_t* range) {
  pack_w_generic<T, int16_t, 2>(w, rows, icg, taps, dst, row_sum, range);
}

template <typename T>
CVM_AVX2_FLAT void value_range(const T* data, int64_t n, int32_t* range) {
  range_generic<T>(data, n, range);
}

template <typename T>
CVM_AVX2_FLAT void direct(const DirectConv& d, int64_t first, int64_t last) {
  direct_conv_generic<T>(d, first, last);
}

template <typename T>
CVM_AVX2_FLAT void dense_rows(const T* x, const int32_t* w, const int32_t* bias, int32_t* y,
                              int64_t depth, int64_t units, int64_t first, int64_t last) {
  direct_dense_generic<T>(x, w, bias, y, depth, units, first, last);
}

}  // namespace

const NnIsa& avx2_isa() {
  static const NnIsa isa = [] {
    NnIsa i;
    i.isa = Isa::kAvx2;
    i.gemm = true;
    i.group = 2;
    i.lanes = 8;
    i.elem_bytes = 2;
    i.shift = false;
    i.conv_mr = kMr;
    i.conv_nv = kNv;
    i.dense_mr = kMr;
    i.dense_nv = kNv;
    i.conv_tile = conv_tile;
    i.dense_tile = dense_tile;
    i.fill_row_i8 = fill_row<int8_t>;
    i.fill_row_i32 = fill_row<int32_t>;
    i.pack_b_i8 = pack_b<int8_t>;
    i.pack_b_i32 = pack_b<int32_t>;
    i.pack_a_i8 = pack_b<int8_t>;  // int16 data needs no shift: the same packing
    i.pack_a_i32 = pack_b<int32_t>;
    i.pack_w_i8 = pack_w<int8_t>;
    i.pack_w_i32 = pack_w<int32_t>;
    i.range_i8 = value_range<int8_t>;
    i.range_i32 = value_range<int32_t>;
    i.direct_i8 = direct<int8_t>;
    i.direct_i32 = direct<int32_t>;
    i.dense_i8 = dense_rows<int8_t>;
    i.dense_i32 = dense_rows<int32_t>;
    return i;
  }();
  return isa;
}

}  // namespace cvm::opt::nn
