// The tiled int8 tensor-core GEMM of dense and conv2d (an implicit GEMM), as small CVM_HD
// functions that the device kernel (cuda/device_runner.cu) and its CPU emulation
// (cuda/gemm_host.cc) both call: the tile grid, the staging of int8 operand tiles into shared
// memory (the int32 tensors are packed to int8 there), the fragment loads, the predicates of
// partial tiles, the K tail and the image border, and the epilogue. Only mma.sync itself
// differs (cuda/mma_device.h). docs/cuda.md describes the tiles and paths.
//
// GEMM view: C[m, n] = sum_k A[m, k] * B[n, k] per group.
//   dense:  m a row, n a unit, k the depth; A = X (rows x depth), B = W (units x depth).
//   conv2d: m = (batch, out row, out column), n = an output channel of the group,
//           k = (input channel of the group, kernel row, kernel column); A is X seen through
//           the window (im2col without materializing it), B = W (OIHW is already n x k).
#pragma once

#include "cuda/mma_device.h"
#include "cuda/nn_device.h"

namespace cvm::cuda {

struct GemmParams {
  int64_t rows = 0, cols = 0, depth = 0;  // M, N (per group), K
  int64_t groups = 1;
  int32_t is_conv = 0;
  int32_t use_bias = 0;
  int32_t tile = 0;  // TileId: which TileShape the runners instantiate
  int32_t planted = kNoFault;
  Conv2dParams conv;  // the conv geometry, when is_conv
};

CVM_HD int32_t planted(const GemmParams& p) { return planted_fault(p.planted); }

// A CTA tile: WarpsM x WarpsN warps, each Mi x Ni mma tiles (16 x 8), Ks mma depths (32) per
// staged K slice.
template <int WarpsM, int WarpsN, int Mi, int Ni, int Ks>
struct TileShape {
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN, kMi = Mi, kNi = Ni, kKs = Ks;
  static constexpr int kBM = WarpsM * Mi * kMmaM;
  static constexpr int kBN = WarpsN * Ni * kMmaN;
  static constexpr int kBK = Ks * kMmaK;
  static constexpr int kThreads = WarpsM * WarpsN * kWarp;
};

enum TileId : int32_t { kTileWide = 0, kTileSmall = 1 };
// The production tile: 64 x 64 x 64, 4 warps of 32 x 32 (8 mma each per K step).
using WideTile = TileShape<2, 2, 2, 4, 2>;
// One mma per CTA (16 x 8 x 32): the campaign's small shapes then take every tile path.
using SmallTile = TileShape<1, 1, 1, 1, 1>;

struct TileCoord {
  int64_t group = 0, m0 = 0, n0 = 0;
};

CVM_HD int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <class T>
CVM_HD int64_t tile_count(const GemmParams& p) {
  return p.groups * ceil_div(p.rows, T::kBM) * ceil_div(p.cols, T::kBN);
}

// Tile `tile` of the grid: n fastest, so neighbouring CTAs share their A rows; then m, group.
template <class T>
CVM_HD TileCoord tile_coord(const GemmParams& p, int64_t tile) {
  const int64_t tn = ceil_div(p.cols, T::kBN);
  const int64_t tm = ceil_div(p.rows, T::kBM);
  TileCoord t;
  t.n0 = (tile % tn) * T::kBN;
  t.m0 = (tile / tn) % tm * T::kBM;
  t.group = tile / (tn * tm);
  return t;
}

// --- Predicates: which elements of a tile exist. Out-of-range operand elements are staged as 0
// (adding nothing), out-of-range outputs are not stored.

// Partial M tile: row m exists.
CVM_HD bool row_exists(const GemmParams& p, int64_t m) {
  return m < p.rows - (planted(p) == kFaultPartialM ? 1 : 0);
}
// Partial N tile: column n exists.
CVM_HD bool col_exists(const GemmParams& p, int64_t n) {
  return n < p.cols - (planted(p) == kFaultPartialN ? 1 : 0);
}
// K tail: depth k exists (the last K slice is partial when depth % kBK != 0).
CVM_HD bool k_exists(const GemmParams& p, int64_t k) {
  return k < p.depth - (planted(p) == kFaultKTail ? 1 : 0);
}
// Implicit-GEMM border: the tap (h, w) lies in the image, not in the zero padding.
CVM_HD bool tap_in_image(const GemmParams& p, int64_t h, int64_t w) {
  const int64_t h_lo = planted(p) == kFaultBorder ? 1 : 0;
  return h >= h_lo && h < p.conv.height && w >= 0 && w < p.conv.width;
}

// --- Operand elements (int64 index math: a tensor may hold over 2^31 elements).

CVM_HD int8_t conv_a_value(const GemmParams& p, const Views& v, int64_t group, int64_t m,
                           int64_t k) {
  const Conv2dParams& c = p.conv;
  const int64_t kj = k % c.kernel_w;
  const int64_t ki = (k / c.kernel_w) % c.kernel_h;
  const int64_t ic = k / (c.kernel_w * c.kernel_h);
  const int64_t q = m % c.out_w;
  const int64_t r = (m / c.out_w) % c.out_h;
  const int64_t b = m / (c.out_w * c.out_h);
  const int64_t h = r * c.stride_h - c.pad_h + ki * c.dilation_h;
  const int64_t w = q * c.stride_w - c.pad_w + kj * c.dilation_w;
  if (!tap_in_image(p, h, w)) return 0;
  const int64_t plane = b * c.in_channels + group * c.in_per_group + ic;
  // p0 <= 8: the validated value fits int8 exactly.
  return static_cast<int8_t>(load(v.in[0], (plane * c.height + h) * c.width + w));
}

CVM_HD int8_t a_value(const GemmParams& p, const Views& v, int64_t group, int64_t m, int64_t k) {
  if (!row_exists(p, m) || !k_exists(p, k)) return 0;
  if (p.is_conv != 0) return conv_a_value(p, v, group, m, k);
  return static_cast<int8_t>(load(v.in[0], m * p.depth + k));
}

// B is row-major (group * N + n) x K for both operators (dense W, conv OIHW).
CVM_HD int8_t b_value(const GemmParams& p, const Views& v, int64_t group, int64_t n, int64_t k) {
  if (!col_exists(p, n) || !k_exists(p, k)) return 0;
  return static_cast<int8_t>(load(v.in[1], (group * p.cols + n) * p.depth + k));
}

// Thread `tid` of the CTA stages its share of the K slice at k0: A as kBM rows of kBK int8,
// B as kBN rows of kBK int8 (K contiguous: the layout the fragments read 4 at a time).
template <class T>
CVM_HD void stage_slice(const GemmParams& p, const Views& v, const TileCoord& t, int64_t k0,
                        int32_t tid, int8_t* sa, int8_t* sb) {
  for (int32_t e = tid; e < T::kBM * T::kBK; e += T::kThreads) {
    sa[e] = a_value(p, v, t.group, t.m0 + e / T::kBK, k0 + e % T::kBK);
  }
  for (int32_t e = tid; e < T::kBN * T::kBK; e += T::kThreads) {
    sb[e] = b_value(p, v, t.group, t.n0 + e / T::kBK, k0 + e % T::kBK);
  }
}

// --- Warp fragments and accumulators.

template <class T>
struct WarpAcc {
  FragC f[T::kMi][T::kNi];
};

// The warp's first row and column in the CTA tile (warps row-major over WarpsM x WarpsN).
template <class T>
CVM_HD int32_t warp_row0(int32_t warp) {
  return warp / T::kWarpsN * T::kMi * kMmaM;
}
template <class T>
CVM_HD int32_t warp_col0(int32_t warp) {
  return warp % T::kWarpsN * T::kNi * kMmaN;
}

// The lane's fragments of mma depth step ks (0..Ks) of the staged slice.
template <class T>
CVM_HD void load_frags(const GemmParams& p, const int8_t* sa, const int8_t* sb, int32_t warp,
                       int32_t lane, int32_t ks, FragA* a, FragB* b) {
  const int32_t k0 = ks * kMmaK;
  CVM_UNROLL
  for (int32_t mi = 0; mi < T::kMi; ++mi) {
    const int32_t row0 = warp_row0<T>(warp) + mi * kMmaM;
    CVM_UNROLL
    for (int32_t r = 0; r < 4; ++r) {
      const int32_t rr = planted(p) == kFaultFragment && (r == 1 || r == 2) ? 3 - r : r;
      a[mi].r[r] =
          load_word(sa + (row0 + frag_a_row(lane, rr)) * T::kBK + k0 + frag_a_col(lane, rr));
    }
  }
  CVM_UNROLL
  for (int32_t ni = 0; ni < T::kNi; ++ni) {
    const int32_t col = warp_col0<T>(warp) + ni * kMmaN + frag_b_col(lane);
    CVM_UNROLL
    for (int32_t r = 0; r < 2; ++r) {
      b[ni].r[r] = load_word(sb + col * T::kBK + k0 + frag_b_k(lane, r));
    }
  }
}

// Flat output offset of GEMM element (m, n) of `group` (dense: Y[m, n]; conv2d: NCHW).
CVM_HD int64_t out_offset(const GemmParams& p, int64_t group, int64_t m, int64_t n) {
  if (p.is_conv == 0) return m * p.cols + n;
  const Conv2dParams& c = p.conv;
  const int64_t plane = c.out_h * c.out_w;
  return ((m / plane) * c.channels + group * p.cols + n) * plane + m % plane;
}

// Epilogue in int32 (no float: exact at any magnitude): the lane's accumulators plus the bias,
// stored where the output exists.
template <class T>
CVM_HD void store_tile(const GemmParams& p, const Views& v, int32_t* out, const TileCoord& t,
                       int32_t warp, int32_t lane, const WarpAcc<T>& acc) {
  CVM_UNROLL
  for (int32_t mi = 0; mi < T::kMi; ++mi) {
    CVM_UNROLL
    for (int32_t ni = 0; ni < T::kNi; ++ni) {
      CVM_UNROLL
      for (int32_t i = 0; i < 4; ++i) {
        const int64_t m = t.m0 + warp_row0<T>(warp) + mi * kMmaM + frag_c_row(lane, i);
        const int64_t n = t.n0 + warp_col0<T>(warp) + ni * kMmaN + frag_c_col(lane, i);
        if (!row_exists(p, m) || !col_exists(p, n)) continue;
        const int32_t bias = p.use_bias != 0 ? load(v.in[2], t.group * p.cols + n) : 0;
        out[out_offset(p, t.group, m, n)] = acc.f[mi][ni].c[i] + bias;
      }
    }
  }
}

// --- Paths (cuda/paths.h): which tile paths a tile takes, for the runners to report.

enum GemmPath : uint32_t {
  kPathFullTile = 1u << 0,   // every row and column of the tile exists
  kPathPartialM = 1u << 1,   // rows past M predicated off
  kPathPartialN = 1u << 2,   // columns past N predicated off
  kPathKTail = 1u << 3,      // the last K slice is partial
  kPathKSlices = 1u << 4,    // several K slices accumulate
  kPathBorder = 1u << 5,     // conv2d: a window of the tile reaches into the padding
  kPathGrouped = 1u << 6,    // conv2d: groups > 1 (each group its own GEMM)
};
inline constexpr int kGemmPathCount = 7;

// Whether output pixel m's window leaves the image (some tap is padding).
CVM_HD bool window_at_border(const Conv2dParams& c, int64_t m) {
  const int64_t q = m % c.out_w;
  const int64_t r = (m / c.out_w) % c.out_h;
  const int64_t h0 = r * c.stride_h - c.pad_h, w0 = q * c.stride_w - c.pad_w;
  return h0 < 0 || h0 + (c.kernel_h - 1) * c.dilation_h >= c.height || w0 < 0 ||
         w0 + (c.kernel_w - 1) * c.dilation_w >= c.width;
}

template <class T>
CVM_HD uint32_t tile_paths(const GemmParams& p, const TileCoord& t) {
  const bool m_full = t.m0 + T::kBM <= p.rows;
  const bool n_full = t.n0 + T::kBN <= p.cols;
  uint32_t paths = (m_full && n_full ? kPathFullTile : 0u) | (m_full ? 0u : kPathPartialM) |
                   (n_full ? 0u : kPathPartialN);
  if (p.depth % T::kBK != 0) paths |= kPathKTail;
  if (p.depth > T::kBK) paths |= kPathKSlices;
  if (p.is_conv != 0 && p.groups > 1) paths |= kPathGrouped;
  if (p.is_conv != 0) {
    const int64_t m_end = t.m0 + T::kBM < p.rows ? t.m0 + T::kBM : p.rows;
    for (int64_t m = t.m0; m < m_end; ++m) {
      if (window_at_border(p.conv, m)) return paths | kPathBorder;
    }
  }
  return paths;
}

// --- Depthwise conv2d (one input channel per group): K is only the window, too short for a
// GEMM slice, so one thread per output element loops over its window.
struct DepthwiseParams {
  Conv2dParams conv;
};

CVM_HD int32_t depthwise_element(const DepthwiseParams& d, const Views& v, int64_t o) {
  const Conv2dParams& p = d.conv;
  const int64_t q = o % p.out_w;
  const int64_t r = (o / p.out_w) % p.out_h;
  const int64_t oc = (o / (p.out_w * p.out_h)) % p.channels;
  const int64_t n = o / (p.out_w * p.out_h * p.channels);
  const int64_t plane = (n * p.in_channels + oc / p.out_per_group) * p.height;
  const int64_t filter = oc * p.kernel_h;
  const int64_t h0 = r * p.stride_h - p.pad_h, w0 = q * p.stride_w - p.pad_w;
  int32_t acc = 0;  // int32 is exact: the same bound as conv2d_element
  for (int64_t ki = 0; ki < p.kernel_h; ++ki) {
    const int64_t h = h0 + ki * p.dilation_h;
    if (h < 0 || h >= p.height) continue;
    for (int64_t kj = 0; kj < p.kernel_w; ++kj) {
      const int64_t w = w0 + kj * p.dilation_w;
      if (w < 0 || w >= p.width) continue;
      acc += load(v.in[0], (plane + h) * p.width + w) *
             load(v.in[1], (filter + ki) * p.kernel_w + kj);
    }
  }
  return p.use_bias != 0 ? acc + load(v.in[2], oc) : acc;
}

}  // namespace cvm::cuda
