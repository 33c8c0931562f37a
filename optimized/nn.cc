// Optimized kernels of the nn family. conv2d and dense (the GEMM core) are in conv2d.cc and
// dense.cc; relu, max_pool2d and upsampling are here: contiguous, vectorizable loops, threads
// over independent output planes or chunks.
#include "infer/nn.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "optimized/kernels.h"
#include "optimized/nn_gemm.h"
#include "optimized/paths.h"

namespace cvm::opt {

void add_conv2d(Backend& backend);  // conv2d.cc
void add_dense(Backend& backend);   // dense.cc

namespace {

template <typename T>
void relu_range(const T* x, int32_t* y, int64_t first, int64_t last) {
  for (int64_t i = first; i < last; ++i) y[i] = std::max(int32_t{x[i]}, 0);
}

std::vector<Tensor> relu(const OpContext& ctx) {
  const infer::OutputSpec out = infer::infer_relu(ctx);
  Tensor y = infer::allocate(out);
  const Tensor& x = ctx.inputs[0];
  const int64_t n = x.size();
  const int team = threads_for(n);
  const int64_t chunk = path::kReluChunk;
  const int64_t chunks = (n + chunk - 1) / chunk;
  path::hit(chunks > 1 ? path::kReluChunks : path::kReluOneChunk);
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t first = c * chunk, last = std::min(n, first + chunk);
    if (x.dtype() == DType::kInt8) {
      relu_range(x.i8(), y.i32(), first, last);
    } else {
      relu_range(x.i32(), y.i32(), first, last);
    }
  }
  return nn::only(std::move(y));
}

// One (n, c) plane: per output row, the row-wise maximum over the window's in-image rows
// (a vectorizable max of rows), then the column windows of that row.
template <typename T>
void pool_plane(const infer::MaxPool2dInference& m, const T* x, int32_t* y, int32_t* rowmax) {
  for (int64_t p = 0; p < m.out_h; ++p) {
    const int64_t r0 = std::max<int64_t>(p * m.stride_h - m.pad_h, 0);
    const int64_t r1 = std::min(p * m.stride_h - m.pad_h + m.pool_h, m.height);
    // r0 < r1: the inference's rules make every window hold an image row.
    const T* first = x + r0 * m.width;
    for (int64_t s = 0; s < m.width; ++s) rowmax[s] = first[s];
    for (int64_t r = r0 + 1; r < r1; ++r) {
      const T* row = x + r * m.width;
      for (int64_t s = 0; s < m.width; ++s) rowmax[s] = std::max(rowmax[s], int32_t{row[s]});
    }
    int32_t* out = y + p * m.out_w;
    for (int64_t q = 0; q < m.out_w; ++q) {
      const int64_t s0 = std::max<int64_t>(q * m.stride_w - m.pad_w, 0);
      const int64_t s1 = std::min(q * m.stride_w - m.pad_w + m.pool_w, m.width);
      int32_t best = rowmax[s0];
      for (int64_t s = s0 + 1; s < s1; ++s) best = std::max(best, rowmax[s]);
      out[q] = best;
    }
  }
}

std::vector<Tensor> max_pool2d(const OpContext& ctx) {
  const infer::MaxPool2dInference m = infer::infer_max_pool2d(ctx);
  Tensor y = infer::allocate(m.output);
  const Tensor& x = ctx.inputs[0];
  const int64_t planes = m.batch * m.channels;
  const int64_t in_plane = m.height * m.width, out_plane = m.out_h * m.out_w;
  const int team = threads_for(planes * (in_plane + out_plane * m.pool_w));
#pragma omp parallel num_threads(team)
  {
    Buffer<int32_t> rowmax(static_cast<size_t>(m.width));
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < planes; ++pl) {
      if (x.dtype() == DType::kInt8) {
        pool_plane(m, x.i8() + pl * in_plane, y.i32() + pl * out_plane, rowmax.data());
      } else {
        pool_plane(m, x.i32() + pl * in_plane, y.i32() + pl * out_plane, rowmax.data());
      }
    }
  }
  return nn::only(std::move(y));
}

// One input row (n, c, h): widened and repeated `scale` times per element into the first of its
// `scale` output rows, which is then copied to the others.
template <typename T>
void upsample_row(const T* x, int32_t* y, int64_t width, int64_t scale) {
  const int64_t out_w = width * scale;
  if (scale == 1) {
    for (int64_t s = 0; s < width; ++s) y[s] = x[s];
  } else {
    for (int64_t s = 0; s < width; ++s) {
      const int32_t v = x[s];
      int32_t* dst = y + s * scale;
      for (int64_t k = 0; k < scale; ++k) dst[k] = v;
    }
  }
  for (int64_t k = 1; k < scale; ++k) {
    std::memcpy(y + k * out_w, y, static_cast<size_t>(out_w) * sizeof(int32_t));
  }
}

std::vector<Tensor> upsampling(const OpContext& ctx) {
  const infer::UpsamplingInference u = infer::infer_upsampling(ctx);
  Tensor y = infer::allocate(u.output);
  const Tensor& x = ctx.inputs[0];
  const int64_t rows = x.dim(0) * x.dim(1) * x.dim(2), width = x.dim(3);
  const int64_t out_row_block = width * u.scale * u.scale;  // the scale output rows of one row
  const int team = threads_for(y.size());
  path::hit(u.scale == 1 ? path::kUpsamplingCopy : path::kUpsamplingRepeat);
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    if (x.dtype() == DType::kInt8) {
      upsample_row(x.i8() + r * width, y.i32() + r * out_row_block, width, u.scale);
    } else {
      upsample_row(x.i32() + r * width, y.i32() + r * out_row_block, width, u.scale);
    }
  }
  return nn::only(std::move(y));
}

}  // namespace

void add_nn(Backend& backend) {
  add_conv2d(backend);
  add_dense(backend);
  backend.add("relu", relu);
  backend.add("max_pool2d", max_pool2d);
  backend.add("upsampling", upsampling);
}

}  // namespace cvm::opt
