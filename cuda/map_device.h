// Per-element formulas of the "map" kernels: every output element is a function of one element
// of each input (elementwise, broadcast, relu, where). The inputs' element offsets come from an
// affine map of the output's coordinates (identity, or a broadcast/row map).
#pragma once

#include "cuda/device_common.h"

namespace cvm::cuda {

enum MapOp : int32_t {
  kMapAbs,
  kMapNegative,
  kMapPrecision,
  kMapClamp,
  kMapRightShift,
  kMapLeftShift,
  kMapAdd,
  kMapSub,
  kMapMul,
  kMapDiv,
  kMapMax,
  kMapGreater,
  kMapRelu,
  kMapWhere,
};

// Offset of an input element: the output index itself, or sum_j coords[j] * mult[j].
struct IndexMap {
  int32_t identity = 1;
  int64_t mult[kMaxDims] = {};
};

struct MapParams {
  int32_t op = kMapAbs;
  int32_t arity = 1;
  Dims out;  // output shape (used when some input map is not the identity)
  IndexMap in[3];
  int64_t lo = 0, hi = 0;  // kMapClamp and the shifts' final clip
  int32_t shift = 0;       // the shifts' shift_bit
  int64_t count = 0;       // output elements (the vector kernel's bound)
  int32_t planted = kNoFault;
  int32_t narrow = 0;  // every index fits int32 (cuda/plan_fast.cc)
};

template <class I>
CVM_HD I map_offset(const IndexMap& m, int32_t ndim, I i, const int64_t* coords) {
  if (m.identity != 0) return i;
  I offset = 0;
  for (int32_t j = 0; j < ndim; ++j) offset += static_cast<I>(coords[j]) * static_cast<I>(m.mult[j]);
  return offset;
}

// The value of an output element from its inputs' elements a, b, y (those past the arity
// unused). Values are widened to int64, where every formula of the contract is exact for inputs
// within their precision (|v| <= 2^31 - 1).
CVM_HD int32_t map_value(const MapParams& p, int64_t a, int64_t b, int64_t y) {
  int64_t r = 0;
  switch (p.op) {
    case kMapAbs:
      r = a < 0 ? -a : a;
      break;
    case kMapNegative:
      r = -a;
      break;
    case kMapPrecision:
      r = a == 0 ? 1 : bit_length(static_cast<uint64_t>(a < 0 ? -a : a));
      break;
    case kMapClamp:
      r = clamp64(a, p.lo, p.hi);
      break;
    // floor(x / 2^(s-1)) is an arithmetic shift; +1 and >> 1 round half toward +infinity.
    case kMapRightShift:
      r = clamp64(((a >> (p.shift - 1)) + 1) >> 1, p.lo, p.hi);
      break;
    case kMapLeftShift:
      r = clamp64(a * (int64_t{1} << p.shift), p.lo, p.hi);
      break;
    case kMapAdd:
      r = a + b;
      break;
    case kMapSub:
      r = a - b;
      break;
    case kMapMul:
      r = a * b;
      break;
    case kMapDiv:
      r = b == 0 ? 0 : a / b;
      break;  // truncates toward zero; x / 0 = 0
    case kMapMax:
      r = max64(a, b);
      break;
    case kMapGreater:
      r = a > b ? 1 : 0;
      break;
    case kMapRelu:
      r = max64(a, 0);
      break;
    case kMapWhere:
      r = a != 0 ? b : y;
      break;
    default:
      break;
  }
  return static_cast<int32_t>(r);
}

// Output element i (one thread per element: cuda/simple, and the vector kernel's odd elements).
// I: the index type, int32_t where the plan found that every index fits (MapParams::narrow).
template <class I>
CVM_HD int32_t map_element_as(const MapParams& p, const Views& v, I i) {
  // One int64 coordinate array for either index type: a second array of I's would take a second
  // stack slot in the kernel (the run-time axis loops keep it in local memory).
  int64_t coords[kMaxDims] = {};
  bool any_map = false;
  for (int32_t k = 0; k < p.arity; ++k) any_map = any_map || p.in[k].identity == 0;
  I rem = i;
  for (int32_t j = p.out.n - 1; j >= 0 && any_map; --j) {
    coords[j] = rem % static_cast<I>(p.out.d[j]);
    rem /= static_cast<I>(p.out.d[j]);
  }
  const int64_t a = load(v.in[0], map_offset(p.in[0], p.out.n, i, coords));
  const int64_t b = p.arity > 1 ? load(v.in[1], map_offset(p.in[1], p.out.n, i, coords)) : 0;
  const int64_t y = p.arity > 2 ? load(v.in[2], map_offset(p.in[2], p.out.n, i, coords)) : 0;
  return map_value(p, a, b, y);
}

CVM_HD int32_t map_element(const MapParams& p, const Views& v, int64_t i) {
  if (p.narrow != 0) return map_element_as<int32_t>(p, v, static_cast<int32_t>(i));
  return map_element_as<int64_t>(p, v, i);
}

// Whether every input is read at the output's own index (elementwise, unary, same-shape
// broadcasts): the vector kernel then loads and stores 16 bytes at a time.
CVM_HD bool all_identity(const MapParams& p) {
  bool identity = true;
  for (int32_t k = 0; k < p.arity; ++k) identity = identity && p.in[k].identity != 0;
  return identity;
}

// A full vector of a broadcast whose innermost output axis holds whole vectors: its four
// elements share their outer coordinates, so each input's offset is computed once, and the input
// is read as one vector (stride 1 along the axis, aligned), as one value (stride 0: a broadcast
// axis), or element by element (any other stride, or misaligned).
template <class I>
CVM_HD void map_vector_broadcast(const MapParams& p, const Views& v, int32_t* out, I first) {
  int64_t coords[kMaxDims] = {};
  I rem = first;
  for (int32_t j = p.out.n - 1; j >= 0; --j) {
    coords[j] = rem % static_cast<I>(p.out.d[j]);
    rem /= static_cast<I>(p.out.d[j]);
  }
  const auto read = [&](int32_t k, int32_t* x) {
    const I at = map_offset(p.in[k], p.out.n, first, coords);
    const I step = p.in[k].identity != 0 ? I{1} : static_cast<I>(p.in[k].mult[p.out.n - 1]);
    if (step == 1 && at % 4 == 0) {
      load4(v.in[k], at, x);
    } else {
      CVM_UNROLL
      for (int32_t e = 0; e < 4; ++e) x[e] = load(v.in[k], at + e * step);
    }
  };
  int32_t a[4] = {}, b[4] = {}, c[4] = {}, y[4];
  read(0, a);
  if (p.arity > 1) read(1, b);
  if (p.arity > 2) read(2, c);
  CVM_UNROLL
  for (int32_t e = 0; e < 4; ++e) y[e] = map_value(p, a[e], b[e], c[e]);
  store4(out, first, y);
}

// The vector kernel's item j: output elements [4j, 4j + 4), a full vector with one load per
// input and one store (or per input's broadcast, above), or the scalar tail past the last full
// vector (and any broadcast whose innermost axis does not hold whole vectors).
CVM_HD void map_vector_item(const MapParams& p, const Views& v, int32_t* out, int64_t j) {
  const int64_t first = 4 * j, last = min64(first + 4, p.count);
  if (last - first == 4 && all_identity(p)) {
    int32_t a[4] = {}, b[4] = {}, c[4] = {}, y[4];
    load4(v.in[0], first, a);
    if (p.arity > 1) load4(v.in[1], first, b);
    if (p.arity > 2) load4(v.in[2], first, c);
    CVM_UNROLL
    for (int32_t e = 0; e < 4; ++e) y[e] = map_value(p, a[e], b[e], c[e]);
    store4(out, first, y);
    return;
  }
  if (last - first == 4 && p.out.n > 0 && p.out.d[p.out.n - 1] % 4 == 0) {
    if (p.narrow != 0) {
      map_vector_broadcast<int32_t>(p, v, out, static_cast<int32_t>(first));
    } else {
      map_vector_broadcast<int64_t>(p, v, out, first);
    }
    return;
  }
  const bool drop = planted_fault(p.planted) == kFaultVectorTail && last - first < 4;
  for (int64_t e = first; e < last - (drop ? 1 : 0); ++e) out[e] = map_element(p, v, e);
}

}  // namespace cvm::cuda
