// AVX-512 VNNI kernels of conv2d and dense: vpdpbusd (u8 x s8 -> s32, non-saturating) on
// shifted activations (x + 128) and signed weights, 4 k-values per int32 lane, 16 lanes; the
// micro-kernel is nn_tile.h's skeleton over the traits below. Every function that uses these
// instructions carries the target attribute, so the rest of the binary stays baseline x86-64;
// nn_isa() hands this table out only when CPUID reports the features. Compiled a second time
// against SIMDe as its emulated twin (nn_isa_vnni_simde.cc, optimized/isa_twin.h).
#if defined(__x86_64__) || defined(__i386__)  // an x86 ISA (isa_list.h): nothing elsewhere
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 intrinsics start from _mm*_undefined_*(), which -Wmaybe-uninitialized flags.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "optimized/isa_twin.h"  // first: the twin's SIMDe must precede any <immintrin.h>

#include <algorithm>
#include <cstring>

#define CVM_VNNI CVM_ISA_TARGET("avx512f,avx512bw,avx512vl,avx512vnni")
#define CVM_VNNI_FLAT CVM_VNNI __attribute__((flatten))
#define CVM_VNNI_OP CVM_VNNI CVM_ISA_INLINE
#define CVM_NN_TARGET CVM_VNNI
#define CVM_NN_FLAT CVM_VNNI_FLAT

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/nn_tile.h"
#include "optimized/nn_depthwise.h"
#include "optimized/paths.h"

namespace cvm::opt::nn {
namespace {

CVM_VNNI inline Mask16 low_lanes(int n) {
  return static_cast<Mask16>((1u << static_cast<unsigned>(n)) - 1u);
}

// The nn_tile.h traits. vpdpbusd multiplies u8 x s8: its first operand must be the shifted data
// (B for conv2d, A for dense), its second the signed weights.
struct Vnni {
  using Vec = __m512i;
  using BElem = uint8_t;
  static constexpr int kLanes = 16, kGroup = 4;
  static constexpr int kShift = 128;
  static constexpr int kConvMr = 8, kConvNv = 3;    // 24 accumulators + 3 data vectors
  static constexpr int kDenseMr = 6, kDenseNv = 4;  // 24 accumulators + 4 weight vectors

  CVM_VNNI_OP static Vec zero() { return _mm512_setzero_si512(); }
  CVM_VNNI_OP static Vec set1(int32_t x) { return _mm512_set1_epi32(x); }
  CVM_VNNI_OP static Vec add(Vec a, Vec b) { return _mm512_add_epi32(a, b); }
  CVM_VNNI_OP static Vec mullo(Vec a, Vec b) { return _mm512_mullo_epi32(a, b); }
  CVM_VNNI_OP static Vec loadu(const void* p) { return _mm512_loadu_si512(p); }
  CVM_VNNI_OP static Vec load_low(const int32_t* p, int n) {
    return _mm512_maskz_loadu_epi32(low_lanes(n), p);
  }
  CVM_VNNI_OP static void store(int32_t* p, Vec v) { _mm512_storeu_si512(p, v); }
  CVM_VNNI_OP static void store_low(int32_t* p, int n, Vec v) {
    _mm512_mask_storeu_epi32(p, low_lanes(n), v);
  }
  CVM_VNNI_OP static Vec rotate(Vec v, int s) {  // vpermd reads the index's low 4 bits only
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_permutexvar_epi32(_mm512_add_epi32(lane, _mm512_set1_epi32(s)), v);
  }
  template <bool kConv>
  CVM_VNNI_OP static Vec mac(Vec acc, Vec b, Vec a) {
    return kConv ? _mm512_dpbusd_epi32(acc, b, a) : _mm512_dpbusd_epi32(acc, a, b);
  }
};

// 16 values at p (stride 1 or 2) as 16 bytes.
CVM_VNNI inline __m128i load16(const int32_t* p, int64_t stride) {
  if (stride == 1) return _mm512_maskz_cvtepi32_epi8(0xFFFF, _mm512_loadu_si512(p));
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i v =
      _mm512_permutex2var_epi32(_mm512_loadu_si512(p), even, _mm512_loadu_si512(p + 16));
  return _mm512_maskz_cvtepi32_epi8(0xFFFF, v);
}

CVM_VNNI inline __m128i load16(const int8_t* p, int64_t stride) {
  if (stride == 1) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_cvtepi16_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// The implicit-conv2d row fill, vectorized for width strides 1 and 2: 16 pixels x 4 channels
// (a missing channel reads 0) per step, interleaved into 64 bytes and shifted by 128 (xor 0x80
// on int8 values).
template <typename T>
CVM_VNNI_FLAT void fill_row(const T* const* src, int64_t stride, int64_t first, int64_t width,
                            int64_t count, void* dst_v) {
  if ((stride != 1 && stride != 2) || (!src[0] && !src[1] && !src[2] && !src[3])) {
    fill_row_generic<T, uint8_t, 4, true>(src, stride, first, width, count, dst_v);
    return;
  }
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  int64_t lo = 0, hi = 0;
  inside_range(stride, first, width, count, lo, hi);
  int64_t j = lo;
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (; j + 16 <= hi && first + stride * (j + 16) <= width; j += 16) {
    const int64_t at = first + stride * j;
    const __m128i zero = _mm_setzero_si128();  // a padding channel: 0, stored as 128
    const __m128i c0 = src[0] ? load16(src[0] + at, stride) : zero;
    const __m128i c1 = src[1] ? load16(src[1] + at, stride) : zero;
    const __m128i c2 = src[2] ? load16(src[2] + at, stride) : zero;
    const __m128i c3 = src[3] ? load16(src[3] + at, stride) : zero;
    const __m128i lo01 = _mm_unpacklo_epi8(c0, c1), hi01 = _mm_unpackhi_epi8(c0, c1);
    const __m128i lo23 = _mm_unpacklo_epi8(c2, c3), hi23 = _mm_unpackhi_epi8(c2, c3);
    __m128i* out = reinterpret_cast<__m128i*>(dst + j * 4);
    _mm_storeu_si128(out + 0, _mm_xor_si128(_mm_unpacklo_epi16(lo01, lo23), flip));
    _mm_storeu_si128(out + 1, _mm_xor_si128(_mm_unpackhi_epi16(lo01, lo23), flip));
    _mm_storeu_si128(out + 2, _mm_xor_si128(_mm_unpacklo_epi16(hi01, hi23), flip));
    _mm_storeu_si128(out + 3, _mm_xor_si128(_mm_unpackhi_epi16(hi01, hi23), flip));
  }
  fill_row_generic<T, uint8_t, 4, true>(src, stride, first, width, count, dst, j);
}

// 16 values at p as 16 int32 lanes (for the row sums).
CVM_VNNI inline __m512i widen16(const int32_t* p) { return _mm512_loadu_si512(p); }
CVM_VNNI inline __m512i widen16(const int8_t* p) {
  return _mm512_maskz_cvtepi8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Dense weights, 4 rows x 16 columns per step: 4 x 16 bytes, a 4x4 transpose of dwords, and
// 4 stores of 16 bytes (4 units' groups of 4 k-values) into the panel; the row sums and the
// value range are accumulated on the way (lanes add modulo 2^32).
// kFlip: the dense data operand, stored as x + 128 (u8) in the same layout.
template <typename T, bool kFlip>
CVM_VNNI_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                          int64_t nr, void* dst_v, int32_t* colsum, int32_t* range) {
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int64_t full = valid & ~int64_t{15};
  __m512i lo = _mm512_set1_epi32(range[0]), hi = _mm512_set1_epi32(range[1]);
  int32_t lo_s = range[0], hi_s = range[1];
  int64_t u = 0;
  for (; u + 4 <= units && full > 0; u += 4) {
    __m512i sum[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512()};
    for (int64_t k = 0; k < full; k += 16) {
      __m128i r[4];
      for (int i = 0; i < 4; ++i) {
        const __m512i v = widen16(w + (u + i) * ld + k);
        sum[i] = _mm512_add_epi32(sum[i], v);
        lo = _mm512_min_epi32(lo, v);
        hi = _mm512_max_epi32(hi, v);
        r[i] = _mm512_maskz_cvtepi32_epi8(0xFFFF, v);
        if constexpr (kFlip) r[i] = _mm_xor_si128(r[i], _mm_set1_epi8(static_cast<char>(0x80)));
      }
      const __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpacklo_epi32(r[2], r[3]);
      const __m128i t2 = _mm_unpackhi_epi32(r[0], r[1]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
      uint8_t* out = dst + ((k / 4) * nr + u) * 4;
      const int64_t step = nr * 4;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(t0, t1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + step), _mm_unpackhi_epi64(t0, t1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * step), _mm_unpacklo_epi64(t2, t3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * step), _mm_unpackhi_epi64(t2, t3));
    }
    for (int i = 0; i < 4; ++i) {
      alignas(64) int32_t lanes[16];
      _mm512_store_si512(lanes, sum[i]);
      uint32_t s = 0;
      for (int32_t v : lanes) s += static_cast<uint32_t>(v);
      const T* row = w + (u + i) * ld;
      for (int64_t k = full; k < kc; ++k) {
        const int32_t v = k < valid ? int32_t{row[k]} : 0;
        dst[((k / 4) * nr + u + i) * 4 + k % 4] =
            static_cast<uint8_t>(static_cast<uint8_t>(v) ^ (kFlip ? 0x80u : 0u));
        s += static_cast<uint32_t>(v);
        lo_s = std::min(lo_s, v);
        hi_s = std::max(hi_s, v);
      }
      colsum[u + i] = static_cast<int32_t>(static_cast<uint32_t>(colsum[u + i]) + s);
    }
  }
  // The last 1 to 3 rows one at a time: 16 values give 4 words of 4 k-values, stored apart.
  for (; u < units && full > 0; ++u) {
    __m512i sum = _mm512_setzero_si512();
    const T* row = w + u * ld;
    for (int64_t k = 0; k < full; k += 16) {
      const __m512i v = widen16(row + k);
      sum = _mm512_add_epi32(sum, v);
      lo = _mm512_min_epi32(lo, v);
      hi = _mm512_max_epi32(hi, v);
      __m128i b = _mm512_maskz_cvtepi32_epi8(0xFFFF, v);
      if constexpr (kFlip) b = _mm_xor_si128(b, _mm_set1_epi8(static_cast<char>(0x80)));
      uint8_t* out = dst + ((k / 4) * nr + u) * 4;
      const int64_t step = nr * 4;
      const int32_t w0 = _mm_cvtsi128_si32(b), w1 = _mm_extract_epi32(b, 1);
      const int32_t w2 = _mm_extract_epi32(b, 2), w3 = _mm_extract_epi32(b, 3);
      std::memcpy(out, &w0, 4);
      std::memcpy(out + step, &w1, 4);
      std::memcpy(out + 2 * step, &w2, 4);
      std::memcpy(out + 3 * step, &w3, 4);
    }
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, sum);
    uint32_t s = 0;
    for (int32_t v : lanes) s += static_cast<uint32_t>(v);
    for (int64_t k = full; k < kc; ++k) {
      const int32_t v = k < valid ? int32_t{row[k]} : 0;
      dst[((k / 4) * nr + u) * 4 + k % 4] =
          static_cast<uint8_t>(static_cast<uint8_t>(v) ^ (kFlip ? 0x80u : 0u));
      s += static_cast<uint32_t>(v);
      lo_s = std::min(lo_s, v);
      hi_s = std::max(hi_s, v);
    }
    colsum[u] = static_cast<int32_t>(static_cast<uint32_t>(colsum[u]) + s);
  }
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, lo);
  for (int32_t v : lanes) lo_s = std::min(lo_s, v);
  _mm512_store_si512(lanes, hi);
  for (int32_t v : lanes) hi_s = std::max(hi_s, v);
  range[0] = lo_s;
  range[1] = hi_s;
  // Rows when fewer than 16 columns are valid, and the zero rows up to nr: the generic code.
  if (u < nr) {
    pack_b_generic<T, uint8_t, 4, kFlip>(w, ld, units, valid, kc, nr, dst_v, colsum, range, u);
  }
}

// 16 values (lanes >= the mask's count read as 0) as int32 lanes.
CVM_VNNI inline __m512i load_lanes(const int32_t* p, Mask16 m) {
  return _mm512_maskz_loadu_epi32(m, p);
}
CVM_VNNI inline __m512i load_lanes(const int8_t* p, Mask16 m) {
  return _mm512_maskz_cvtepi8_epi32(0xFFFF, _mm_maskz_loadu_epi8(m, p));
}

// conv2d weights: per output channel and group of 4 input channels, 16 taps at a time are
// loaded from the 4 channel rows, narrowed, interleaved into 16 words of 4 bytes, and each word
// is stored at its (tap, row) place in the panel. Sums and the value range on the way (the
// masked-off lanes read as 0, which is in every range).
template <typename T>
CVM_VNNI_FLAT void pack_w(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst_v,
                          int32_t* row_sum, int32_t* range) {
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int64_t cg = (icg + 3) / 4;
  __m512i lo = _mm512_set1_epi32(range[0]), hi = _mm512_set1_epi32(range[1]);
  alignas(64) uint32_t words[16];
  alignas(64) int32_t lanes[16];
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = w + r * icg * taps;
    __m512i sum = _mm512_setzero_si512();
    for (int64_t cgi = 0; cgi < cg; ++cgi) {
      for (int64_t kk = 0; kk < taps; kk += 16) {
        const int64_t n = std::min<int64_t>(16, taps - kk);
        const Mask16 m = low_lanes(static_cast<int>(n));
        __m128i b[4];
        for (int q = 0; q < 4; ++q) {
          const int64_t c = cgi * 4 + q;
          if (c >= icg) {
            b[q] = _mm_setzero_si128();
            continue;
          }
          const __m512i v = load_lanes(row + c * taps + kk, m);
          sum = _mm512_add_epi32(sum, v);
          lo = _mm512_min_epi32(lo, v);
          hi = _mm512_max_epi32(hi, v);
          b[q] = _mm512_maskz_cvtepi32_epi8(0xFFFF, v);
        }
        const __m128i lo01 = _mm_unpacklo_epi8(b[0], b[1]), hi01 = _mm_unpackhi_epi8(b[0], b[1]);
        const __m128i lo23 = _mm_unpacklo_epi8(b[2], b[3]), hi23 = _mm_unpackhi_epi8(b[2], b[3]);
        __m128i* out = reinterpret_cast<__m128i*>(words);
        _mm_store_si128(out + 0, _mm_unpacklo_epi16(lo01, lo23));
        _mm_store_si128(out + 1, _mm_unpackhi_epi16(lo01, lo23));
        _mm_store_si128(out + 2, _mm_unpacklo_epi16(hi01, hi23));
        _mm_store_si128(out + 3, _mm_unpackhi_epi16(hi01, hi23));
        uint8_t* first = dst + ((cgi * taps + kk) * rows + r) * 4;
        for (int64_t j = 0; j < n; ++j) std::memcpy(first + j * rows * 4, &words[j], 4);
      }
    }
    _mm512_store_si512(lanes, sum);
    uint32_t total = 0;
    for (int32_t v : lanes) total += static_cast<uint32_t>(v);
    row_sum[r] = static_cast<int32_t>(total);
  }
  int32_t lo_s = range[0], hi_s = range[1];
  _mm512_store_si512(lanes, lo);
  for (int32_t v : lanes) lo_s = std::min(lo_s, v);
  _mm512_store_si512(lanes, hi);
  for (int32_t v : lanes) hi_s = std::max(hi_s, v);
  range[0] = lo_s;
  range[1] = hi_s;
}

CVM_VNNI_FLAT void value_range(const int32_t* data, int64_t n, int32_t* range) {
  __m512i lo = _mm512_set1_epi32(range[0]), hi = _mm512_set1_epi32(range[1]);
  for (int64_t i = 0; i < n; i += 16) {
    const __m512i v = _mm512_maskz_loadu_epi32(
        low_lanes(static_cast<int>(std::min<int64_t>(16, n - i))), data + i);
    lo = _mm512_min_epi32(lo, v);  // masked-off lanes read 0: in every range
    hi = _mm512_max_epi32(hi, v);
  }
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, lo);
  for (int32_t v : lanes) range[0] = std::min(range[0], v);
  _mm512_store_si512(lanes, hi);
  for (int32_t v : lanes) range[1] = std::max(range[1], v);
}

CVM_VNNI_FLAT void value_range(const int8_t* data, int64_t n, int32_t* range) {
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t left = std::min<int64_t>(64, n - i);
    const Mask64 m = left == 64 ? ~Mask64{0} : (Mask64{1} << left) - 1;
    const __m512i v = _mm512_maskz_loadu_epi8(m, data + i);
    lo = _mm512_min_epi8(lo, v);
    hi = _mm512_max_epi8(hi, v);
  }
  alignas(64) int8_t bytes[64];
  _mm512_store_si512(bytes, lo);
  for (int8_t v : bytes) range[0] = std::min(range[0], int32_t{v});
  _mm512_store_si512(bytes, hi);
  for (int8_t v : bytes) range[1] = std::max(range[1], int32_t{v});
}

}  // namespace

// No planted faults (planted_faults.h): `fault` is ignored.
const NnIsa& CVM_ISA_NAME(vnni_isa)(int /*fault*/) {
  static const NnIsa isa = [] {
    NnIsa i = base_table<Vnni>(Isa::kAvx512Vnni);
    i.fill_row_i8 = fill_row<int8_t>;
    i.fill_row_i32 = fill_row<int32_t>;
    i.pack_b_i8 = pack_b<int8_t, false>;
    i.pack_b_i32 = pack_b<int32_t, false>;
    i.pack_a_i8 = pack_b<int8_t, true>;
    i.pack_a_i32 = pack_b<int32_t, true>;
    i.pack_w_i8 = pack_w<int8_t>;
    i.pack_w_i32 = pack_w<int32_t>;
    i.range_i8 = value_range;
    i.range_i32 = value_range;
    i.direct_i8 = direct_depthwise<Vnni, int8_t, path::kConvDepthwiseVnni>;
    i.direct_i32 = direct_depthwise<Vnni, int32_t, path::kConvDepthwiseVnni>;
    i.conv_path = path::kConvGemmVnni;
    i.dense_path = path::kDenseGemmVnni;
    return i;
  }();
  return isa;
}

}  // namespace cvm::opt::nn

#endif  // x86
