// Optimized reduce (sum, max). Adjacent axes with the same role are merged, so the input is a
// few alternating kept/reduced groups; the innermost group is processed with a contiguous,
// vectorizable loop (a row reduction when it is reduced, a row-wise accumulate when it is kept).
// Threads split the outermost kept group, so each thread owns disjoint outputs.
#include <algorithm>
#include <limits>

#include "infer/reduce.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"

namespace cvm::opt {
namespace {

struct Groups {
  std::vector<int64_t> size;
  std::vector<bool> reduced;
  std::vector<int64_t> out_stride;  // 0 for reduced groups
};

Groups merge_axes(const Shape& shape, const std::vector<bool>& reduced) {
  Groups g;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;  // size-1 axes play no role
    if (!g.size.empty() && g.reduced.back() == reduced[i]) {
      g.size.back() *= shape[i];
    } else {
      g.size.push_back(shape[i]);
      g.reduced.push_back(reduced[i]);
    }
  }
  if (g.size.empty()) {
    g.size.push_back(1);
    g.reduced.push_back(true);
  }
  g.out_stride.assign(g.size.size(), 0);
  int64_t stride = 1;
  for (size_t i = g.size.size(); i-- > 0;) {
    if (!g.reduced[i]) {
      g.out_stride[i] = stride;
      stride *= g.size[i];
    }
  }
  return g;
}

template <bool kSum, typename T, typename Acc>
void reduce_range(const T* x, Acc* acc, const Groups& g, int64_t first_begin, int64_t first_end) {
  const size_t k = g.size.size();
  const int64_t inner = g.size[k - 1];
  const bool inner_reduced = g.reduced[k - 1];
  // Odometer over groups 0..k-2, group 0 restricted to [first_begin, first_end).
  std::vector<int64_t> index(k, 0);
  int64_t blocks_per_first = 1;
  for (size_t i = 1; i + 1 < k; ++i) blocks_per_first *= g.size[i];
  if (k == 1) blocks_per_first = 1;
  const int64_t first_count = k == 1 ? 1 : first_end - first_begin;
  for (int64_t f = 0; f < first_count; ++f) {
    const int64_t first = k == 1 ? 0 : first_begin + f;
    for (int64_t b = 0; b < blocks_per_first; ++b) {
      // Decode b into groups 1..k-2.
      int64_t rem = b, out = k == 1 ? 0 : first * g.out_stride[0];
      for (size_t i = k - 1; i-- > 1;) {
        const int64_t idx = rem % g.size[i];
        rem /= g.size[i];
        out += idx * g.out_stride[i];
      }
      const int64_t in = (k == 1 ? 0 : (first * blocks_per_first + b)) * inner;
      const T* row = x + in;
      if (inner_reduced) {
        Acc r = acc[out];
        if constexpr (kSum) {
          for (int64_t j = 0; j < inner; ++j) r += row[j];
        } else {
          for (int64_t j = 0; j < inner; ++j) r = std::max<Acc>(r, row[j]);
        }
        acc[out] = r;
      } else {
        Acc* dst = acc + out;
        if constexpr (kSum) {
          for (int64_t j = 0; j < inner; ++j) dst[j] += row[j];
        } else {
          for (int64_t j = 0; j < inner; ++j) dst[j] = std::max<Acc>(dst[j], row[j]);
        }
      }
    }
  }
}

int64_t work_of(const Groups& g) {
  int64_t n = 1;
  for (int64_t s : g.size) n *= s;
  return n;
}

template <bool kSum, typename T>
void reduce_into(const T* x, Tensor& y, const Groups& g) {
  using Acc = std::conditional_t<kSum, int64_t, int32_t>;
  const int64_t out_size = y.size();
  Buffer<Acc> acc(static_cast<size_t>(out_size));
  std::fill(acc.begin(), acc.end(), kSum ? Acc{0} : std::numeric_limits<Acc>::min());
  const size_t k = g.size.size();
  const int team = threads_for(work_of(g));
  path::hit(g.reduced[k - 1] ? path::kReduceInner : path::kReduceOuter);
  if (k >= 2 && !g.reduced[0] && team > 1 && g.size[0] > 1) {
    path::hit(path::kReduceSplitFirst);
    const int64_t first = g.size[0];
#pragma omp parallel for num_threads(team) schedule(static)
    for (int64_t f = 0; f < first; ++f) reduce_range<kSum>(x, acc.data(), g, f, f + 1);
  } else {
    reduce_range<kSum>(x, acc.data(), g, 0, k == 1 ? 1 : g.size[0]);
  }
  int32_t* out = y.i32();
  for (int64_t i = 0; i < out_size; ++i) out[i] = static_cast<int32_t>(acc[static_cast<size_t>(i)]);
}

template <bool kSum>
std::vector<Tensor> reduce(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::ReduceInference inf = infer::infer_reduce(ctx, kSum);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  const Groups g = merge_axes(x.shape(), inf.reduced);
  if (x.dtype() == DType::kInt8) {
    reduce_into<kSum>(x.i8(), y, g);
  } else {
    reduce_into<kSum>(x.i32(), y, g);
  }
  return results(std::move(y));
}

}  // namespace

void add_reduce(Backend& backend) {
  backend.add("sum", reduce<true>);
  backend.add("max", reduce<false>);
}

}  // namespace cvm::opt
