// Per-element formulas of the data-movement kernels: the affine gather (every transform whose
// source coordinate per axis is ((d / div) mod m) - shift, scaled by a stride: copies, transpose,
// slices, repeat, tile, pad, upsampling, concatenate's per-input copies) and take.
#pragma once

#include "cuda/device_common.h"

namespace cvm::cuda {

// One axis of the iteration space. coord = ((d / div) % mod) - shift (mod 0: none); coord
// outside [0, extent) reads the pad value; the source offset adds coord * mult.
struct AxisMap {
  int64_t div = 1;
  int64_t mod = 0;
  int64_t shift = 0;
  int64_t extent = INT64_MAX;
  int64_t mult = 0;
};

struct GatherParams {
  Dims dims;  // the iteration space (the output, or one input for a scatter)
  AxisMap axis[kMaxDims];
  int64_t src_base = 0;
  int32_t dst_identity = 1;  // destination = iteration index; else dst_base + d . dst_mult
  int64_t dst_base = 0;
  int64_t dst_mult[kMaxDims] = {};
  int32_t pad_value = 0;
  int32_t planted = kNoFault;
  int32_t narrow = 0;  // every offset and index fits int32 (cuda/plan_fast.cc)
};

// The source and destination offsets of iteration index i over the first `axes` axes, and
// whether every source coordinate lies inside its extent. I: the index type, int64_t, or
// int32_t where the plan found that every offset fits (GatherParams::narrow): 32-bit division
// is several times cheaper on the device.
template <class I>
CVM_HD bool gather_offsets(const GatherParams& p, int32_t axes, I i, I& src, I& dst) {
  I rem = i;
  src = static_cast<I>(p.src_base);
  dst = static_cast<I>(p.dst_base);
  bool inside = true;
  for (int32_t j = axes - 1; j >= 0; --j) {
    const I d = rem % static_cast<I>(p.dims.d[j]);
    rem /= static_cast<I>(p.dims.d[j]);
    const AxisMap& a = p.axis[j];
    I c = d / static_cast<I>(a.div);
    if (a.mod != 0) c %= static_cast<I>(a.mod);
    c -= static_cast<I>(a.shift);
    inside = inside && c >= 0 && int64_t{c} < a.extent;
    src += c * static_cast<I>(a.mult);
    dst += d * static_cast<I>(p.dst_mult[j]);
  }
  return inside;
}

template <class I>
CVM_HD void gather_element_as(const GatherParams& p, const InView& in, int32_t* out, I i) {
  I src = 0, dst = 0;
  const bool inside = gather_offsets(p, p.dims.n, i, src, dst);
  out[p.dst_identity != 0 ? i : dst] = inside ? load(in, src) : p.pad_value;
}

CVM_HD void gather_element(const GatherParams& p, const InView& in, int32_t* out, int64_t i) {
  if (p.narrow != 0) {
    gather_element_as<int32_t>(p, in, out, static_cast<int32_t>(i));
  } else {
    gather_element_as<int64_t>(p, in, out, i);
  }
}

// Whether the innermost axis is a plain copy (source and destination both step by one element
// along it): the run kernel then copies runs of it, four elements per item.
inline bool innermost_is_run(const GatherParams& p) {
  if (p.dims.n == 0) return false;
  const int32_t last = p.dims.n - 1;
  const AxisMap& a = p.axis[last];
  const bool source_run = a.div == 1 && a.mod == 0 && a.shift == 0 && a.mult == 1 &&
                          a.extent >= p.dims.d[last];
  return source_run && (p.dst_identity != 0 || p.dst_mult[last] == 1);
}

// Vectors (of four elements, the last one maybe short) per run of the innermost axis.
CVM_HD int64_t run_vectors(const GatherParams& p) { return (p.dims.d[p.dims.n - 1] + 3) / 4; }

// The run kernel's item j: elements [4c, 4c + 4) of run r (j = r * run_vectors + c). The outer
// axes' index math runs once per item; a full vector whose source and destination are both
// aligned is one 16-byte load and store, the rest element by element.
template <class I>
CVM_HD void gather_run_item_as(const GatherParams& p, const InView& in, int32_t* out, I j) {
  const int32_t last = p.dims.n - 1;
  const I length = static_cast<I>(p.dims.d[last]), vectors = static_cast<I>(run_vectors(p));
  const I run = j / vectors, first = 4 * (j % vectors);
  I src = 0, dst = 0;
  const bool inside = gather_offsets(p, last, run, src, dst);
  if (p.dst_identity != 0) dst = run * length;
  const I end = first + 4 < length ? first + 4 : length;
  if (inside && end - first == 4 && (src + first) % 4 == 0 && (dst + first) % 4 == 0) {
    int32_t v[4];
    load4(in, src + first, v);
    store4(out, dst + first, v);
    return;
  }
  const bool drop = planted_fault(p.planted) == kFaultVectorTail && end - first < 4;
  for (I e = first; e < end - (drop ? 1 : 0); ++e) {
    out[dst + e] = inside ? load(in, src + e) : p.pad_value;
  }
}

CVM_HD void gather_run_item(const GatherParams& p, const InView& in, int32_t* out, int64_t j) {
  if (p.narrow != 0) {
    gather_run_item_as<int32_t>(p, in, out, static_cast<int32_t>(j));
  } else {
    gather_run_item_as<int64_t>(p, in, out, j);
  }
}

// take: input 0 is the data, input 1 the indices (cvm_lut passes its table as the data).
// flat: Y[i] = data[clamp(idx[i], 0, extent - 1)]. Otherwise the output is
// (outer, positions, inner) and Y[o, m, r] = data[o, clamp(idx[m], 0, extent - 1), r].
struct TakeParams {
  int32_t flat = 1;
  int64_t extent = 1;     // data size (flat) or the axis's size
  int64_t positions = 1;  // index count
  int64_t inner = 1;
};

CVM_HD int32_t take_element(const TakeParams& p, const Views& v, int64_t i) {
  if (p.flat != 0) return load(v.in[0], clamp64(load(v.in[1], i), 0, p.extent - 1));
  const int64_t r = i % p.inner;
  const int64_t m = (i / p.inner) % p.positions;
  const int64_t o = i / (p.inner * p.positions);
  const int64_t index = clamp64(load(v.in[1], m), 0, p.extent - 1);
  return load(v.in[0], (o * p.extent + index) * p.inner + r);
}

}  // namespace cvm::cuda
