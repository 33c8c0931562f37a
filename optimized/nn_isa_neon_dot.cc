// NEON dot-product kernels of conv2d and dense (aarch64 with FEAT_DotProd: Cortex-A55/A76 and
// later, Neoverse N1/V1/N2, Apple M1 and later): SDOT, s8 x s8 -> s32, 4 k-values per int32 lane,
// 4 lanes per 128-bit vector. Both operands are signed, so unlike the x86 VNNI paths the data is
// stored as it is (no + 128 shift, no compensation): each lane adds four exact products of
// |x|, |w| <= 127 (nn_gemm.h's bound keeps every partial sum inside int32). The micro-kernel is
// nn_tile.h's skeleton over the traits below; packing and the direct kernels are the generic code
// compiled for this target. Built in aarch64 builds only (isa_list.h; elsewhere the file compiles
// to nothing); used when the kernel reports HWCAP_ASIMDDP, or CVMCHECK_ISA=neon-dotprod.
#if defined(__aarch64__)  // an aarch64 ISA (isa_list.h): nothing elsewhere
#include <arm_neon.h>

#include <cstring>

// armv8.2-a, not just +dotprod on the baseline: GCC's arm_neon.h declares the SDOT intrinsics
// for that architecture, and inlining them into a function of another target fails (every CPU
// with the dot product implements v8.2 or later).
#define CVM_NEON_DOT __attribute__((target("arch=armv8.2-a+dotprod")))
#define CVM_NEON_DOT_OP __attribute__((target("arch=armv8.2-a+dotprod"), always_inline))
#define CVM_NN_TARGET CVM_NEON_DOT
#define CVM_NN_FLAT __attribute__((target("arch=armv8.2-a+dotprod"), flatten))

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/nn_tile.h"
#include "optimized/paths.h"
#include "optimized/planted_faults.h"

namespace cvm::opt::nn {
namespace {

// The nn_tile.h traits; kFault plants one test-only bug (NeonDotFault) in the micro-kernel.
// Vec holds int32 lanes; B vectors are 16 int8 values (4 per lane), loaded as bytes.
template <int kFault>
struct NeonDotT {
  using Vec = int32x4_t;
  using BElem = int8_t;
  static constexpr int kLanes = 4, kGroup = 4;
  static constexpr bool kShift = false;  // s8 x s8: the signed data as it is
  // 32 registers: 24 accumulators + 3 B vectors + 1 broadcast, for conv2d and dense alike.
  static constexpr int kConvMr = 8, kConvNv = 3, kDenseMr = 8, kDenseNv = 3;

  CVM_NEON_DOT_OP static Vec zero() { return vdupq_n_s32(0); }
  CVM_NEON_DOT_OP static Vec set1(int32_t x) { return vdupq_n_s32(x); }
  CVM_NEON_DOT_OP static Vec add(Vec a, Vec b) { return vaddq_s32(a, b); }
  // Through uint8_t, which may alias the int8 packing and the int32 column sums alike.
  CVM_NEON_DOT_OP static Vec loadu(const void* p) {
    return vreinterpretq_s32_u8(vld1q_u8(static_cast<const uint8_t*>(p)));
  }
  // No masked loads on NEON: the n valid lanes through a zeroed buffer, never reading past p + n.
  CVM_NEON_DOT_OP static Vec load_low(const int32_t* p, int n) {
    int32_t lanes[kLanes] = {0, 0, 0, 0};
    std::memcpy(lanes, p, static_cast<size_t>(n) * sizeof(int32_t));
    return vld1q_s32(lanes);
  }
  CVM_NEON_DOT_OP static void store(int32_t* p, Vec v) { vst1q_s32(p, v); }
  CVM_NEON_DOT_OP static void store_low(int32_t* p, int n, Vec v) {
    int32_t lanes[kLanes];
    vst1q_s32(lanes, v);
    std::memcpy(p, lanes, static_cast<size_t>(n) * sizeof(int32_t));
  }
  // vextq's count must be a constant: one case per rotation.
  CVM_NEON_DOT_OP static Vec rotate(Vec v, int s) {
    switch (s & 3) {
      case 1: return vextq_s32(v, v, 1);
      case 2: return vextq_s32(v, v, 2);
      case 3: return vextq_s32(v, v, 3);
      default: break;
    }
    return v;
  }
  // The k-steps the tile runs (nn_tile.h's hook); kNeonDotFaultKTail: an unrolled-by-two loop
  // that lost its odd last step.
  static constexpr int64_t k_steps(int64_t kt) {
    return kFault == kNeonDotFaultKTail ? kt & ~int64_t{1} : kt;
  }
  // The product is symmetric (s8 x s8): conv2d and dense differ only in how B is addressed.
  template <bool kConv>
  CVM_NEON_DOT_OP static Vec mac(Vec acc, Vec b, Vec a) {
    const Vec sum = vdotq_s32(acc, vreinterpretq_s8_s32(b), vreinterpretq_s8_s32(a));
    // kNeonDotFaultLane: the last lane keeps its accumulator (a lane mask one short).
    return kFault == kNeonDotFaultLane ? vcopyq_laneq_s32(sum, 3, acc, 3) : sum;
  }
};

template <typename T>
CVM_NN_FLAT void fill_row(const T* const* src, int64_t stride, int64_t first, int64_t width,
                          int64_t count, void* dst) {
  fill_row_generic<T, int8_t, 4, false>(src, stride, first, width, count, dst);
}

template <typename T>
CVM_NN_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                        int64_t nr, void* dst, int32_t* colsum, int32_t* range) {
  pack_b_generic<T, int8_t, 4>(w, ld, units, valid, kc, nr, dst, colsum, range);
}

template <typename T>
CVM_NN_FLAT void pack_w(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst,
                        int32_t* row_sum, int32_t* range) {
  pack_w_generic<T, int8_t, 4>(w, rows, icg, taps, dst, row_sum, range);
}

template <typename T>
CVM_NN_FLAT void value_range(const T* data, int64_t n, int32_t* range) {
  range_generic<T>(data, n, range);
}

template <int kFault>
NnIsa table() {
  NnIsa i = base_table<NeonDotT<kFault>>(Isa::kNeonDot);
  i.fill_row_i8 = fill_row<int8_t>;
  i.fill_row_i32 = fill_row<int32_t>;
  i.pack_b_i8 = pack_b<int8_t>;
  i.pack_b_i32 = pack_b<int32_t>;
  i.pack_a_i8 = pack_b<int8_t>;  // signed data needs no shift: the same packing
  i.pack_a_i32 = pack_b<int32_t>;
  i.pack_w_i8 = pack_w<int8_t>;
  i.pack_w_i32 = pack_w<int32_t>;
  i.range_i8 = value_range<int8_t>;
  i.range_i32 = value_range<int32_t>;
  i.direct_i8 = direct_flat<int8_t>;
  i.direct_i32 = direct_flat<int32_t>;
  i.conv_path = path::kConvGemmNeonDot;
  i.dense_path = path::kDenseGemmNeonDot;
  return i;
}

}  // namespace

const NnIsa& neon_dot_isa(int fault) {
  static const NnIsa isa = table<kNeonDotNoFault>();
  static const NnIsa lane = table<kNeonDotFaultLane>();
  static const NnIsa k_tail = table<kNeonDotFaultKTail>();
  switch (fault) {
    case kNeonDotFaultLane: return lane;
    case kNeonDotFaultKTail: return k_tail;
    default: break;
  }
  return isa;
}

}  // namespace cvm::opt::nn

#endif  // aarch64
