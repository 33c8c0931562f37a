// Optimized transform_index family: strided_slice (slice), take, cvm_lut, slice_like, where,
// pad. Slices are strided views for the copy engine (runs where the innermost stride is 1);
// take and cvm_lut are gathers with the contract's clamping (row copies when take has an axis);
// where is a branch-free select (row copies for a 1-D condition); pad writes each output row as
// a fill, an input run and a fill.
#include <array>

#include "infer/transform_index.h"
#include "optimized/fused_pass.h"
#include "optimized/kernels.h"
#include "optimized/transform_copy.h"

namespace cvm::opt {
namespace {

std::vector<Tensor> strided_slice(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::SliceInference inf = infer::infer_strided_slice(ctx);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  const std::vector<int64_t> in_stride = row_major_strides(x.shape());
  StridedView view;
  for (size_t i = 0; i < inf.axes.size(); ++i) {
    const infer::SliceAxis& a = inf.axes[i];
    view.dims.push_back(a.size);
    // With one element the stride is never taken, and may be as large as INT64_MAX: use 0.
    // Otherwise |stride| < n_i, so the product stays below 2^30 in magnitude.
    view.strides.push_back(a.size == 1 ? 0 : a.stride * in_stride[i]);
    view.base += a.begin * in_stride[i];
  }
  copy_view(x, view, y.i32());
  return results(std::move(y));
}

std::vector<Tensor> slice_like(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  Tensor y = infer::allocate(infer::infer_slice_like(ctx));
  const Tensor& x = ctx.inputs[0];
  StridedView view;
  view.dims = y.shape();
  view.strides = row_major_strides(x.shape());
  copy_view(x, view, y.i32());
  return results(std::move(y));
}

// out[i] = data[clamp(index[i], 0, size(data) - 1)]: the index compared in int64, never wrapped.
void gather_flat(const Tensor& data, const Tensor& indices, int32_t* out) {
  const int64_t n = indices.size(), last = data.size() - 1;
  with_data(data, [&](const auto* table) {
    with_data(indices, [&](const auto* index) {
      split_range(n, n, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          out[i] = table[std::clamp<int64_t>(index[i], 0, last)];
        }
      });
    });
  });
}

// take along axis a: the output is (outer, M, inner) with outer = n_0 * .. * n_{a-1}, M the
// index count and inner = n_{a+1} * ..; each (outer, index) pair is one run of `inner` values.
void gather_axis(const Tensor& data, const Tensor& indices, int axis, int32_t* out) {
  const Shape& s = data.shape();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= s[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < s.size(); ++i) inner *= s[i];
  const int64_t extent = s[static_cast<size_t>(axis)];
  const int64_t m = indices.size();
  // Clamped once (in int64, then below 2^24), reused by every outer index.
  Buffer<int32_t> row(static_cast<size_t>(m));
  with_data(indices, [&](const auto* index) {
    for (int64_t j = 0; j < m; ++j) {
      row[static_cast<size_t>(j)] =
          static_cast<int32_t>(std::clamp<int64_t>(index[j], 0, extent - 1));
    }
  });
  with_data(data, [&](const auto* in) {
    split_range(outer * m, outer * m * inner, [&](int64_t w0, int64_t w1) {
      for (int64_t w = w0; w < w1; ++w) {
        const int64_t o = w / m, j = w % m;
        const int64_t source = o * extent + row[static_cast<size_t>(j)];
        copy_run(in + source * inner, out + w * inner, inner);
      }
    });
  });
}

std::vector<Tensor> take(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::TakeInference inf = infer::infer_take(ctx);
  Tensor y = infer::allocate(inf.output);
  if (inf.axis.has_value()) {
    gather_axis(ctx.inputs[0], ctx.inputs[1], *inf.axis, y.i32());
  } else {
    gather_flat(ctx.inputs[0], ctx.inputs[1], y.i32());
  }
  return results(std::move(y));
}

std::vector<Tensor> cvm_lut(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  Tensor y = infer::allocate(infer::infer_cvm_lut(ctx));
  gather_flat(ctx.inputs[1], ctx.inputs[0], y.i32());  // inputs are (indices, table)
  return results(std::move(y));
}

// out[i] = c[i] != 0 ? a[i] : b[i], folding the three inputs into seen[0..2] from the same
// loads (optimized/fused_pass.h): one read of each input instead of a check pass and a select
// pass. A plain function with restrict pointers, so the loop vectorizes.
template <typename C, typename A, typename B>
void select_loop(const C* __restrict c, const A* __restrict a, const B* __restrict b,
                 int32_t* __restrict out, int64_t n, fused::Seen* seen) {
  int32_t clo = seen[0].lo, chi = seen[0].hi, alo = seen[1].lo, ahi = seen[1].hi;
  int32_t blo = seen[2].lo, bhi = seen[2].hi;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t vc = c[i], va = a[i], vb = b[i];
    clo = vc < clo ? vc : clo;
    chi = vc > chi ? vc : chi;
    alo = va < alo ? va : alo;
    ahi = va > ahi ? va : ahi;
    blo = vb < blo ? vb : blo;
    bhi = vb > bhi ? vb : bhi;
    out[i] = vc != 0 ? va : vb;
  }
  seen[0] = {clo, chi};
  seen[1] = {alo, ahi};
  seen[2] = {blo, bhi};
}

std::vector<Tensor> where(const OpContext& ctx) {
  const infer::WhereInference inf = [&] {
    infer::validate_input_storage(ctx);
    return infer::infer_where(ctx);
  }();
  Tensor y = infer::allocate(inf.output);
  const Tensor& cond = ctx.inputs[0];
  const Tensor& a = ctx.inputs[1];
  const Tensor& b = ctx.inputs[2];
  int32_t* out = y.i32();
  const int64_t n = y.size();
  if (inf.by_rows) {
    infer::validate_inputs(ctx, threads());
    const int64_t rows = cond.size(), width = n / rows;
    split_range(rows, n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const Tensor& pick = cond.get(r) != 0 ? a : b;
        with_data(pick, [&](const auto* v) { copy_run(v + r * width, out + r * width, width); });
      }
    });
    return results(std::move(y));
  }
  std::array<fused::Seen, 3> seen{};
  with_data(cond, [&](const auto* c) {
    with_data(a, [&](const auto* va) {
      with_data(b, [&](const auto* vb) {
        seen = fused::for_chunks<3>(n, 3 * n, [&](int64_t begin, int64_t count, fused::Seen* s) {
          select_loop(c + begin, va + begin, vb + begin, out + begin, count, s);
        });
      });
    });
  });
  for (size_t k = 0; k < 3; ++k) infer::check_input_values(ctx, k, seen[k].lo, seen[k].hi);
  return results(std::move(y));
}

// Each output row (innermost axis) is `before` fills, the input run, `after` fills, or all
// fills when an outer coordinate lies in the padding. Trailing axes without padding are first
// merged into the axis above (their padding scaled), so rows are as long as possible.
std::vector<Tensor> pad(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::PadInference inf = infer::infer_pad(ctx);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  Shape in = x.shape(), out = inf.output.shape;
  std::vector<int64_t> before = inf.before, after = inf.after;
  while (in.size() > 1 && before.back() == 0 && after.back() == 0) {
    const int64_t d = in.back();
    in.pop_back();
    out.pop_back();
    before.pop_back();
    after.pop_back();
    in.back() *= d;
    out.back() *= d;
    before.back() *= d;
    after.back() *= d;
  }
  const size_t k = in.size();
  const std::vector<int64_t> in_stride = row_major_strides(in);
  const int64_t width = out[k - 1], run = in[k - 1];
  const int64_t rows = y.size() / width;
  const int32_t fill = inf.value;
  int32_t* dst = y.i32();
  with_data(x, [&](const auto* src) {
    split_range(rows, y.size(), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int32_t* row = dst + r * width;
        int64_t rest = r, offset = 0;
        bool inside = true;
        for (size_t i = k - 1; i-- > 0;) {
          const int64_t d = rest % out[i] - before[i];
          rest /= out[i];
          inside = inside && d >= 0 && d < in[i];
          offset += d * in_stride[i];
        }
        if (!inside) {
          std::fill_n(row, width, fill);
          continue;
        }
        std::fill_n(row, before[k - 1], fill);
        copy_run(src + offset, row + before[k - 1], run);
        std::fill_n(row + before[k - 1] + run, after[k - 1], fill);
      }
    });
  });
  return results(std::move(y));
}

}  // namespace

void add_transform_index(Backend& backend) {
  backend.add("strided_slice", strided_slice);
  backend.add("take", take);
  backend.add("cvm_lut", cvm_lut);
  backend.add("slice_like", slice_like);
  backend.add("where", where);
  backend.add("pad", pad);
}

}  // namespace cvm::opt
