// The direct formulas of the quantized operators (the MRT formalization, docs/glossary.md), as naive int64 loops, and the
// identity catalogue. Channel-wise results are merged lazily here too: Ye = sum_i m_i Yei for
// conv2d/dense, Ye[:, i] = m_i Yei for pad/relu/max_pool2d.
#include <algorithm>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "mrt/mrt_identity.h"

namespace cvm::mrt {
namespace {

size_t at(int64_t i) { return static_cast<size_t>(i); }

Int64Tensor direct_conv2d(const IdentityCase& c) {
  const Tensor& x = c.xq;
  const Tensor& w = c.wq;
  const int64_t n_batch = x.dim(0), channels = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t out_ch = w.dim(0), kh = w.dim(2), kw = w.dim(3);
  const auto [sh, sw] = c.strides;
  const auto [dh, dw] = c.dilation;
  const int64_t oh = (h - dh * (kh - 1) - 1) / sh + 1, ow = (wd - dw * (kw - 1) - 1) / sw + 1;
  const bool xz = c.scheme.x_zero_point, wz = c.scheme.w_zero_point;
  Int64Tensor y{{n_batch, out_ch, oh, ow}, {}};
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t o = 0; o < out_ch; ++o) {
      for (int64_t p = 0; p < oh; ++p) {
        for (int64_t q = 0; q < ow; ++q) {
          int64_t merged = 0;
          for (int64_t i = 0; i < channels; ++i) {
            // Yei = sum Xq*Wq + zw_i sum Xq + zx_i sum Wq + KH*KW*zx_i*zw_i
            int64_t yi = 0, sum_x = 0, sum_w = 0;
            for (int64_t ki = 0; ki < kh; ++ki) {
              for (int64_t kj = 0; kj < kw; ++kj) {
                const int64_t xv =
                    x.get(((n * channels + i) * h + p * sh + ki * dh) * wd + q * sw + kj * dw);
                const int64_t wv = w.get(((o * channels + i) * kh + ki) * kw + kj);
                yi += xv * wv;
                sum_x += xv;
                sum_w += wv;
              }
            }
            if (wz) yi += c.zw[at(i)] * sum_x;
            if (xz) yi += c.zx[at(i)] * sum_w;
            if (xz && wz) yi += kh * kw * c.zx[at(i)] * c.zw[at(i)];
            merged += c.multipliers[at(i)] * yi;
          }
          y.values.push_back(merged);
        }
      }
    }
  }
  return y;
}

Int64Tensor direct_dense(const IdentityCase& c) {
  const int64_t rows = c.xq.dim(0), depth = c.xq.dim(1), units = c.wq.dim(0);
  const bool xz = c.scheme.x_zero_point, wz = c.scheme.w_zero_point;
  Int64Tensor y{{rows, units}, {}};
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t m = 0; m < units; ++m) {
      int64_t merged = 0;
      for (int64_t i = 0; i < depth; ++i) {
        const int64_t xv = c.xq.get(n * depth + i), wv = c.wq.get(m * depth + i);
        int64_t yi = xv * wv;
        if (wz) yi += c.zw[at(i)] * xv;
        if (xz) yi += c.zx[at(i)] * wv;
        if (xz && wz) yi += c.zx[at(i)] * c.zw[at(i)];
        merged += c.multipliers[at(i)] * yi;
      }
      y.values.push_back(merged);
    }
  }
  return y;
}

Int64Tensor direct_pad(const IdentityCase& c) {
  const Tensor& x = c.xq;
  const int64_t n_batch = x.dim(0), channels = x.dim(1), h = x.dim(2), w = x.dim(3);
  const auto [ph1, ph2, pw1, pw2] = c.padding;
  Int64Tensor y{{n_batch, channels, ph1 + h + ph2, pw1 + w + pw2}, {}};
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t i = 0; i < channels; ++i) {
      for (int64_t r = 0; r < ph1 + h + ph2; ++r) {
        for (int64_t s = 0; s < pw1 + w + pw2; ++s) {
          const bool inside = ph1 <= r && r < h + ph1 && pw1 <= s && s < w + pw1;
          int64_t v = c.pad_constants[at(i)];
          if (inside) {
            v = x.get(((n * channels + i) * h + r - ph1) * w + s - pw1);
            if (c.scheme.x_zero_point) v += c.zx[at(i)];
          }
          y.values.push_back(c.multipliers[at(i)] * v);
        }
      }
    }
  }
  return y;
}

Int64Tensor direct_relu(const IdentityCase& c) {
  const Tensor& x = c.xq;
  const int64_t channels = x.dim(1);
  int64_t inner = 1;
  for (int d = 2; d < x.ndim(); ++d) inner *= x.dim(d);
  Int64Tensor y{x.shape(), {}};
  for (int64_t flat = 0; flat < x.size(); ++flat) {
    const int64_t i = flat / inner % channels;
    const int64_t v = x.get(flat) + (c.scheme.x_zero_point ? c.zx[at(i)] : 0);
    y.values.push_back(c.multipliers[at(i)] * std::max<int64_t>(0, v));
  }
  return y;
}

Int64Tensor direct_max_pool2d(const IdentityCase& c) {
  const Tensor& x = c.xq;
  const int64_t n_batch = x.dim(0), channels = x.dim(1), h = x.dim(2), w = x.dim(3);
  const auto [kh, kw] = c.pool;
  const auto [sh, sw] = c.strides;
  const int64_t ph = c.padding[0], pw = c.padding[2];
  const int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
  Int64Tensor y{{n_batch, channels, oh, ow}, {}};
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t i = 0; i < channels; ++i) {
      for (int64_t p = 0; p < oh; ++p) {
        for (int64_t q = 0; q < ow; ++q) {
          // The maximum over the window's in-image elements (padding never wins).
          bool seen = false;
          int64_t best = 0;
          for (int64_t r = p * sh - ph; r < p * sh - ph + kh; ++r) {
            for (int64_t s = q * sw - pw; s < q * sw - pw + kw; ++s) {
              if (r < 0 || r >= h || s < 0 || s >= w) continue;
              const int64_t v = x.get(((n * channels + i) * h + r) * w + s);
              best = seen ? std::max(best, v) : v;
              seen = true;
            }
          }
          check(seen, "mrt max_pool2d: a window without image elements");
          if (c.scheme.x_zero_point) best += c.zx[at(i)];
          y.values.push_back(c.multipliers[at(i)] * best);
        }
      }
    }
  }
  return y;
}

}  // namespace

const char* family_name(Family family) {
  switch (family) {
    case Family::kConv2d: return "conv2d";
    case Family::kDense: return "dense";
    case Family::kPad: return "pad";
    case Family::kRelu: return "relu";
    case Family::kMaxPool2d: return "max_pool2d";
  }
  return "?";
}

bool has_weights(Family family) { return family == Family::kConv2d || family == Family::kDense; }

std::string scheme_name(const Scheme& s) {
  std::string name = family_name(s.family);
  name += s.granularity == Granularity::kLayer ? "_layer" : "_channel";
  name += s.x_zero_point ? "_xzp" : "_xsym";
  if (has_weights(s.family)) name += s.w_zero_point ? "_wzp" : "_wsym";
  return name;
}

std::vector<Scheme> all_schemes() {
  std::vector<Scheme> schemes;
  for (Family f : {Family::kConv2d, Family::kDense, Family::kPad, Family::kRelu,
                   Family::kMaxPool2d}) {
    for (Granularity g : {Granularity::kLayer, Granularity::kChannel}) {
      for (bool xz : {false, true}) {
        if (!has_weights(f)) {
          schemes.push_back({f, g, xz, false});
          continue;
        }
        for (bool wz : {false, true}) schemes.push_back({f, g, xz, wz});
      }
    }
  }
  return schemes;
}

std::vector<std::string> expansion_ops(const Scheme& scheme) {
  std::vector<std::string> ops = {"broadcast_add"};  // offsets, the merge by addition
  switch (scheme.family) {
    case Family::kConv2d: ops.insert(ops.end(), {"conv2d", "broadcast_mul"}); break;
    case Family::kDense: ops.insert(ops.end(), {"dense", "sum", "broadcast_mul"}); break;
    case Family::kPad: ops.push_back("pad"); break;
    case Family::kRelu: ops.push_back("relu"); break;
    case Family::kMaxPool2d: ops.insert(ops.end(), {"max_pool2d", "pad"}); break;
  }
  if (scheme.granularity == Granularity::kChannel) {
    // The lazy split slices; the merge multiplies, and concatenates channel-keeping results.
    ops.insert(ops.end(), {"strided_slice", "broadcast_mul"});
    if (!has_weights(scheme.family)) ops.push_back("concatenate");
  }
  return ops;
}

Int64Tensor direct(const IdentityCase& c) {
  switch (c.scheme.family) {
    case Family::kConv2d: return direct_conv2d(c);
    case Family::kDense: return direct_dense(c);
    case Family::kPad: return direct_pad(c);
    case Family::kRelu: return direct_relu(c);
    case Family::kMaxPool2d: return direct_max_pool2d(c);
  }
  fail_runtime("mrt: unknown family");
}

const char* planted_bug_name(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kNone: return "none";
    case PlantedBug::kConvDropZpProduct: return "conv2d_drop_zp_product";
    case PlantedBug::kDenseDropXSum: return "dense_drop_x_sum";
    case PlantedBug::kPadZpAfterPad: return "pad_zp_after_pad";
    case PlantedBug::kReluZpAfterRelu: return "relu_zp_after_relu";
    case PlantedBug::kPoolPadWithZero: return "max_pool2d_pad_with_zero";
    case PlantedBug::kMergeDropMultiplier: return "merge_drop_multiplier";
  }
  return "?";
}

std::vector<PlantedBug> all_planted_bugs() {
  return {PlantedBug::kConvDropZpProduct, PlantedBug::kDenseDropXSum,
          PlantedBug::kPadZpAfterPad,     PlantedBug::kReluZpAfterRelu,
          PlantedBug::kPoolPadWithZero,   PlantedBug::kMergeDropMultiplier};
}

Family planted_bug_family(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kDenseDropXSum: return Family::kDense;
    case PlantedBug::kPadZpAfterPad: return Family::kPad;
    case PlantedBug::kReluZpAfterRelu: return Family::kRelu;
    case PlantedBug::kPoolPadWithZero: return Family::kMaxPool2d;
    default: return Family::kConv2d;  // the merge bug is shown on conv2d's channel-wise sum
  }
}

}  // namespace cvm::mrt
