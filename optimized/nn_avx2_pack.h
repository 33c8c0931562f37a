// conv2d's packing for the AVX2-class tables (8-bit quads: nn_isa_avx2.cc and
// nn_isa_avxvnni.cc, the twin included). The weights: the layout of pack_w_generic
// (nn_generic.h), built for full panels of four rows eight taps at a time. A row's eight taps
// of a channel group are G contiguous runs of eight values (one per channel), merged into eight
// words in a vector; the four rows' vectors are then transposed so that each tap's four words,
// contiguous in the panel, leave in one 16-byte store. Word by word, C256_14x14's 590K weights
// took 2.3-2.5 times as long in cache and 1.5-1.6 times cold (a standalone copy of both,
// alternating; docs/performance.md). The data: fill_row_generic's phase-plane rows, 16 pixels
// of the four channels at a time, for width strides 1 and 2. With them, the table fields every
// AVX2-class table fills alike. Internal to the AVX2-class kernel files, which define
// CVM_NN_TARGET and CVM_NN_FLAT (everything here is in an unnamed namespace).
#pragma once

#include "optimized/nn_avx2_vec.h"  // first: the twin's SIMDe must precede any <immintrin.h>

#include <cstdint>
#include <cstring>

#include "optimized/nn_depthwise.h"
#include "optimized/nn_generic.h"
#include "optimized/paths.h"

namespace cvm::opt::nn {
namespace {

// The panel height the transposition is written for (the AVX2-class tables' kConvMr); it
// moves path::kConvPackTaps taps (the int32 lanes of a vector) at a time.
inline constexpr int64_t kPackPanelRows = 4;
inline constexpr int64_t kPackTapBytes = kPackPanelRows * sizeof(uint32_t);  // a tap's words

// Eight consecutive values as int32 lanes.
CVM_AVX2_VEC_OP inline __m256i load_taps(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
CVM_AVX2_VEC_OP inline __m256i load_taps(const int8_t* p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// Lane j: the word of tap j (weight_word's, all G channels): channel g's value from
// src + g * taps + j, in element g (modular).
template <typename E, int G, typename T>
CVM_AVX2_VEC_OP inline __m256i tap_words(const T* src, int64_t taps) {
  static_assert(sizeof(E) == 1 && G == 4, "8-bit quads: a packed weight word is 32 bits");
  // Channel g's low byte moved to byte g: up to byte 3, then down to byte g.
  const __m256i c0 = _mm256_and_si256(load_taps(src), _mm256_set1_epi32(0xFF));
  const __m256i c1 = _mm256_srli_epi32(_mm256_slli_epi32(load_taps(src + taps), 24), 16);
  const __m256i c2 = _mm256_srli_epi32(_mm256_slli_epi32(load_taps(src + 2 * taps), 24), 8);
  const __m256i c3 = _mm256_slli_epi32(load_taps(src + 3 * taps), 24);
  return _mm256_or_si256(_mm256_or_si256(c0, c1), _mm256_or_si256(c2, c3));
}

// r0..r3: rows 0-3's words of eight taps; tap j's four words (rows 0-3) go to out + j * 16.
CVM_AVX2_VEC_OP inline void store_tap_columns(__m256i r0, __m256i r1, __m256i r2, __m256i r3,
                                              uint8_t* out) {
  const __m256i r01_lo = _mm256_unpacklo_epi32(r0, r1), r01_hi = _mm256_unpackhi_epi32(r0, r1);
  const __m256i r23_lo = _mm256_unpacklo_epi32(r2, r3), r23_hi = _mm256_unpackhi_epi32(r2, r3);
  // Taps j and j + 4 in the two halves of tap_pair[j] (unpack works within 128-bit halves).
  const __m256i tap_pair[4] = {
      _mm256_unpacklo_epi64(r01_lo, r23_lo), _mm256_unpackhi_epi64(r01_lo, r23_lo),
      _mm256_unpacklo_epi64(r01_hi, r23_hi), _mm256_unpackhi_epi64(r01_hi, r23_hi)};
  for (int j = 0; j < 4; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j * kPackTapBytes),
                     _mm256_castsi256_si128(tap_pair[j]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (j + 4) * kPackTapBytes),
                     _mm256_extracti128_si256(tap_pair[j], 1));
  }
}

// pack_w_generic's contract (PackWFn). Panels of other heights, fewer than eight taps or G
// channels, the taps past the last block of eight and a last channel group short of G go word
// by word.
template <typename T, typename E, int G>
CVM_NN_TARGET void pack_w_avx2(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst_v,
                               int32_t* row_sum, int32_t* range) {
  if (rows != kPackPanelRows || taps < path::kConvPackTaps || icg < G) {
    pack_w_generic<T, E, G>(w, rows, icg, taps, dst_v, row_sum, range);
    return;
  }
  path::hit(path::kConvPackTransposed);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int64_t ld = icg * taps;  // one row's values
  for (int64_t r = 0; r < rows; ++r) {
    row_sum[r] = static_cast<int32_t>(sum_and_range(w + r * ld, ld, range[0], range[1]));
  }
  const int64_t cg = (icg + G - 1) / G;
  for (int64_t cgi = 0; cgi < cg; ++cgi) {
    const T* src = w + cgi * G * taps;
    const int n = static_cast<int>(std::min<int64_t>(G, icg - cgi * G));
    uint8_t* out = dst + cgi * taps * kPackTapBytes;
    int64_t kk = 0;
    for (; n == G && kk + path::kConvPackTaps <= taps; kk += path::kConvPackTaps) {
      store_tap_columns(tap_words<E, G>(src + kk, taps), tap_words<E, G>(src + ld + kk, taps),
                        tap_words<E, G>(src + 2 * ld + kk, taps),
                        tap_words<E, G>(src + 3 * ld + kk, taps), out + kk * kPackTapBytes);
    }
    for (; kk < taps; ++kk) {
      for (int64_t r = 0; r < rows; ++r) {
        const uint32_t word = weight_word<T, E, G>(src + r * ld + kk, taps, n);
        std::memcpy(out + kk * kPackTapBytes + r * sizeof word, &word, sizeof word);
      }
    }
  }
}

// 16 values at p, width stride 1 or 2, as their low bytes (fill_row_generic's modular cast):
// masked to 8 bits, the unsigned packs cannot saturate.
CVM_AVX2_VEC_OP inline __m128i low_bytes16(const int32_t* p, int64_t stride) {
  __m256i a = load_taps(p), b = load_taps(p + 8);
  if (stride == 2) {
    const __m256i even_first = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i c = load_taps(p + 16), d = load_taps(p + 24);
    a = _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(a, even_first),
                                  _mm256_permutevar8x32_epi32(b, even_first), 0x20);
    b = _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(c, even_first),
                                  _mm256_permutevar8x32_epi32(d, even_first), 0x20);
  }
  const __m256i byte = _mm256_set1_epi32(0xFF);
  // packus works within 128-bit halves: values 0-3, 8-11, 4-7, 12-15; the permute restores them.
  const __m256i words = _mm256_permute4x64_epi64(
      _mm256_packus_epi32(_mm256_and_si256(a, byte), _mm256_and_si256(b, byte)), 0xD8);
  return _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
}
CVM_AVX2_VEC_OP inline __m128i low_bytes16(const int8_t* p, int64_t stride) {
  if (stride == 1) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256i even = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                                        _mm256_set1_epi16(0xFF));
  return _mm_packus_epi16(_mm256_castsi256_si128(even), _mm256_extracti128_si256(even, 1));
}

// 16 pixels x 4 channels from column at of each channel's row (a missing channel reads 0),
// interleaved into 64 bytes at out, plus add.
template <typename T>
CVM_AVX2_VEC_OP inline void fill_step16(const T* const* src, int64_t stride, int64_t at,
                                        __m128i add, uint8_t* out) {
  __m128i c[4];
  for (int s = 0; s < 4; ++s) {
    c[s] = src[s] ? low_bytes16(src[s] + at, stride) : _mm_setzero_si128();
  }
  const __m128i lo01 = _mm_unpacklo_epi8(c[0], c[1]), hi01 = _mm_unpackhi_epi8(c[0], c[1]);
  const __m128i lo23 = _mm_unpacklo_epi8(c[2], c[3]), hi23 = _mm_unpackhi_epi8(c[2], c[3]);
  const __m128i pixels[4] = {_mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                             _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
  for (int q = 0; q < 4; ++q) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out) + q, _mm_add_epi8(pixels[q], add));
  }
}

// fill_row_generic's contract (FillRowFn) for u8 quads stored x + kAdd (0: s8 as it is), 16
// pixels at a time for width strides 1 and 2, the others value by value. A row's last pixels
// take one more step, ending at its last pixel and overlapping the one before (the same bytes
// again), where that step reads inside the row: C64_56x56's 56 pixels are four steps, not
// three and 8 pixels value by value. perf put the value-by-value fill at 5-8% of conv2d
// C64_56x56's time on int32 data.
template <typename T, int kAdd>
CVM_NN_TARGET void fill_row_avx2(const T* const* src, int64_t stride, int64_t first,
                                 int64_t width, int64_t count, void* dst_v) {
  if (stride != 1 && stride != 2) {
    fill_row_generic<T, uint8_t, 4, true, kAdd>(src, stride, first, width, count, dst_v);
    return;
  }
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  int64_t lo = 0, hi = 0;
  inside_range(stride, first, width, count, lo, hi);
  const __m128i add = _mm_set1_epi8(static_cast<char>(kAdd));
  int64_t j = lo;
  for (; j + 16 <= hi && first + stride * (j + 16) <= width; j += 16) {
    fill_step16(src, stride, first + stride * j, add, dst + j * 4);
  }
  if (j < hi && hi - lo >= 16 && first + stride * hi <= width) {
    fill_step16(src, stride, first + stride * (hi - 16), add, dst + (hi - 16) * 4);
    j = hi;
  }
  fill_row_generic<T, uint8_t, 4, true, kAdd>(src, stride, first, width, count, dst, j);
}

template <typename T>
CVM_NN_FLAT void pack_w_panels(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst,
                               int32_t* row_sum, int32_t* range) {
  pack_w_avx2<T, uint8_t, 4>(w, rows, icg, taps, dst, row_sum, range);
}

template <typename T>
CVM_NN_FLAT void value_range(const T* data, int64_t n, int32_t* range) {
  range_generic<T>(data, n, range);
}

// The fields every AVX2-class table fills alike: conv2d's data rows (stored x + kAdd) and weight
// panels, the value ranges and the depthwise kernel.
template <int kAdd>
void set_avx2_class_fields(NnIsa& i) {
  i.fill_row_i8 = fill_row_avx2<int8_t, kAdd>;
  i.fill_row_i32 = fill_row_avx2<int32_t, kAdd>;
  i.pack_w_i8 = pack_w_panels<int8_t>;
  i.pack_w_i32 = pack_w_panels<int32_t>;
  i.range_i8 = value_range<int8_t>;
  i.range_i32 = value_range<int32_t>;
  i.direct_i8 = direct_depthwise<Avx2Vec, int8_t, path::kConvDepthwiseAvx2>;
  i.direct_i32 = direct_depthwise<Avx2Vec, int32_t, path::kConvDepthwiseAvx2>;
}

}  // namespace
}  // namespace cvm::opt::nn
