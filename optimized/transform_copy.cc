// The transform copy engine (optimized/transform_copy.h).
#include "optimized/transform_copy.h"

#include "optimized/paths.h"

namespace cvm::opt {
namespace {

// Transpose tiles are kTile x kTile, staged through a buffer of rows padded to kStageRow
// (18 KiB of int32, inside L1).
constexpr int64_t kTile = path::kCopyTile;
constexpr int64_t kStageRow = kTile + 8;

// `count` consecutive rows of `inner` outputs; row a starts at input src + a * row_stride and
// walks it by `step`. The step decides the loop once for all rows.
template <typename T>
void copy_rows(const T* src, int64_t row_stride, int64_t step, int64_t inner, int64_t count,
               int32_t* dst) {
  path::hit(step == 1 ? path::kCopyRun : step == 0 ? path::kCopyFill : path::kCopyGather);
  if (step == 1) {
    for (int64_t a = 0; a < count; ++a) copy_run(src + a * row_stride, dst + a * inner, inner);
  } else if (step == 0 && inner == 1) {
    for (int64_t a = 0; a < count; ++a) dst[a] = src[a * row_stride];
  } else if (step == 0) {  // repeat's element repeat
    for (int64_t a = 0; a < count; ++a) {
      std::fill_n(dst + a * inner, inner, static_cast<int32_t>(src[a * row_stride]));
    }
  } else {
    for (int64_t a = 0; a < count; ++a) {
      const T* row = src + a * row_stride;
      int32_t* out = dst + a * inner;
      for (int64_t j = 0; j < inner; ++j) out[j] = row[j * step];
    }
  }
}

// Output rows [r0, r1) of a view of at least two axes (a row = the innermost axis). The
// second-innermost axis is walked by copy_rows in one call per stretch; the axes above it by an
// odometer.
template <typename T>
void copy_view_rows(const T* x, const StridedView& v, int32_t* out, int64_t r0, int64_t r1) {
  const size_t k = v.dims.size();
  const int64_t inner = v.dims[k - 1];
  const int64_t step = v.strides[k - 1];
  const size_t row_axis = k - 2;
  std::vector<int64_t> index(k - 1, 0);
  int64_t offset = v.base;
  int64_t rest = r0;  // row r0 in the axes above the innermost, the row axis least significant
  for (size_t i = k - 1; i-- > 0;) {
    index[i] = rest % v.dims[i];
    rest /= v.dims[i];
    offset += index[i] * v.strides[i];
  }
  int32_t* dst = out + r0 * inner;
  for (int64_t r = r0; r < r1;) {
    const int64_t count = std::min(v.dims[row_axis] - index[row_axis], r1 - r);
    copy_rows(x + offset, v.strides[row_axis], step, inner, count, dst);
    r += count;
    dst += count * inner;
    if (r == r1) break;
    // The row axis is exhausted: back to its start, and carry into the axes above it.
    offset -= index[row_axis] * v.strides[row_axis];
    index[row_axis] = 0;
    for (size_t i = row_axis; i-- > 0;) {
      offset += v.strides[i];
      if (++index[i] < v.dims[i]) break;
      offset -= index[i] * v.strides[i];
      index[i] = 0;
    }
  }
}

// One tile: `height` input rows of `width` unit-stride values (rows `step` apart) into the stage
// buffer, then `width` output rows of `height` values (rows `out_pitch` apart) from it. Plain
// arguments and restrict pointers, so the loops vectorize (inside the threads' lambda every
// captured value would be reloaded through a reference after each store).
template <typename T>
void transpose_tile(const T* __restrict x, int64_t step, int64_t width, int64_t height,
                    int32_t* __restrict stage, int32_t* __restrict out, int64_t out_pitch) {
  for (int64_t b = 0; b < height; ++b) {
    const T* __restrict src = x + b * step;
    int32_t* __restrict row = stage + b * kStageRow;
    for (int64_t a = 0; a < width; ++a) row[a] = src[a];
  }
  for (int64_t a = 0; a < width; ++a) {
    int32_t* __restrict dst = out + a * out_pitch;
    const int32_t* __restrict column = stage + a;
    for (int64_t b = 0; b < height; ++b) dst[b] = column[b * kStageRow];
  }
}

// The unit-stride axis `unit` is not innermost: copy in kTile x kTile tiles of (unit axis,
// innermost axis). Each tile is read into a stage buffer along the unit axis and written from it
// along the innermost axis, so both tensors are touched in whole cache lines; the column walk
// happens in the small buffer. (Walking a tensor column directly made every access of a tile hit
// one cache set when the row pitch is a multiple of 4 KiB, e.g. a 4096 x 4096 transpose.)
// A work item is one tile row of one outer position.
template <typename T>
void copy_view_tiled(const T* x, const StridedView& v, size_t unit, int32_t* out) {
  const size_t k = v.dims.size();
  const int64_t inner = v.dims[k - 1], step = v.strides[k - 1];
  const int64_t depth = v.dims[unit];
  std::vector<int64_t> out_stride(k, 1);
  for (size_t i = k - 1; i-- > 0;) out_stride[i] = out_stride[i + 1] * v.dims[i + 1];
  std::vector<size_t> outer_axes;
  for (size_t i = 0; i + 1 < k; ++i) {
    if (i != unit) outer_axes.push_back(i);
  }
  int64_t outer = 1;
  for (size_t i : outer_axes) outer *= v.dims[i];
  const int64_t tiles = (depth + kTile - 1) / kTile;
  path::hit_if(tiles >= 2 || inner > kTile, path::kCopyTiles);
  const int64_t unit_out = out_stride[unit];
  split_range(outer * tiles, outer * depth * inner, [&](int64_t w0, int64_t w1) {
    std::vector<int32_t> stage(static_cast<size_t>(kTile * kStageRow));
    for (int64_t w = w0; w < w1; ++w) {
      int64_t rest = w / tiles, in_off = v.base, out_off = 0;
      for (size_t i = outer_axes.size(); i-- > 0;) {
        const size_t axis = outer_axes[i];
        const int64_t d = rest % v.dims[axis];
        rest /= v.dims[axis];
        in_off += d * v.strides[axis];
        out_off += d * out_stride[axis];
      }
      const int64_t a0 = (w % tiles) * kTile, width = std::min(depth, a0 + kTile) - a0;
      for (int64_t b0 = 0; b0 < inner; b0 += kTile) {
        const int64_t height = std::min(inner, b0 + kTile) - b0;
        transpose_tile(x + in_off + b0 * step + a0, step, width, height, stage.data(),
                       out + out_off + a0 * unit_out + b0, unit_out);
      }
    }
  });
}

template <typename T>
void copy_view_typed(const T* x, const StridedView& v, int32_t* out) {
  const size_t k = v.dims.size();
  const int64_t inner = v.dims[k - 1];
  if (v.strides[k - 1] != 1 && v.strides[k - 1] != 0 && inner >= path::kCopyTileSide) {
    for (size_t i = 0; i + 1 < k; ++i) {
      if (v.strides[i] == 1 && v.dims[i] >= path::kCopyTileSide) {
        path::hit(path::kCopyTiled);
        copy_view_tiled(x, v, i, out);
        return;
      }
    }
  }
  if (k == 1) {  // one row: split the row itself among the threads
    path::hit(path::kCopyOneRow);
    split_range(inner, inner, [&](int64_t j0, int64_t j1) {
      copy_rows(x + v.base + j0 * v.strides[0], 0, v.strides[0], j1 - j0, 1, out + j0);
    });
    return;
  }
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < k; ++i) rows *= v.dims[i];
  split_range(rows, rows * inner,
              [&](int64_t r0, int64_t r1) { copy_view_rows(x, v, out, r0, r1); });
}

}  // namespace

StridedView simplify(const StridedView& view) {
  StridedView s;
  s.base = view.base;
  for (size_t i = 0; i < view.dims.size(); ++i) {
    if (view.dims[i] == 1) continue;
    // The outer axis continues the inner one exactly: one axis of the product's length.
    if (!s.dims.empty() && s.strides.back() == view.strides[i] * view.dims[i]) {
      s.dims.back() *= view.dims[i];
      s.strides.back() = view.strides[i];
    } else {
      s.dims.push_back(view.dims[i]);
      s.strides.push_back(view.strides[i]);
    }
  }
  if (s.dims.empty()) {
    s.dims.push_back(1);
    s.strides.push_back(1);
  }
  return s;
}

void copy_view(const Tensor& x, const StridedView& view, int32_t* out) {
  const StridedView v = simplify(view);
  with_data(x, [&](const auto* data) { copy_view_typed(data, v, out); });
}

}  // namespace cvm::opt
