// The direct conv2d of the vector ISAs, over nn_tile.h's traits plus mullo(a, b) (each lane's
// product, low 32 bits). One input channel per group with width stride 1 (depthwise): the
// channel is copied once per unit into a zero-padded int32 plane holding exactly the rows and
// columns the outputs read, then each strip of up to 4 vectors of consecutive output pixels
// accumulates all KH x KW taps in registers (a load, a multiply and an add per tap and vector)
// and is stored once. The generic kernel instead adds each tap into the output row, reading and
// writing every output KH x KW times. Other geometries take the generic tap-axpy code.
//
// Included by an ISA file after nn_tile.h (the same CVM_NN_TARGET contract). The plane has one
// strip of zeroed slack past its last row, so a strip's whole-vector loads stay inside it: the
// lanes past a row's end read the next row or the slack, and their sums are never stored.
// Values are validated before this runs: every product and sum fits int32, as in the generic
// kernel (the vector lanes would wrap where C++ int32 arithmetic would be undefined).
#pragma once

#if !defined(CVM_NN_TARGET) || !defined(CVM_NN_FLAT)
#error "define CVM_NN_TARGET and CVM_NN_FLAT before including optimized/nn_depthwise.h"
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/paths.h"

namespace cvm::opt::nn {
namespace {

inline constexpr int kDepthwiseStrip = 4;  // vectors of output pixels per strip

// NV vectors of output pixels y[0, n) (n > (NV - 1) * kLanes): bias plus every tap's product.
template <typename V, int NV>
CVM_NN_TARGET inline void depthwise_strip(const int32_t* base, const int64_t* toff,
                                          const int32_t* w, int64_t taps,
                                          typename V::Vec bias, int64_t n, int32_t* y) {
  typename V::Vec acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = bias;
  for (int64_t t = 0; t < taps; ++t) {
    const int32_t* src = base + toff[t];
    const typename V::Vec wv = V::set1(w[t]);
    for (int v = 0; v < NV; ++v) {
      acc[v] = V::add(acc[v], V::mullo(V::loadu(src + V::kLanes * v), wv));
    }
  }
  for (int v = 0; v < NV; ++v) {
    const int64_t left = n - int64_t{V::kLanes} * v;
    if (left >= V::kLanes) {
      V::store(y + V::kLanes * v, acc[v]);
    } else {
      V::store_low(y + V::kLanes * v, static_cast<int>(left), acc[v]);
    }
  }
}

// One output row of one channel: strips of kDepthwiseStrip vectors, the last one shorter.
template <typename V>
CVM_NN_TARGET inline void depthwise_row(const int32_t* base, const int64_t* toff,
                                        const int32_t* w, int64_t taps, typename V::Vec bias,
                                        int64_t width, int32_t* y) {
  constexpr int64_t kStrip = int64_t{kDepthwiseStrip} * V::kLanes;
  for (int64_t q0 = 0; q0 < width; q0 += kStrip) {
    const int64_t n = std::min(kStrip, width - q0);
    switch ((n + V::kLanes - 1) / V::kLanes) {
      case 1: depthwise_strip<V, 1>(base + q0, toff, w, taps, bias, n, y + q0); break;
      case 2: depthwise_strip<V, 2>(base + q0, toff, w, taps, bias, n, y + q0); break;
      case 3: depthwise_strip<V, 3>(base + q0, toff, w, taps, bias, n, y + q0); break;
      default: depthwise_strip<V, 4>(base + q0, toff, w, taps, bias, n, y + q0); break;
    }
  }
}

// Rows [0, hp) of channel xc (H x W) into the plane (hp x wp), zero-padded: plane row i holds
// image row i - PH, plane column j image column j - PW.
template <typename T>
inline void depthwise_plane(const DirectConv& d, const T* xc, int64_t hp, int64_t wp,
                            int32_t* plane) {
  const int64_t c_lo = std::min(d.pad_w, wp), c_hi = std::min(d.pad_w + d.width, wp);
  for (int64_t i = 0; i < hp; ++i) {
    int32_t* dst = plane + i * wp;
    const int64_t r = i - d.pad_h;
    if (r < 0 || r >= d.height) {
      std::fill(dst, dst + wp, 0);
      continue;
    }
    std::fill(dst, dst + c_lo, 0);
    const T* src = xc + r * d.width;
    for (int64_t j = c_lo; j < c_hi; ++j) dst[j] = src[j - d.pad_w];
    std::fill(dst + c_hi, dst + wp, 0);
  }
}

// The direct conv2d of units [first, last) (DirectConvFn); kPath: the path this ISA marks when
// it takes the depthwise kernel.
template <typename V, typename T, const int& kPath>
CVM_NN_FLAT void direct_depthwise(const DirectConv& d, int64_t first, int64_t last) {
  const int64_t hp = (d.out_h - 1) * d.stride_h + (d.kernel_h - 1) * d.dilation_h + 1;
  const int64_t wp = d.out_w + (d.kernel_w - 1) * d.dilation_w;
  if (d.in_per_group != 1 || d.stride_w != 1 ||
      hp * wp > 4 * (d.height * d.width + d.out_h * d.out_w) + 4096) {
    direct_conv_generic<T>(d, first, last);
    return;
  }
  path::hit(kPath);
  const T* x = static_cast<const T*>(d.x);
  const int64_t groups = d.channels / d.out_per_group;
  const int64_t taps = d.kernel_h * d.kernel_w;
  std::vector<int32_t> plane(static_cast<size_t>(hp * wp + kDepthwiseStrip * V::kLanes), 0);
  std::vector<int64_t> toff(static_cast<size_t>(taps));  // each tap's offset in the plane
  for (int64_t t = 0; t < taps; ++t) {
    toff[static_cast<size_t>(t)] =
        t / d.kernel_w * d.dilation_h * wp + t % d.kernel_w * d.dilation_w;
  }
  for (int64_t unit = first; unit < last; ++unit) {
    const int64_t n = unit / groups, g = unit % groups;
    depthwise_plane<T>(d, x + (n * d.in_channels + g) * d.height * d.width, hp, wp,
                       plane.data());
    for (int64_t o = 0; o < d.out_per_group; ++o) {
      const int64_t oc = g * d.out_per_group + o;
      const int32_t* wo = d.w + oc * taps;
      const typename V::Vec bias = V::set1(d.bias != nullptr ? d.bias[oc] : 0);
      int32_t* y = d.y + (n * d.channels + oc) * d.out_h * d.out_w;
      for (int64_t p = 0; p < d.out_h; ++p) {
        depthwise_row<V>(plane.data() + p * d.stride_h * wp, toff.data(), wo, taps, bias,
                         d.out_w, y + p * d.out_w);
      }
    }
  }
}

}  // namespace
}  // namespace cvm::opt::nn
