// Optimized ov_strided_slice. The attributes are resolved once (infer/ov) into a read plan per
// input axis; here axes of one element fold into a base offset, adjacent axes whose reads are
// contiguous in the input merge, and the output is produced row by row along the innermost
// merged axis: one memcpy when it reads consecutive int32 elements, else a strided gather.
// Threads take contiguous ranges of rows, so every output element is written by one thread.
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "infer/ov.h"
#include "optimized/kernels.h"

namespace cvm::opt {
namespace {

struct CopyDim {
  int64_t count = 1;
  int64_t stride = 0;  // in input elements, may be negative
};

struct CopyPlan {
  int64_t base = 0;           // input offset of output element 0
  std::vector<CopyDim> dims;  // outermost first; at least one
};

CopyPlan merge_axes(const infer::OvSlicePlan& plan, const Shape& in_shape) {
  const std::vector<int64_t> in_stride = row_major_strides(in_shape);
  CopyPlan copy;
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    const infer::OvSliceAxis& a = plan.axes[i];
    copy.base += a.start * in_stride[i];
    if (a.count == 1) continue;
    const int64_t stride = a.step * in_stride[i];
    // Outer axis continues the inner one exactly: one longer axis with the inner stride.
    if (!copy.dims.empty() && copy.dims.back().stride == stride * a.count) {
      copy.dims.back() = {copy.dims.back().count * a.count, stride};
    } else {
      copy.dims.push_back({a.count, stride});
    }
  }
  if (copy.dims.empty()) copy.dims.push_back({1, 0});
  return copy;
}

template <typename T>
void copy_row(const T* src, int64_t stride, int64_t count, int32_t* dst) {
  if constexpr (sizeof(T) == sizeof(int32_t)) {
    if (stride == 1) {
      std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(int32_t));
      return;
    }
  }
  if (stride == 1) {
    for (int64_t j = 0; j < count; ++j) dst[j] = src[j];
  } else {
    for (int64_t j = 0; j < count; ++j) dst[j] = src[j * stride];
  }
}

// Output rows [first, last): decode `first` once, then advance an odometer.
template <typename T>
void copy_rows(const T* x, const CopyPlan& plan, int64_t first, int64_t last, int32_t* y) {
  const size_t outer = plan.dims.size() - 1;
  const CopyDim inner = plan.dims[outer];
  std::vector<int64_t> index(outer, 0);
  int64_t offset = plan.base, rem = first;
  for (size_t i = outer; i-- > 0;) {
    index[i] = rem % plan.dims[i].count;
    rem /= plan.dims[i].count;
    offset += index[i] * plan.dims[i].stride;
  }
  for (int64_t r = first; r < last; ++r) {
    copy_row(x + offset, inner.stride, inner.count, y + r * inner.count);
    for (size_t i = outer; i-- > 0;) {
      offset += plan.dims[i].stride;
      if (++index[i] < plan.dims[i].count) break;
      offset -= plan.dims[i].count * plan.dims[i].stride;
      index[i] = 0;
    }
  }
}

template <typename T>
void run_copy(const T* x, const CopyPlan& plan, int64_t total, int32_t* y) {
  const int64_t rows = total / plan.dims.back().count;
  const int team = rows > 1 ? threads_for(total) : 1;
  if (team <= 1) {
    copy_rows(x, plan, 0, rows, y);
    return;
  }
#pragma omp parallel num_threads(team)
  {
#ifdef _OPENMP
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
#else
    const int64_t t = 0, n = 1;
#endif
    copy_rows(x, plan, rows * t / n, rows * (t + 1) / n, y);
  }
}

std::vector<Tensor> ov_strided_slice(const OpContext& ctx) {
  const infer::OvSlicePlan plan = infer::infer_ov_strided_slice(ctx);
  Tensor y = infer::allocate(plan.output);
  const Tensor& x = ctx.inputs[0];
  const CopyPlan copy = merge_axes(plan, x.shape());
  if (x.dtype() == DType::kInt8) {
    run_copy(x.i8(), copy, y.size(), y.i32());
  } else {
    run_copy(x.i32(), copy, y.size(), y.i32());
  }
  return results(std::move(y));
}

}  // namespace

void add_ov(Backend& backend) { backend.add("ov_strided_slice", ov_strided_slice); }

}  // namespace cvm::opt
