// The parts of the nn ISA files (nn_isa_*.cc) that differ only in their vector instructions: the
// register-tiled GEMM micro-kernel of conv2d and dense, its row and vector-count dispatch, the
// output store, the wrappers of the generic kernels, and the NnIsa table's common fields. Each
// ISA file keeps its traits (below) and its own hand-vectorized kernels.
//
// Included by one ISA file per translation unit, after it defines CVM_NN_TARGET (the target
// attribute of its vector code) and CVM_NN_FLAT (that plus flatten, for the generic wrappers).
// The attribute must be on every function here that touches the ISA's vectors: an always_inline
// body without it cannot inline the intrinsics (GCC 12 and clang 14 refuse; fused_pass.h's have
// none), and an attribute cannot be a template parameter. Everything is in an unnamed namespace,
// as in nn_generic.h, so each translation unit compiles its own copy for its own target.
//
// Traits V of an ISA (every function CVM_NN_TARGET and always_inline):
//   Vec, kLanes (int32 lanes), BElem (a packed B element: int16_t pairs or uint8_t quads),
//   kGroup (k values per lane), kShift (activations stored + kShift as u8; 0: as they are), kConvMr, kConvNv, kDenseMr,
//   kDenseNv; zero(), set1(x), add(a, b), loadu(p) (a whole vector), load_low(p, n) (lanes
//   [0, n) of p, the others 0), store(p, v), store_low(p, n, v) (lanes [0, n) only),
//   rotate(v, s) (lane j takes lane (j + s) mod kLanes), and mac<kConv>(acc, b, a): acc plus,
//   per lane, the kGroup products of B's and A's k values (kConv: B is the data, A the weights;
//   otherwise the reverse: VNNI's u8 x s8 product needs the shifted data as its first operand).
//   Optionally k_steps(kt): the k-steps a tile runs of kt (a planted fault's hook; else kt).
#pragma once

#if !defined(CVM_NN_TARGET) || !defined(CVM_NN_FLAT)
#error "define CVM_NN_TARGET and CVM_NN_FLAT before including optimized/nn_tile.h"
#endif

#include <cstdint>
#include <type_traits>

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"

namespace cvm::opt::nn {
namespace {

template <typename V>
constexpr int64_t k_steps(int64_t kt) {
  if constexpr (requires { V::k_steps(kt); }) {
    return V::k_steps(kt);
  } else {
    return kt;
  }
}

// One output vector to its (one or two) places: see VecStore.
template <typename V>
CVM_NN_TARGET inline void store_vec(int32_t* row, const VecStore& s, typename V::Vec v) {
  if (s.n1 == V::kLanes) {
    V::store(row + s.off1, v);
  } else if (s.n1 > 0) {
    V::store_low(row + s.off1, s.n1, v);
  }
  if (s.n2 > 0) V::store_low(row + s.off2, s.n2, V::rotate(v, s.s2));
}

// kConv: A = weights (broadcast), B = implicit data at b + b_off[k].
// Otherwise (dense): A = data (broadcast), B = packed weights at b + k * b_step.
template <typename V, int MR, int NV, bool kConv>
CVM_NN_TARGET void tile(const Tile& t) {
  using Vec = typename V::Vec;
  using B = typename V::BElem;
  constexpr int kBVec = static_cast<int>(sizeof(Vec) / sizeof(B));  // B elements per vector
  Vec acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      Vec a = V::zero();
      if (t.accumulate && t.vec[v].n1 > 0) {
        a = V::load_low(t.c + r * t.ldc + t.vec[v].off1, t.vec[v].n1);
      }
      if (t.row_init != nullptr) a = V::add(a, V::set1(t.row_init[r]));
      if (t.col_init != nullptr) a = V::add(a, V::loadu(t.col_init + V::kLanes * v));
      acc[r][v] = a;
    }
  }
  const int32_t* ap = static_cast<const int32_t*>(t.a);
  const B* bp = static_cast<const B*>(t.b);
  const int64_t kt = k_steps<V>(t.kt);
  for (int64_t k = 0; k < kt; ++k) {
    const B* bk = kConv ? bp + t.b_off[k] : bp + k * t.b_step;
    Vec bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = V::loadu(bk + kBVec * v);
    const int32_t* ak = ap + k * MR;
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const Vec av = V::set1(ak[r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = V::template mac<kConv>(acc[r][v], bv[v], av);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) store_vec<V>(t.c + r * t.ldc, t.vec[v], acc[r][v]);
  }
}

// t.rows (1..kMr) as a template argument; more rows than kMr are a driver bug.
template <typename V, int kMr, int NV, bool kConv>
CVM_NN_TARGET void tile_rows(const Tile& t) {
  static_assert(kMr >= 1 && kMr <= 8);
  switch (t.rows) {
    case 1: return tile<V, 1, NV, kConv>(t);
    case 2:
      if constexpr (kMr >= 2) return tile<V, 2, NV, kConv>(t);
      break;
    case 3:
      if constexpr (kMr >= 3) return tile<V, 3, NV, kConv>(t);
      break;
    case 4:
      if constexpr (kMr >= 4) return tile<V, 4, NV, kConv>(t);
      break;
    case 5:
      if constexpr (kMr >= 5) return tile<V, 5, NV, kConv>(t);
      break;
    case 6:
      if constexpr (kMr >= 6) return tile<V, 6, NV, kConv>(t);
      break;
    case 7:
      if constexpr (kMr >= 7) return tile<V, 7, NV, kConv>(t);
      break;
    case 8:
      if constexpr (kMr >= 8) return tile<V, 8, NV, kConv>(t);
      break;
    default: break;
  }
  __builtin_trap();  // the drivers never ask for more rows than the ISA's mr
}

// conv2d always computes the ISA's conv_nv vectors (t.vec says what each of them stores).
template <typename V>
CVM_NN_TARGET void conv_tile(const Tile& t) {
  tile_rows<V, V::kConvMr, V::kConvNv, true>(t);
}

// dense: t.nv (1..kDenseNv) vectors, fewer for a narrow last column block.
template <typename V>
CVM_NN_TARGET void dense_tile(const Tile& t) {
  static_assert(V::kDenseNv >= 1 && V::kDenseNv <= 4);
  switch (t.nv) {
    case 1: return tile_rows<V, V::kDenseMr, 1, false>(t);
    case 2:
      if constexpr (V::kDenseNv > 2) return tile_rows<V, V::kDenseMr, 2, false>(t);
      break;
    case 3:
      if constexpr (V::kDenseNv > 3) return tile_rows<V, V::kDenseMr, 3, false>(t);
      break;
    default: break;
  }
  tile_rows<V, V::kDenseMr, V::kDenseNv, false>(t);
}

// The generic kernels (nn_generic.h) compiled for this ISA.
template <typename T>
CVM_NN_FLAT void direct_flat(const DirectConv& d, int64_t first, int64_t last) {
  direct_conv_generic<T>(d, first, last);
}

template <typename T>
CVM_NN_FLAT void dense_rows(const T* x, const int32_t* w, const int32_t* bias, int32_t* y,
                            int64_t depth, int64_t units, int64_t first, int64_t last) {
  direct_dense_generic<T>(x, w, bias, y, depth, units, first, last);
}

// The table fields every ISA fills the same way: the direct dense rows, and for a GEMM ISA
// (V not void) the tile shapes and micro-kernels. The ISA file adds packing and conv2d.
template <typename V>
NnIsa base_table(Isa isa) {
  NnIsa i;
  i.isa = isa;
  i.dense_i8 = dense_rows<int8_t>;
  i.dense_i32 = dense_rows<int32_t>;
  if constexpr (!std::is_void_v<V>) {
    i.gemm = true;
    i.group = V::kGroup;
    i.lanes = V::kLanes;
    i.elem_bytes = static_cast<int>(sizeof(typename V::BElem));
    i.shift = V::kShift;
    i.conv_mr = V::kConvMr;
    i.conv_nv = V::kConvNv;
    i.dense_mr = V::kDenseMr;
    i.dense_nv = V::kDenseNv;
    i.conv_tile = conv_tile<V>;
    i.dense_tile = dense_tile<V>;
  }
  return i;
}

}  // namespace
}  // namespace cvm::opt::nn
