// Plain C++ versions of the nn packing and direct kernels. Each ISA file (nn_isa_*.cc) wraps them
// in functions compiled for that ISA (target attribute + flatten), so the compiler vectorizes the
// same source for AVX-512, AVX2 or the baseline; the VNNI file hand-vectorizes the hot cases.
// Internal to optimized/nn_isa_*.cc (everything here is in an unnamed namespace).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "optimized/nn_gemm.h"

namespace cvm::opt::nn {
namespace {

// The j range [lo, hi) (clipped to [0, count)) for which first + j * stride is in [0, width).
inline void inside_range(int64_t stride, int64_t first, int64_t width, int64_t count, int64_t& lo,
                         int64_t& hi) {
  lo = first >= 0 ? 0 : (-first + stride - 1) / stride;
  hi = first >= width ? 0 : (width - first + stride - 1) / stride;
  lo = std::min(lo, count);
  hi = std::clamp(hi, lo, count);
}

// E: packed element (uint8_t with kShift: x + kAdd; int16_t otherwise), G per pixel. The values
// are not validated yet, so the shift is added in uint32 and the cast is modular. A vectorized
// fill passes `from`: the pixels in [0, from) inside the image are its own, stored already.
template <typename T, typename E, int G, bool kShift, int kAdd = 128>
inline void fill_row_generic(const T* const* src, int64_t stride, int64_t first, int64_t width,
                             int64_t count, void* dst_v, int64_t from = 0) {
  E* dst = static_cast<E*>(dst_v);
  constexpr uint32_t kShiftBy = kShift ? kAdd : 0;
  constexpr E kPad = static_cast<E>(kShiftBy);
  int64_t lo = 0, hi = 0;
  inside_range(stride, first, width, count, lo, hi);
  for (int64_t j = 0; j < lo * G; ++j) dst[j] = kPad;
  for (int64_t j = hi * G; j < count * G; ++j) dst[j] = kPad;
  const int64_t start = std::max(lo, from);
  for (int s = 0; s < G; ++s) {
    const T* row = src[s];
    if (row == nullptr) {
      for (int64_t j = start; j < hi; ++j) dst[j * G + s] = kPad;
    } else if (stride == 1) {
      for (int64_t j = start; j < hi; ++j) {
        dst[j * G + s] = static_cast<E>(static_cast<uint32_t>(row[first + j]) + kShiftBy);
      }
    } else {
      for (int64_t j = start; j < hi; ++j) {
        dst[j * G + s] = static_cast<E>(static_cast<uint32_t>(row[first + j * stride]) + kShiftBy);
      }
    }
  }
}

// The sum (wrapping in uint32: the values are not validated yet) and the range of n contiguous
// values, in a pass of their own, which the compiler vectorizes; fused into a packing loop that
// scatters the values, GCC 12 compiled them into a store-forwarding stall per element (two
// thirds of conv2d C256_14x14's time, perf).
template <typename T>
inline uint32_t sum_and_range(const T* values, int64_t n, int32_t& lo, int32_t& hi) {
  uint32_t sum = 0;
  int32_t l = lo, h = hi;  // locals: lo and hi may alias the values as far as the compiler knows
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = values[i];
    sum += static_cast<uint32_t>(v);
    l = std::min(l, v);
    h = std::max(h, v);
  }
  lo = l;
  hi = h;
  return sum;
}

// One packed weight word: the first n (<= G) values src[g * taps] as E (modular), channel g in
// element g, the rest 0; the packers store it whole, since storing the elements one by one, G
// bytes apart in a panel, cost a store each (perf: conv2d C256_14x14 at precision 7 spent 31% of
// its time there). Built in a small array read as one word: shifting each value into a uint32
// compiled to code 2.3 times as slow (GCC 12, a standalone copy of both on C256's weights).
template <typename T, typename E, int G>
inline uint32_t weight_word(const T* src, int64_t taps, int n) {
  static_assert(sizeof(E) * G == sizeof(uint32_t), "a packed weight word is 32 bits");
  E q[G] = {};
  for (int g = 0; g < n; ++g) q[g] = static_cast<E>(src[g * taps]);
  uint32_t word;
  std::memcpy(&word, q, sizeof word);
  return word;
}

// dst [kc / G][nr][G]: rows u < units from w + u * ld, columns k < valid (others 0); rows
// from u_first on.
// Values are not validated yet (range collects them), so sums wrap in uint32 and narrowing
// casts are modular: garbage in, no undefined behaviour.
// kFlip stores int8 values with the sign bit flipped: x + 128 as u8 (the VNNI data operand);
// kAdd (with kFlip false) stores x + kAdd, in uint32 so that garbage cannot overflow.
template <typename T, typename E, int G, bool kFlip = false, int kAdd = 0>
inline void pack_b_generic(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                           int64_t nr, void* dst_v, int32_t* colsum, int32_t* range,
                           int64_t u_first = 0) {
  E* dst = static_cast<E*>(dst_v);
  const int64_t steps = kc / G;
  int32_t lo = range[0], hi = range[1];
  for (int64_t u = u_first; u < nr; ++u) {
    if (u >= units) {
      for (int64_t t = 0; t < steps; ++t) {
        for (int s = 0; s < G; ++s) dst[(t * nr + u) * G + s] = 0;
      }
      continue;
    }
    const T* row = w + u * ld;
    const uint32_t sum = sum_and_range(row, std::min(valid, kc), lo, hi);
    for (int64_t t = 0; t < steps; ++t) {
      for (int s = 0; s < G; ++s) {
        const int64_t k = t * G + s;
        const int32_t v = k < valid ? int32_t{row[k]} : 0;
        if constexpr (kFlip) {
          dst[(t * nr + u) * G + s] = static_cast<E>(static_cast<uint8_t>(v) ^ 0x80u);
        } else if constexpr (kAdd != 0) {
          dst[(t * nr + u) * G + s] = static_cast<E>(static_cast<uint32_t>(v) + kAdd);
        } else {
          dst[(t * nr + u) * G + s] = static_cast<E>(v);
        }
      }
    }
    colsum[u] = static_cast<int32_t>(static_cast<uint32_t>(colsum[u]) + sum);
  }
  range[0] = lo;
  range[1] = hi;
}

// dst [cg][taps][rows][G] (cg = ceil(icg / G)): row r's weights (icg channels x taps, from
// w + r * icg * taps) as words of G channels per tap, channels past icg 0; each row's sum and
// the range of all values first (sum_and_range). Rows are read sequentially, the order two
// threads need (panel-major writes were slower on 2 threads).
template <typename T, typename E, int G>
inline void pack_w_generic(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst_v,
                           int32_t* row_sum, int32_t* range) {
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int64_t cg = (icg + G - 1) / G;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = w + r * icg * taps;
    row_sum[r] = static_cast<int32_t>(sum_and_range(row, icg * taps, range[0], range[1]));
    for (int64_t cgi = 0; cgi < cg; ++cgi) {
      const T* src = row + cgi * G * taps;
      const int n = static_cast<int>(std::min<int64_t>(G, icg - cgi * G));
      uint8_t* out = dst + ((cgi * taps * rows + r) * G) * sizeof(E);
      for (int64_t kk = 0; kk < taps; ++kk) {
        const uint32_t word = weight_word<T, E, G>(src + kk, taps, n);
        std::memcpy(out + kk * rows * sizeof word, &word, sizeof word);
      }
    }
  }
}

template <typename T>
inline void range_generic(const T* data, int64_t n, int32_t* range) {
  int32_t lo = range[0], hi = range[1];
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, int32_t{data[i]});
    hi = std::max(hi, int32_t{data[i]});
  }
  range[0] = lo;
  range[1] = hi;
}

// Units [first, last), unit = n * groups + g: each output plane of the group is bias + a sum of
// taps, each tap an axpy of an input row segment into an output row (contiguous when the width
// stride is 1). Values are validated before this runs.
template <typename T>
inline void direct_conv_generic(const DirectConv& d, int64_t first, int64_t last) {
  const T* x = static_cast<const T*>(d.x);
  const int64_t plane_size = d.out_h * d.out_w;
  const int64_t taps = d.in_per_group * d.kernel_h * d.kernel_w;
  for (int64_t plane = first * d.out_per_group; plane < last * d.out_per_group; ++plane) {
    const int64_t n = plane / d.channels, oc = plane % d.channels;
    const int64_t g = oc / d.out_per_group;
    int32_t* y = d.y + plane * plane_size;
    const int32_t b = d.bias != nullptr ? d.bias[oc] : 0;
    for (int64_t i = 0; i < plane_size; ++i) y[i] = b;
    const int32_t* wo = d.w + oc * taps;
    for (int64_t ic = 0; ic < d.in_per_group; ++ic) {
      const T* xc = x + ((n * d.in_channels + g * d.in_per_group + ic) * d.height) * d.width;
      for (int64_t ki = 0; ki < d.kernel_h; ++ki) {
        // Output rows p with p * SH - PH + ki * DH in [0, H).
        int64_t p_lo = 0, p_hi = 0;
        inside_range(d.stride_h, ki * d.dilation_h - d.pad_h, d.height, d.out_h, p_lo, p_hi);
        for (int64_t kj = 0; kj < d.kernel_w; ++kj) {
          const int32_t wv = wo[(ic * d.kernel_h + ki) * d.kernel_w + kj];
          if (wv == 0) continue;
          const int64_t off = kj * d.dilation_w - d.pad_w;
          int64_t q_lo = 0, q_hi = 0;
          inside_range(d.stride_w, off, d.width, d.out_w, q_lo, q_hi);
          for (int64_t p = p_lo; p < p_hi; ++p) {
            const T* xr = xc + (p * d.stride_h - d.pad_h + ki * d.dilation_h) * d.width;
            int32_t* yr = y + p * d.out_w;
            if (d.stride_w == 1) {
              for (int64_t q = q_lo; q < q_hi; ++q) yr[q] += wv * int32_t{xr[q + off]};
            } else {
              for (int64_t q = q_lo; q < q_hi; ++q) {
                yr[q] += wv * int32_t{xr[q * d.stride_w + off]};
              }
            }
          }
        }
      }
    }
  }
}

template <typename T>
inline void direct_dense_generic(const T* x, const int32_t* w, const int32_t* bias, int32_t* y,
                                 int64_t depth, int64_t units, int64_t first, int64_t last) {
  for (int64_t m = first; m < last; ++m) {
    const T* xr = x + m * depth;
    for (int64_t u = 0; u < units; ++u) {
      const int32_t* wr = w + u * depth;
      int32_t sum = 0;
      for (int64_t k = 0; k < depth; ++k) sum += int32_t{xr[k]} * wr[k];
      y[m * units + u] = (bias != nullptr ? bias[u] : 0) + sum;
    }
  }
}

}  // namespace
}  // namespace cvm::opt::nn
