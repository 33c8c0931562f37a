// Per-output-element formulas of the reduce and nn kernels: one thread per output element, each
// looping over its own fiber or window, so no thread cooperates with another (correctness before
// speed; the order of integer additions does not change an exact sum).
#pragma once

#include "cuda/device_common.h"

namespace cvm::cuda {

// sum/max: output element o owns the fiber of the reduced axes at the kept coordinates of o.
struct ReduceParams {
  int32_t is_sum = 1;
  Dims kept;                           // the kept axes, in input order (the output's flat order)
  int64_t kept_stride[kMaxDims] = {};  // their input strides
  Dims reduced;
  int64_t reduced_stride[kMaxDims] = {};
  int64_t fiber = 1;  // product of the reduced dims
};

CVM_HD int32_t reduce_element(const ReduceParams& p, const InView& in, int64_t o) {
  int64_t coords[kMaxDims] = {};
  unravel(p.kept, o, coords);
  int64_t base = 0;
  for (int32_t j = 0; j < p.kept.n; ++j) base += coords[j] * p.kept_stride[j];
  int64_t sum = 0;
  int32_t best = 0;
  for (int64_t f = 0; f < p.fiber; ++f) {
    unravel(p.reduced, f, coords);
    int64_t offset = base;
    for (int32_t j = 0; j < p.reduced.n; ++j) offset += coords[j] * p.reduced_stride[j];
    const int32_t v = load(in, offset);
    sum += v;
    best = f == 0 || v > best ? v : best;
  }
  // The inferred precision (<= 32) bounds the exact sum, so it fits int32.
  return p.is_sum != 0 ? static_cast<int32_t>(sum) : best;
}

// conv2d, NCHW / OIHW. Inputs: data, weights, optional bias.
struct Conv2dParams {
  int64_t batch = 0, in_channels = 0, height = 0, width = 0;
  int64_t channels = 0, in_per_group = 0, out_per_group = 0;
  int64_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0;
  int64_t pad_h = 0, pad_w = 0, dilation_h = 0, dilation_w = 0;
  int64_t out_h = 0, out_w = 0;
  int32_t use_bias = 0;
};

CVM_HD int32_t conv2d_element(const Conv2dParams& p, const Views& v, int64_t o) {
  const int64_t q = o % p.out_w;
  const int64_t r = (o / p.out_w) % p.out_h;
  const int64_t oc = (o / (p.out_w * p.out_h)) % p.channels;
  const int64_t n = o / (p.out_w * p.out_h * p.channels);
  const int64_t first_channel = (oc / p.out_per_group) * p.in_per_group;
  // p0, p1 <= 8 and the output precision <= 32 bound every partial sum below 2^30: int32 is
  // exact (|x| * |w| * terms < 2^(p0 + p1 - 2 + bitlen(terms))).
  int32_t acc = 0;
  for (int64_t ic = 0; ic < p.in_per_group; ++ic) {
    const int64_t plane = (n * p.in_channels + first_channel + ic) * p.height;
    const int64_t filter = (oc * p.in_per_group + ic) * p.kernel_h;
    for (int64_t ki = 0; ki < p.kernel_h; ++ki) {
      const int64_t h = r * p.stride_h - p.pad_h + ki * p.dilation_h;
      if (h < 0 || h >= p.height) continue;  // zero padding contributes nothing
      for (int64_t kj = 0; kj < p.kernel_w; ++kj) {
        const int64_t w = q * p.stride_w - p.pad_w + kj * p.dilation_w;
        if (w < 0 || w >= p.width) continue;
        acc += load(v.in[0], (plane + h) * p.width + w) *
               load(v.in[1], (filter + ki) * p.kernel_w + kj);
      }
    }
  }
  return p.use_bias != 0 ? acc + load(v.in[2], oc) : acc;
}

// dense: Y[m, u] = sum_k X[m, k] * W[u, k] (+ B[u]); the same int32 bound as conv2d.
struct DenseParams {
  int64_t rows = 0, depth = 0, units = 0;
  int32_t use_bias = 0;
};

CVM_HD int32_t dense_element(const DenseParams& p, const Views& v, int64_t o) {
  const int64_t u = o % p.units;
  const int64_t m = o / p.units;
  int32_t acc = 0;
  for (int64_t k = 0; k < p.depth; ++k)
    acc += load(v.in[0], m * p.depth + k) * load(v.in[1], u * p.depth + k);
  return p.use_bias != 0 ? acc + load(v.in[2], u) : acc;
}

// max_pool2d: the maximum over the window's in-image elements (the inference guarantees that
// every window holds one).
struct PoolParams {
  int64_t planes = 0, height = 0, width = 0;
  int64_t pool_h = 0, pool_w = 0, stride_h = 0, stride_w = 0, pad_h = 0, pad_w = 0;
  int64_t out_h = 0, out_w = 0;
  int32_t narrow = 0;  // every index fits int32 (cuda/plan_fast.cc)
};

// I: the index type, int32_t where the plan found that every index fits (PoolParams::narrow).
template <class I>
CVM_HD int32_t pool_element_as(const PoolParams& p, const InView& in, I o) {
  const I out_w = static_cast<I>(p.out_w), out_h = static_cast<I>(p.out_h);
  const I height = static_cast<I>(p.height), width = static_cast<I>(p.width);
  const I q = o % out_w;
  const I r = (o / out_w) % out_h;
  const I plane = o / (out_w * out_h);
  const I top = r * static_cast<I>(p.stride_h) - static_cast<I>(p.pad_h);
  const I left = q * static_cast<I>(p.stride_w) - static_cast<I>(p.pad_w);
  const I h0 = top > 0 ? top : 0, w0 = left > 0 ? left : 0;
  const I h1 = top + static_cast<I>(p.pool_h) < height ? top + static_cast<I>(p.pool_h) : height;
  const I w1 = left + static_cast<I>(p.pool_w) < width ? left + static_cast<I>(p.pool_w) : width;
  int32_t best = load(in, (plane * height + h0) * width + w0);
  for (I h = h0; h < h1; ++h) {
    for (I w = w0; w < w1; ++w) {
      const int32_t x = load(in, (plane * height + h) * width + w);
      best = x > best ? x : best;
    }
  }
  return best;
}

CVM_HD int32_t pool_element(const PoolParams& p, const InView& in, int64_t o) {
  if (p.narrow != 0) return pool_element_as<int32_t>(p, in, static_cast<int32_t>(o));
  return pool_element_as<int64_t>(p, in, o);
}

}  // namespace cvm::cuda
