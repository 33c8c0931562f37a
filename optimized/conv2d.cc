// Optimized conv2d: an implicit GEMM per group (rows = output channels, columns = output
// pixels, depth = input channels x kernel taps) on the active ISA's micro-kernels, or the direct
// kernel (portable path, depthwise/one input channel per group, and geometries whose buffers
// would be out of proportion to the work).
//
// The implicit GEMM needs no im2col. Per image, the input is rewritten once into "phase
// planes": the zero-padded image split by (row mod SH, column mod SW), only for the phases the
// kernel reads, with G channels interleaved per pixel (G = 4 8-bit values). In
// a phase plane every tap (ki, kj) is a stride-1 shift, so output pixel (p, q) of the "wide"
// output (row length = plane width Wps >= OW) reads plane element (p + a_ki) * Wps + (q + b_kj):
// a constant offset from the pixel's flat index p * Wps + q. A block of 16 consecutive flat
// pixels x G channels is therefore one contiguous 64-byte (VNNI) load per tap, and a tile is a
// plain GEMM with a per-tap offset table. The columns q in [OW, Wps) are computed and dropped;
// each output vector is stored as at most two row segments (masked stores). Threads split the
// (group, pixel block, channel panel) tiles; each output is computed by one tile in a fixed
// order, so the result does not depend on the thread count.
#include <omp.h>

#include <algorithm>
#include <cstring>
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

struct Plan {
  int64_t g = 0, lanes = 0, mr = 0, nv = 0, nr = 0, eb = 0, shift = 0;
  int64_t cg = 0;                         // channel groups of G per conv group
  std::vector<int64_t> slot_r, slot_c;    // per ki / kj: phase slot
  std::vector<int64_t> phase_r, phase_c;  // per slot: the phase (row / column mod stride)
  std::vector<int64_t> off_r, off_c;      // per ki / kj: plane row / column offset
  int64_t hps = 0, wps = 0, plane = 0;    // plane rows, columns, pixels
  int64_t planes_per_group = 0;
  int64_t buffer_elems = 0;  // per image
  int64_t kt = 0;            // k-steps: cg * KH * KW
  int64_t blocks = 0, panels = 0;
  std::vector<int64_t> offsets;  // per k-step, in elements
};

// Phases of one axis read by the kernel taps, and each tap's offset in its phase plane.
void phases(int64_t taps, int64_t dilation, int64_t stride, std::vector<int64_t>& slot,
            std::vector<int64_t>& phase, std::vector<int64_t>& off) {
  std::vector<int64_t> slot_of(static_cast<size_t>(stride), -1);
  for (int64_t k = 0; k < taps; ++k) {
    const int64_t ph = k * dilation % stride;
    int64_t& s = slot_of[static_cast<size_t>(ph)];
    if (s < 0) {
      s = static_cast<int64_t>(phase.size());
      phase.push_back(ph);
    }
    slot.push_back(s);
    off.push_back(k * dilation / stride);
  }
}

// The implicit-GEMM plan, or false when the direct kernel should run instead.
bool make_plan(const infer::Conv2dInference& c, const NnIsa& isa, Plan& p) {
  if (!isa.gemm || c.in_per_group < 2) return false;
  p.g = isa.group;
  p.lanes = isa.lanes;
  p.mr = isa.conv_mr;
  p.nv = isa.conv_nv;
  p.nr = p.nv * p.lanes;
  p.eb = isa.elem_bytes;
  p.shift = isa.shift;
  p.cg = (c.in_per_group + p.g - 1) / p.g;
  // The kernel taps (<= W's element count) are enumerated once.
  phases(c.kernel_h, c.dilation_h, c.stride_h, p.slot_r, p.phase_r, p.off_r);
  phases(c.kernel_w, c.dilation_w, c.stride_w, p.slot_c, p.phase_c, p.off_c);
  p.hps = c.out_h + p.off_r.back();
  p.wps = c.out_w + p.off_c.back();
  // A lane of a real output pixel reads inside its plane; the lanes of dropped pixels may read
  // past it, into the next plane or, after the last one, into nr pixels of slack.
  // hps, wps < 2^26 (OH <= 2^24 and (KH - 1) * DH < H + 2 PH), so plane < 2^52 and the phase
  // counts are below 4096: the products below fit int64; the guards use double all the same.
  p.plane = p.hps * p.wps;
  p.planes_per_group = static_cast<int64_t>(p.phase_r.size() * p.phase_c.size()) * p.cg;
  p.kt = p.cg * c.kernel_h * c.kernel_w;
  const int64_t valid = (c.out_h - 1) * p.wps + c.out_w;
  p.blocks = (valid + p.nr - 1) / p.nr;
  p.panels = (c.out_per_group + p.mr - 1) / p.mr;
  // Keep the buffer and the computed-but-dropped work in proportion to the real work.
  const double in_elems = static_cast<double>(c.in_channels * c.height * c.width);
  const double out_elems = static_cast<double>(c.channels * c.out_h * c.out_w);
  const double buffer_bytes = static_cast<double>(c.groups) *
                              static_cast<double>(p.planes_per_group) *
                              static_cast<double>(p.plane) * static_cast<double>(p.g * p.eb);
  if (buffer_bytes > 16.0 * (in_elems + out_elems) + 1048576.0) return false;
  const double direct_work =
      out_elems * static_cast<double>(c.in_per_group * c.kernel_h * c.kernel_w);
  const double gemm_work = static_cast<double>(c.groups * p.panels * p.mr) *
                           static_cast<double>(p.blocks * p.nr) * static_cast<double>(p.kt * p.g);
  if (gemm_work > 8.0 * direct_work + 65536.0) return false;
  p.buffer_elems = (c.groups * p.planes_per_group * p.plane + p.nr) * p.g;
  p.offsets.resize(static_cast<size_t>(p.kt));
  const int64_t nc = static_cast<int64_t>(p.phase_c.size());
  for (int64_t cgi = 0; cgi < p.cg; ++cgi) {
    for (int64_t ki = 0; ki < c.kernel_h; ++ki) {
      for (int64_t kj = 0; kj < c.kernel_w; ++kj) {
        const auto uki = static_cast<size_t>(ki), ukj = static_cast<size_t>(kj);
        const int64_t plane_index = (p.slot_r[uki] * nc + p.slot_c[ukj]) * p.cg + cgi;
        const int64_t t = (cgi * c.kernel_h + ki) * c.kernel_w + kj;
        p.offsets[static_cast<size_t>(t)] =
            (plane_index * p.plane + p.off_r[uki] * p.wps + p.off_c[ukj]) * p.g;
      }
    }
  }
  return true;
}

// The value range of a tensor (the deferred value check), split over the threads.
template <typename T>
std::pair<int32_t, int32_t> value_range(const T* data, int64_t n, nn::RangeFn<T> range_fn,
                                        int team) {
  int32_t lo = 0, hi = 0;
  const int64_t chunk = path::kConvRangeChunk;
  path::hit_if(n > chunk, path::kConvRangeChunks);
#pragma omp parallel num_threads(team)
  {
    int32_t range[2] = {0, 0};
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i += chunk) range_fn(data + i, std::min(chunk, n - i), range);
#pragma omp critical(cvm_conv_range)
    {
      lo = std::min(lo, range[0]);
      hi = std::max(hi, range[1]);
    }
  }
  return {lo, hi};
}

void check_tensor_values(const Tensor& t, size_t index, const NnIsa& isa, int team) {
  const auto [lo, hi] = t.dtype() == DType::kInt8
                            ? value_range(t.i8(), t.size(), isa.range_i8, team)
                            : value_range(t.i32(), t.size(), isa.range_i32, team);
  infer::check_value_range(index, lo, hi, t.precision());
}

// Weights as A panels [group][panel][kt][rows][G] with the weights' value check fused in, and
// the per-row initial value: bias, minus 128 * sum(w) on the shifted (VNNI) path.
template <typename T>
void pack_weights(const infer::Conv2dInference& c, const Plan& p, const NnIsa& isa, const T* w,
                  nn::PackWFn<T> pack_w, const Tensor& weights, const Tensor* bias,
                  nn::AlignedBytes& packed, std::vector<int32_t>& init, int team) {
  const int64_t taps = c.kernel_h * c.kernel_w;
  const int64_t panels = c.groups * p.panels;
  packed.resize(static_cast<size_t>(panels * p.mr * p.kt * p.g * p.eb));
  init.assign(static_cast<size_t>(c.channels), 0);
  std::vector<int32_t> sums(static_cast<size_t>(c.channels));
  int32_t lo = 0, hi = 0;
#pragma omp parallel num_threads(team)
  {
    int32_t range[2] = {0, 0};
#pragma omp for schedule(static)
    for (int64_t panel = 0; panel < panels; ++panel) {
      const int64_t grp = panel / p.panels, j = panel % p.panels;
      const int64_t oc0 = grp * c.out_per_group + j * p.mr;
      const int64_t rows = std::min(p.mr, c.out_per_group - j * p.mr);
      pack_w(w + oc0 * c.in_per_group * taps, rows, c.in_per_group, taps,
             packed.data() + panel * p.mr * p.kt * p.g * p.eb, sums.data() + oc0, range);
    }
#pragma omp critical(cvm_conv_pack_range)
    {
      lo = std::min(lo, range[0]);
      hi = std::max(hi, range[1]);
    }
  }
  infer::check_value_range(1, lo, hi, weights.precision());
  for (int64_t oc = 0; oc < c.channels; ++oc) {
    const int64_t b = bias != nullptr ? bias->get(oc) : 0;
    // Exact now that the values are checked: |sum| <= T * alpha(p1) < 2^30 (nn_gemm.h).
    const int64_t sum = sums[static_cast<size_t>(oc)];
    init[static_cast<size_t>(oc)] =
        isa.shift != 0 ? nn::wrap_sub(b, isa.shift * sum) : static_cast<int32_t>(b);
  }
}

// Rewrites image n into the phase planes (see the top of the file).
template <typename T>
void fill_planes(const infer::Conv2dInference& c, const Plan& p, nn::FillRowFn<T> fill, const T* x,
                 int64_t n, uint8_t* buf, int team) {
  const int64_t nc = static_cast<int64_t>(p.phase_c.size());
  const int64_t planes = c.groups * p.planes_per_group;
  const int64_t pixel_bytes = p.g * p.eb;
  const int pad = static_cast<int>(p.shift);  // the stored zero: shifted (u8) or as it is (s8)
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t row = 0; row < planes * p.hps; ++row) {
    const int64_t pl = row / p.hps, i = row % p.hps;
    const int64_t nr_slots = static_cast<int64_t>(p.phase_r.size());
    const int64_t cgi = pl % p.cg, sc = (pl / p.cg) % nc, sr = (pl / p.cg / nc) % nr_slots;
    const int64_t grp = pl / p.planes_per_group;
    const int64_t r = i * c.stride_h + p.phase_r[static_cast<size_t>(sr)] - c.pad_h;
    const T* src[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int64_t s = 0; s < p.g; ++s) {
      const int64_t ic = cgi * p.g + s;
      if (ic < c.in_per_group && r >= 0 && r < c.height) {
        const int64_t ch = grp * c.in_per_group + ic;
        src[s] = x + ((n * c.in_channels + ch) * c.height + r) * c.width;
      }
    }
    uint8_t* dst = buf + (pl * p.plane + i * p.wps) * pixel_bytes;
    fill(src, c.stride_w, p.phase_c[static_cast<size_t>(sc)] - c.pad_w, c.width, p.wps, dst);
  }
  std::memset(buf + planes * p.plane * pixel_bytes, pad, static_cast<size_t>(p.nr * pixel_bytes));
}

// The implicit GEMM over image n. A task is (group, pixel block, range of channel panels): the
// pixel block's store plan is computed once and its data stays in L1 across the panels. Panels
// are split into ranges only as much as needed to give every thread several tasks.
void gemm_image(const infer::Conv2dInference& c, const Plan& p, const NnIsa& isa,
                const uint8_t* packed, const std::vector<int32_t>& init, const uint8_t* buf,
                int64_t n, int32_t* y, int team) {
  const int64_t plane_out = c.out_h * c.out_w;
  const int64_t blocks = c.groups * p.blocks;
  const int64_t ranges = std::clamp<int64_t>((4 * team + blocks - 1) / blocks, 1, p.panels);
  const int64_t per_range = (p.panels + ranges - 1) / ranges;
  const int64_t pixel_bytes = p.g * p.eb;
  const bool direct_store = p.wps >= p.lanes;  // a vector then spans at most two image rows
  path::hit_if(!direct_store, path::kConvScratchStore);
  path::hit_if(c.out_per_group % p.mr != 0, path::kConvPartialPanel);
  path::hit_if(per_range >= 2, path::kConvPanelRun);
  path::hit_if(ranges >= 2, path::kConvPanelRanges);
#pragma omp parallel num_threads(team)
  {
    std::vector<int32_t> scratch;  // a tile, when a vector can span more than two image rows
    if (!direct_store) scratch.resize(static_cast<size_t>(p.mr * p.nr));
    // Dynamic: the tasks cost the same, but the cores do not run at the same speed (another
    // process, a shared machine's neighbour); a static split left one thread waiting ~10% of
    // the call. Each output is still computed by one tile, so the result does not change.
#pragma omp for schedule(dynamic)
    for (int64_t task = 0; task < blocks * ranges; ++task) {
      const int64_t grp = task / ranges / p.blocks, blk = task / ranges % p.blocks;
      const int64_t j_first = task % ranges * per_range;
      const int64_t j_last = std::min(p.panels, j_first + per_range);
      const int64_t f0 = blk * p.nr;
      Tile t;
      t.nv = static_cast<int>(p.nv);
      t.b = buf + (grp * p.planes_per_group * p.plane + f0) * pixel_bytes;
      t.b_off = p.offsets.data();
      t.kt = p.kt;
      for (int64_t v = 0; v < p.nv; ++v) {
        nn::VecStore& s = t.vec[v];
        s = {};
        if (!direct_store) {
          s.off1 = v * p.lanes;
          s.n1 = static_cast<int32_t>(p.lanes);
          continue;
        }
        const int64_t f = f0 + v * p.lanes, row = f / p.wps, col = f % p.wps;
        if (row < c.out_h && col < c.out_w) {
          s.n1 = static_cast<int32_t>(std::min(p.lanes, c.out_w - col));
          s.off1 = row * c.out_w + col;
        }
        const int64_t next = p.wps - col;  // the lane where image row + 1 starts
        if (next < p.lanes && row + 1 < c.out_h) {
          s.s2 = static_cast<int32_t>(next);
          s.n2 = static_cast<int32_t>(std::min(p.lanes - next, c.out_w));
          s.off2 = (row + 1) * c.out_w;
        }
      }
      for (int64_t j = j_first; j < j_last; ++j) {
        const int64_t oc0 = grp * c.out_per_group + j * p.mr;
        t.rows = static_cast<int>(std::min(p.mr, c.out_per_group - j * p.mr));
        t.a = packed + (grp * p.panels + j) * p.mr * p.kt * pixel_bytes;
        t.row_init = init.data() + oc0;
        int32_t* ybase = y + (n * c.channels + oc0) * plane_out;
        if (direct_store) {
          t.c = ybase;
          t.ldc = plane_out;
          isa.conv_tile(t);
          continue;
        }
        t.c = scratch.data();
        t.ldc = p.nr;
        isa.conv_tile(t);
        for (int64_t l = 0; l < p.nr; ++l) {
          const int64_t row = (f0 + l) / p.wps, col = (f0 + l) % p.wps;
          if (row >= c.out_h || col >= c.out_w) continue;
          for (int r = 0; r < t.rows; ++r) {
            ybase[r * plane_out + row * c.out_w + col] = scratch[static_cast<size_t>(r * p.nr + l)];
          }
        }
      }
    }
  }
}

template <typename T>
void run_gemm(const infer::Conv2dInference& c, const Plan& p, const NnIsa& isa,
              const OpContext& ctx, Tensor& y, int team) {
  const Tensor& w = ctx.inputs[1];
  const Tensor* bias = c.use_bias ? &ctx.inputs[2] : nullptr;
  nn::AlignedBytes packed;
  std::vector<int32_t> init;
  if (w.dtype() == DType::kInt8) {
    pack_weights(c, p, isa, w.i8(), isa.pack_w_i8, w, bias, packed, init, team);
  } else {
    pack_weights(c, p, isa, w.i32(), isa.pack_w_i32, w, bias, packed, init, team);
  }
  nn::AlignedBytes buf(static_cast<size_t>(p.buffer_elems * p.eb));
  const Tensor& x = ctx.inputs[0];
  for (int64_t n = 0; n < c.batch; ++n) {
    if (x.dtype() == DType::kInt8) {
      fill_planes<int8_t>(c, p, isa.fill_row_i8, x.i8(), n, buf.data(), team);
    } else {
      fill_planes<int32_t>(c, p, isa.fill_row_i32, x.i32(), n, buf.data(), team);
    }
    gemm_image(c, p, isa, packed.data(), init, buf.data(), n, y.i32(), team);
  }
}

std::vector<int32_t> widened(const Tensor& t) {
  std::vector<int32_t> v(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) v[static_cast<size_t>(i)] = t.get(i);
  return v;
}

void run_direct(const infer::Conv2dInference& c, const NnIsa& isa, const OpContext& ctx, Tensor& y,
                int team) {
  const std::vector<int32_t> w = widened(ctx.inputs[1]);
  std::vector<int32_t> bias;
  if (c.use_bias) bias = widened(ctx.inputs[2]);
  nn::DirectConv d;
  const bool i8 = ctx.inputs[0].dtype() == DType::kInt8;
  d.x = i8 ? static_cast<const void*>(ctx.inputs[0].i8())
           : static_cast<const void*>(ctx.inputs[0].i32());
  d.w = w.data();
  d.bias = c.use_bias ? bias.data() : nullptr;
  d.y = y.i32();
  d.batch = c.batch;
  d.in_channels = c.in_channels;
  d.height = c.height;
  d.width = c.width;
  d.channels = c.channels;
  d.groups = c.groups;
  d.in_per_group = c.in_per_group;
  d.out_per_group = c.out_per_group;
  d.kernel_h = c.kernel_h;
  d.kernel_w = c.kernel_w;
  d.stride_h = c.stride_h;
  d.stride_w = c.stride_w;
  d.pad_h = c.pad_h;
  d.pad_w = c.pad_w;
  d.dilation_h = c.dilation_h;
  d.dilation_w = c.dilation_w;
  d.out_h = c.out_h;
  d.out_w = c.out_w;
  // Each thread takes a contiguous range of (image, group) units: one scratch plane per thread.
  const int64_t units = c.batch * c.groups;
#pragma omp parallel num_threads(team)
  {
    const int64_t threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t first = units * id / threads, last = units * (id + 1) / threads;
    if (first < last) {
      if (i8) {
        isa.direct_i8(d, first, last);
      } else {
        isa.direct_i32(d, first, last);
      }
    }
  }
}

std::vector<Tensor> conv2d(const OpContext& ctx) {
  // With a range function, the data and weight values are checked here, vectorized or fused
  // into the weight packing, rather than by a baseline pass in the inference.
  const bool deferred = nn::active_nn_isa().range_i32 != nullptr;
  const infer::Conv2dInference c = infer::infer_conv2d(ctx, deferred);
  // The kernels exact for these precisions (AVX2: vpmaddubsw where a side has 7 bits or fewer).
  const NnIsa& isa = nn::active_nn_isa(ctx.inputs[0].precision(), ctx.inputs[1].precision());
  Tensor y = infer::allocate(c.output);
  const int64_t work = y.size() * c.in_per_group * c.kernel_h * c.kernel_w;
  const int team = threads_for(std::max(work, ctx.inputs[0].size()));
  if (deferred) check_tensor_values(ctx.inputs[0], 0, isa, team);
  Plan p;
  if (make_plan(c, isa, p)) {
    path::hit(path::gemm_path(isa, /*conv=*/true));
    path::hit_if(p.panels >= 2, path::kConvPanels);
    if (ctx.inputs[0].dtype() == DType::kInt8) {
      run_gemm<int8_t>(c, p, isa, ctx, y, team);
    } else {
      run_gemm<int32_t>(c, p, isa, ctx, y, team);
    }
  } else {
    if (deferred) check_tensor_values(ctx.inputs[1], 1, isa, team);
    path::hit(path::kConvDirect);
    path::hit_if(isa.gemm, path::kConvDeclined);
    run_direct(c, isa, ctx, y, team);
  }
  return nn::only(std::move(y));
}

}  // namespace

void add_conv2d(Backend& backend) { backend.add("conv2d", conv2d); }

}  // namespace cvm::opt
