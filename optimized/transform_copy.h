// The copy engine shared by the transform kernels (optimized/transform_shape.cc,
// optimized/transform_index.cc). Every transform here writes its int32 output in row-major
// order and reads each output element from one input position, so it is described as a
// strided view of the input; the engine merges axes into the longest runs and copies them with
// memcpy (int32 input) or a widening loop (int8 input). Pure copies: any thread count gives the
// same bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cvmcheck/tensor.h"
#include "optimized/kernels.h"

namespace cvm::opt {

// dst[0..n) = src[0..n), widened to int32.
template <typename T>
inline void copy_run(const T* src, int32_t* dst, int64_t n) {
  if constexpr (std::is_same_v<T, int32_t>) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(int32_t));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// Calls f with the tensor's typed data pointer (const int8_t* or const int32_t*).
template <typename F>
decltype(auto) with_data(const Tensor& x, F&& f) {
  if (x.dtype() == DType::kInt8) return f(x.i8());
  return f(x.i32());
}

// Calls body(begin, end) on contiguous pieces of [0, count), one per thread when `work`
// (elements moved) is worth threads. Pieces are disjoint, so results never depend on the split.
template <typename F>
void split_range(int64_t count, int64_t work, F&& body) {
  const int team = static_cast<int>(std::min<int64_t>(threads_for(work), count));
  if (team <= 1) {
    body(int64_t{0}, count);
    return;
  }
#pragma omp parallel for num_threads(team) schedule(static)
  for (int p = 0; p < team; ++p) body(count * p / team, count * (p + 1) / team);
}

// The input walked in the output's row-major order: output axis i (dims[i] long) moves the
// input position by strides[i] elements (0 repeats a value, negative walks backwards), starting
// from `base`.
struct StridedView {
  std::vector<int64_t> dims, strides;
  int64_t base = 0;
};

// Drops size-1 axes and merges each pair of adjacent axes that walks the input as one axis, so
// the innermost axis becomes the longest run. The result has at least one axis.
StridedView simplify(const StridedView& view);

// out[o] = x[position of o in view] for every output element, from the simplified view: inner
// runs are copies (stride 1), fills (stride 0) or gathers; a view whose unit-stride axis is not
// innermost (a transpose) is copied in cache tiles. Threads split the outer work.
void copy_view(const Tensor& x, const StridedView& view, int32_t* out);

}  // namespace cvm::opt
