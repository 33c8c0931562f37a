// The AVX2 gemv of dense (optimized/dense_gemv.cc): few rows of X against W read from memory
// once, unit by unit, each W vector converted to int16 (vpackssdw for int32, vpmovsxbw for
// int8), checked (vpminsd/vpmaxsd: the fused value check) and multiplied with every row in the
// same pass (vpmaddwd: two exact int16 products per int32 lane; |x|, |w| <= 127, nn_gemm.h).
// The packed GEMM instead writes W's int16 copy and reads it back: for one row that doubles the
// memory traffic of an operation that is nothing but W's traffic. Four units at a time share
// each X load; the rows' sums wrap modulo 2^32 (exact once the values are checked).
#if defined(__x86_64__) || defined(__i386__)  // an x86 ISA (isa_list.h): nothing elsewhere
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "optimized/nn_gemm.h"

#define CVM_GEMV __attribute__((target("avx2,fma")))
#define CVM_GEMV_OP __attribute__((target("avx2,fma"), always_inline)) inline

namespace cvm::opt::nn {
namespace {

constexpr int kMaxRows = 2;  // path::kDenseGemvRows: the dispatch never passes more
constexpr int kUnits = 4;    // units per block

// Per element type: k values per step, X's int16 copy, and one step of W (range widened).
template <typename T>
struct Step;

template <>
struct Step<int32_t> {
  static constexpr int64_t kK = 16;
  static constexpr int kVecs = 1;  // int16 vectors per step
  // X's int16 copy in vpackssdw's order (lanes interleaved by 128-bit halves), as W's below.
  CVM_GEMV_OP static void convert(const int32_t* x, int16_t* out) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_packs_epi32(a, b));
  }
  CVM_GEMV_OP static void load(const int32_t* w, __m256i* v, __m256i& lo, __m256i& hi) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 8));
    lo = _mm256_min_epi32(lo, _mm256_min_epi32(a, b));
    hi = _mm256_max_epi32(hi, _mm256_max_epi32(a, b));
    v[0] = _mm256_packs_epi32(a, b);  // saturates only garbage, which the check rejects
  }
  CVM_GEMV_OP static void range(__m256i lo, __m256i hi, int32_t* out) {
    alignas(32) int32_t l[8], h[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
    out[0] = std::min(out[0], *std::min_element(l, l + 8));
    out[1] = std::max(out[1], *std::max_element(h, h + 8));
  }
};

template <>
struct Step<int8_t> {
  static constexpr int64_t kK = 32;
  static constexpr int kVecs = 2;
  CVM_GEMV_OP static void convert(const int8_t* x, int16_t* out) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                        _mm256_cvtepi8_epi16(_mm256_castsi256_si128(a)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16),
                        _mm256_cvtepi8_epi16(_mm256_extracti128_si256(a, 1)));
  }
  CVM_GEMV_OP static void load(const int8_t* w, __m256i* v, __m256i& lo, __m256i& hi) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    lo = _mm256_min_epi8(lo, a);
    hi = _mm256_max_epi8(hi, a);
    v[0] = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(a));
    v[1] = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(a, 1));
  }
  CVM_GEMV_OP static void range(__m256i lo, __m256i hi, int32_t* out) {
    alignas(32) int8_t l[32], h[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
    out[0] = std::min(out[0], int32_t{*std::min_element(l, l + 32)});
    out[1] = std::max(out[1], int32_t{*std::max_element(h, h + 32)});
  }
};

CVM_GEMV_OP uint32_t hsum(__m256i v) {
  const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1))));
}

// sums[r][j] = sum_k x[r][k] * w[u0 + j][k] (mod 2^32) for R rows and U units; x16: X's int16
// copy of the steps' k values, `body` of them; the tail k in [body, depth) in scalar code.
template <typename T, int R, int U>
CVM_GEMV void block(const T* x, const int16_t* x16, const T* w, int64_t depth, int64_t body,
                    uint32_t (*sums)[kUnits], __m256i& lo, __m256i& hi, int32_t* range) {
  using S = Step<T>;
  constexpr int kV = S::kVecs;
  __m256i acc[R][U];
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < U; ++j) acc[r][j] = _mm256_setzero_si256();
  }
  for (int64_t k = 0; k < body; k += S::kK) {
    __m256i xv[R][kV];
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kV; ++q) {
        xv[r][q] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x16 + r * body + k) + q);
      }
    }
    for (int j = 0; j < U; ++j) {
      __m256i wv[kV];
      S::load(w + j * depth + k, wv, lo, hi);
      for (int r = 0; r < R; ++r) {
        for (int q = 0; q < kV; ++q) {
          acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(wv[q], xv[r][q]));
        }
      }
    }
  }
  for (int j = 0; j < U; ++j) {
    for (int r = 0; r < R; ++r) sums[r][j] = hsum(acc[r][j]);
    for (int64_t k = body; k < depth; ++k) {
      const int32_t v = w[j * depth + k];
      range[0] = std::min(range[0], v);
      range[1] = std::max(range[1], v);
      for (int r = 0; r < R; ++r) {
        sums[r][j] += static_cast<uint32_t>(int32_t{x[r * depth + k]}) * static_cast<uint32_t>(v);
      }
    }
  }
}

template <typename T, int R>
CVM_GEMV void gemv_rows(const T* x, const T* w, const int32_t* bias, int32_t* y, int64_t depth,
                        int64_t units, int64_t first, int64_t last, int32_t* range) {
  using S = Step<T>;
  const int64_t body = depth / S::kK * S::kK;
  std::vector<int16_t> x16(static_cast<size_t>(R * body));
  for (int r = 0; r < R; ++r) {
    for (int64_t k = 0; k < body; k += S::kK) {
      S::convert(x + r * depth + k, x16.data() + r * body + k);
    }
  }
  __m256i lo = _mm256_set1_epi32(0), hi = _mm256_set1_epi32(0);  // 0 is in every range
  uint32_t sums[kMaxRows][kUnits];
  for (int64_t u = first; u < last; u += kUnits) {
    const int64_t n = std::min<int64_t>(kUnits, last - u);
    if (n == kUnits) {
      block<T, R, kUnits>(x, x16.data(), w + u * depth, depth, body, sums, lo, hi, range);
    } else {
      for (int64_t j = 0; j < n; ++j) {
        uint32_t one[kMaxRows][kUnits];
        block<T, R, 1>(x, x16.data(), w + (u + j) * depth, depth, body, one, lo, hi, range);
        for (int r = 0; r < R; ++r) sums[r][j] = one[r][0];
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        const uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[u + j]) : 0u;
        y[r * units + u + j] = static_cast<int32_t>(sums[r][j] + b);
      }
    }
  }
  S::range(lo, hi, range);
}

template <typename T>
void gemv(const T* x, const T* w, const int32_t* bias, int32_t* y, int64_t rows, int64_t depth,
          int64_t units, int64_t first, int64_t last, int32_t* range) {
  if (rows == 1) {
    gemv_rows<T, 1>(x, w, bias, y, depth, units, first, last, range);
  } else if (rows == 2) {
    gemv_rows<T, 2>(x, w, bias, y, depth, units, first, last, range);
  } else {
    __builtin_trap();  // the dispatch never asks for more rows than kMaxRows
  }
}

}  // namespace

void avx2_gemv_i8(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t* y, int64_t rows,
                  int64_t depth, int64_t units, int64_t first, int64_t last, int32_t* range) {
  gemv<int8_t>(x, w, bias, y, rows, depth, units, first, last, range);
}

void avx2_gemv_i32(const int32_t* x, const int32_t* w, const int32_t* bias, int32_t* y,
                   int64_t rows, int64_t depth, int64_t units, int64_t first, int64_t last,
                   int32_t* range) {
  gemv<int32_t>(x, w, bias, y, rows, depth, units, first, last, range);
}

}  // namespace cvm::opt::nn

#endif  // x86
