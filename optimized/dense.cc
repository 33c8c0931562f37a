// Optimized dense: Y = X W^T (+ B) as a packed GEMM. A = X rows (broadcast operand, packed once
// as [row panel][k-step][rows][G], shifted by 128 on the VNNI path); B = W rows (vector operand),
// packed per column panel and k-block into a per-thread buffer right before use, so W is read
// once from memory whatever the row count (M = 1 is bandwidth-bound on W). The value checks of
// X and W are fused into their packing. The per-column initial value (bias, minus
// 128 * sum(w) on the VNNI path) is added in the last k-block; the column sums wrap modulo 2^32
// until the values are known to be valid, after which they are exact (nn_gemm.h).
// Threads split (column panel, row chunk) tasks; every output is computed by one task in a fixed
// order, so the result does not depend on the thread count. Portable path: direct dot products.
#include <omp.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "infer/nn.h"
#include "optimized/kernels.h"
#include "optimized/nn_isa_dispatch.h"
#include "optimized/paths.h"

namespace cvm::opt {
namespace {

using nn::NnIsa;
using nn::Tile;


std::vector<int32_t> widened(const Tensor& t) {
  std::vector<int32_t> v(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) v[static_cast<size_t>(i)] = t.get(i);
  return v;
}

struct Ranges {
  int32_t x_lo = 0, x_hi = 0, w_lo = 0, w_hi = 0;
};

// Returns the ranges of X's and W's values (the value check is fused into the packing).
template <typename T>
Ranges run_gemm(const infer::DenseInference& d, const NnIsa& isa, const T* x, const T* w,
                const Tensor* bias, int32_t* y, int team, nn::PackBFn<T> pack_a,
                nn::PackBFn<T> pack_b) {
  const int64_t g = isa.group, lanes = isa.lanes, mr = isa.dense_mr;
  const int64_t nr_max = isa.dense_nv * lanes;
  const int64_t kt = (d.depth + g - 1) / g;
  const int64_t row_panels = (d.rows + mr - 1) / mr;
  const int64_t col_panels = (d.units + nr_max - 1) / nr_max;
  const int64_t kBlockSteps = path::dense_block_steps(isa);  // VNNI: 4096 k x 64 columns
  const int64_t kblocks = (kt + kBlockSteps - 1) / kBlockSteps;
  // Split the rows too when there are too few column panels to keep every thread busy.
  const int64_t chunks =
      std::min(row_panels, std::max<int64_t>(1, (2 * team + col_panels - 1) / col_panels));
  const int64_t panels_per_chunk = (row_panels + chunks - 1) / chunks;
  // The ISA's GEMM path; on AVX2 also the table the call's precisions chose (vpsignb on the
  // data as it is, or vpmaddubsw on data shifted by 64 or 128: nn_gemm.h).
  path::hit(path::gemm_path(isa, /*conv=*/false));
  path::hit_if(kblocks > 1, path::kDenseKBlocks);
  path::hit_if(chunks > 1, path::kDenseRowChunks);
  path::hit_if(d.rows % mr != 0, path::kDensePartialPanel);
  path::hit_if(d.units % lanes != 0, path::kDenseColumnTail);

  // X as A panels: panel i holds rows [i*mr, i*mr + rows) as [kt][rows][G] (shifted on VNNI).
  Ranges ranges;
  nn::AlignedBytes a(static_cast<size_t>(row_panels * mr * kt * g * isa.elem_bytes));
#pragma omp parallel num_threads(team)
  {
    std::vector<int32_t> unused(static_cast<size_t>(mr));
    int32_t range[2] = {0, 0};
#pragma omp for schedule(static)
    for (int64_t i = 0; i < row_panels; ++i) {
      const int64_t rows = std::min(mr, d.rows - i * mr);
      pack_a(x + i * mr * d.depth, d.depth, rows, d.depth, kt * g, rows,
             a.data() + i * mr * kt * g * isa.elem_bytes, unused.data(), range);
    }
#pragma omp critical(cvm_dense_x_range)
    {
      ranges.x_lo = std::min(ranges.x_lo, range[0]);
      ranges.x_hi = std::max(ranges.x_hi, range[1]);
    }
  }
  const int64_t b_bytes = std::min(kt, kBlockSteps) * nr_max * g * isa.elem_bytes;
#pragma omp parallel num_threads(team)
  {
    nn::AlignedBytes b(static_cast<size_t>(b_bytes));
    std::vector<int32_t> colsum(static_cast<size_t>(nr_max)), init(static_cast<size_t>(nr_max));
    int32_t range[2] = {0, 0};
#pragma omp for schedule(static)
    for (int64_t task = 0; task < col_panels * chunks; ++task) {
      const int64_t jp = task / chunks, chunk = task % chunks;
      const int64_t u0 = jp * nr_max, units = std::min(nr_max, d.units - u0);
      const int nv = static_cast<int>((units + lanes - 1) / lanes);
      const int64_t nr = nv * lanes;
      const int64_t i_first = chunk * panels_per_chunk;
      const int64_t i_last = std::min(row_panels, i_first + panels_per_chunk);
      std::fill(colsum.begin(), colsum.end(), 0);
      for (int64_t kb = 0; kb < kblocks; ++kb) {
        const int64_t step0 = kb * kBlockSteps, steps = std::min(kBlockSteps, kt - step0);
        const int64_t k0 = step0 * g;
        pack_b(w + u0 * d.depth + k0, d.depth, units, std::min(d.depth - k0, steps * g), steps * g,
               nr, b.data(), colsum.data(), range);
        const bool last = kb + 1 == kblocks;
        if (last) {
          for (int64_t l = 0; l < nr; ++l) {
            const int64_t bv = l < units && bias != nullptr ? bias->get(u0 + l) : 0;
            const int64_t comp =
                l < units ? int64_t{isa.shift} * colsum[static_cast<size_t>(l)] : 0;
            init[static_cast<size_t>(l)] = nn::wrap_sub(bv, comp);
          }
        }
        for (int64_t i = i_first; i < i_last; ++i) {
          const int64_t m0 = i * mr, rows = std::min(mr, d.rows - m0);
          Tile t;
          t.rows = static_cast<int>(rows);
          t.nv = nv;
          t.a = a.data() + (i * mr * kt + step0 * rows) * g * isa.elem_bytes;
          t.b = b.data();
          t.b_step = nr * g;
          t.kt = steps;
          t.c = y + m0 * d.units + u0;
          t.ldc = d.units;
          for (int v = 0; v < nv; ++v) {
            t.vec[v] = {};
            t.vec[v].off1 = v * lanes;
            t.vec[v].n1 = static_cast<int32_t>(std::clamp<int64_t>(units - v * lanes, 0, lanes));
          }
          t.accumulate = kb > 0;
          t.col_init = last ? init.data() : nullptr;
          isa.dense_tile(t);
        }
      }
    }
#pragma omp critical(cvm_dense_w_range)
    {
      ranges.w_lo = std::min(ranges.w_lo, range[0]);
      ranges.w_hi = std::max(ranges.w_hi, range[1]);
    }
  }
  return ranges;
}

// dense of few rows as a gemv (the ISA's GemvFn): threads split the units in blocks of four,
// each reading its units' W rows once. Returns the ranges, as run_gemm.
template <typename T>
Ranges run_gemv(const infer::DenseInference& d, const T* x, const T* w, const Tensor* bias,
                int32_t* y, int team, nn::GemvFn<T> gemv, nn::RangeFn<T> range_fn) {
  path::hit(path::kDenseGemvAvx2);
  Ranges ranges;
  int32_t x_range[2] = {0, 0};
  range_fn(x, d.rows * d.depth, x_range);
  ranges.x_lo = x_range[0];
  ranges.x_hi = x_range[1];
  std::vector<int32_t> b32;
  if (bias != nullptr) b32 = widened(*bias);
  const int64_t blocks = (d.units + 3) / 4;
#pragma omp parallel num_threads(team)
  {
    const int64_t threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t first = blocks * id / threads * 4;
    const int64_t last = std::min(d.units, blocks * (id + 1) / threads * 4);
    int32_t range[2] = {0, 0};
    if (first < last) {
      gemv(x, w, bias != nullptr ? b32.data() : nullptr, y, d.rows, d.depth, d.units, first,
           last, range);
    }
#pragma omp critical(cvm_dense_gemv_range)
    {
      ranges.w_lo = std::min(ranges.w_lo, range[0]);
      ranges.w_hi = std::max(ranges.w_hi, range[1]);
    }
  }
  return ranges;
}

// The product of X and W of one storage type: the gemv where the ISA has one and the rows are
// few (path::kDenseGemvRows), else the packed GEMM.
template <typename T>
Ranges multiply(const infer::DenseInference& d, const NnIsa& isa, const T* x, const T* w,
                const Tensor* bias, int32_t* y, int team) {
  constexpr bool k8 = std::is_same_v<T, int8_t>;
  nn::GemvFn<T> gemv = nullptr;
  nn::RangeFn<T> range_fn = nullptr;
  nn::PackBFn<T> pack_a = nullptr, pack_b = nullptr;
  if constexpr (k8) {
    gemv = isa.gemv_i8;
    range_fn = isa.range_i8;
    pack_a = isa.pack_a_i8;
    pack_b = isa.pack_b_i8;
  } else {
    gemv = isa.gemv_i32;
    range_fn = isa.range_i32;
    pack_a = isa.pack_a_i32;
    pack_b = isa.pack_b_i32;
  }
  if (gemv != nullptr && d.rows <= path::kDenseGemvRows) {
    return run_gemv<T>(d, x, w, bias, y, team, gemv, range_fn);
  }
  return run_gemm<T>(d, isa, x, w, bias, y, team, pack_a, pack_b);
}

template <typename T>
void run_direct(const infer::DenseInference& d, const NnIsa& isa, const T* x, const Tensor& w,
                const Tensor* bias, int32_t* y, int team, nn::DirectDenseFn<T> rows_fn) {
  const std::vector<int32_t> w32 = widened(w);
  std::vector<int32_t> b32;
  if (bias != nullptr) b32 = widened(*bias);
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t m = 0; m < d.rows; ++m) {
    rows_fn(x, w32.data(), bias != nullptr ? b32.data() : nullptr, y, d.depth, d.units, m, m + 1);
  }
}

std::vector<Tensor> dense(const OpContext& ctx) {
  // The GEMM path checks X's and W's values while packing them (W is read from memory once).
  const infer::DenseInference d = infer::infer_dense(ctx, nn::active_nn_isa().gemm);
  Tensor y = infer::allocate(d.output);
  const int team = threads_for(y.size() * d.depth);
  const Tensor& x = ctx.inputs[0];
  const Tensor& w = ctx.inputs[1];
  // The kernels exact for these precisions (AVX2: vpmaddubsw where a side has 7 bits or fewer).
  const NnIsa& isa = nn::active_nn_isa(x.precision(), w.precision());
  const Tensor* bias = d.use_bias ? &ctx.inputs[2] : nullptr;
  const bool x8 = x.dtype() == DType::kInt8;
  if (isa.gemm) {
    Ranges r;
    if (x.dtype() == w.dtype()) {
      r = x8 ? multiply<int8_t>(d, isa, x.i8(), w.i8(), bias, y.i32(), team)
             : multiply<int32_t>(d, isa, x.i32(), w.i32(), bias, y.i32(), team);
    } else {
      // Mixed storage: widen the int8 operand so both share one type.
      path::hit(path::kDenseMixed);
      const std::vector<int32_t> wide = widened(x8 ? x : w);
      const int32_t* xp = x8 ? wide.data() : x.i32();
      const int32_t* wp = x8 ? w.i32() : wide.data();
      r = multiply<int32_t>(d, isa, xp, wp, bias, y.i32(), team);
    }
    infer::check_value_range(0, r.x_lo, r.x_hi, x.precision());
    infer::check_value_range(1, r.w_lo, r.w_hi, w.precision());
  } else if (x8) {
    path::hit(path::kDenseDirect);
    run_direct<int8_t>(d, isa, x.i8(), w, bias, y.i32(), team, isa.dense_i8);
  } else {
    path::hit(path::kDenseDirect);
    run_direct<int32_t>(d, isa, x.i32(), w, bias, y.i32(), team, isa.dense_i32);
  }
  return nn::only(std::move(y));
}

}  // namespace

void add_dense(Backend& backend) { backend.add("dense", dense); }

}  // namespace cvm::opt
