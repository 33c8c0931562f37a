// AVX-VNNI kernels of conv2d and dense (Alder Lake and later clients, other recent x86 parts
// without AVX-512): the VEX form of vpdpbusd on 256-bit vectors, u8 x s8 -> s32, non-saturating,
// 4 k-values per int32 lane, 8 lanes. The arithmetic is the AVX-512 VNNI path's (shifted data,
// x + 128, compensated by 128 * sum(w): nn_gemm.h) at half its width; the micro-kernel is
// nn_tile.h's skeleton over the traits below (on nn_avx2_vec.h's vector operations), packing the
// generic code compiled for this target (conv2d's data rows and weights: nn_avx2_pack.h), the
// direct conv2d nn_depthwise.h's AVX2 kernel. Compiled a second time against SIMDe as its
// emulated twin (nn_isa_avxvnni_simde.cc, optimized/isa_twin.h).
#if defined(__x86_64__) || defined(__i386__)  // an x86 ISA (isa_list.h): nothing elsewhere
#include "optimized/isa_twin.h"  // first: the twin's SIMDe must precede any <immintrin.h>

#define CVM_AVXVNNI CVM_ISA_TARGET("avx2,fma,avxvnni")
#define CVM_AVXVNNI_OP CVM_AVXVNNI CVM_ISA_INLINE
#define CVM_NN_TARGET CVM_AVXVNNI
#define CVM_NN_FLAT CVM_AVXVNNI __attribute__((flatten))

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/nn_avx2_vec.h"
#include "optimized/nn_avx2_pack.h"
#include "optimized/nn_tile.h"
#include "optimized/nn_depthwise.h"
#include "optimized/paths.h"
#include "optimized/planted_faults.h"

namespace cvm::opt::nn {
namespace {

// The nn_tile.h traits; kFault plants one test-only bug (AvxVnniFault) in the micro-kernel.
// vpdpbusd multiplies u8 x s8: its first operand must be the shifted data (B for conv2d, A for
// dense), its second the signed weights.
template <int kFault>
struct AvxVnniT : Avx2Vec {
  using BElem = uint8_t;
  static constexpr int kGroup = 4;
  static constexpr int kShift = 128;
  // 16 registers: 12 accumulators + 3 B vectors + 1 broadcast, for conv2d and dense alike.
  static constexpr int kConvMr = 4, kConvNv = 3, kDenseMr = 4, kDenseNv = 3;
  static_assert(kConvMr == kPackPanelRows, "full conv2d panels take pack_w_avx2's transposition");

  // The k-steps the tile runs (nn_tile.h's hook); kFaultKTail: an unrolled-by-two loop that
  // lost its odd last step.
  static constexpr int64_t k_steps(int64_t kt) {
    return kFault == kAvxVnniFaultKTail ? kt & ~int64_t{1} : kt;
  }
  template <bool kConv>
  CVM_AVXVNNI_OP static Vec mac(Vec acc, Vec b, Vec a) {
    // kFaultPairOrder: the weights taken as the unsigned operand and the data as the signed.
    const bool data_first = kConv != (kFault == kAvxVnniFaultPairOrder);
    const Vec sum = data_first ? _mm256_dpbusd_avx_epi32(acc, b, a)
                               : _mm256_dpbusd_avx_epi32(acc, a, b);
    // kFaultLane: the last lane keeps its accumulator (a lane mask one short).
    return kFault == kAvxVnniFaultLane ? _mm256_blend_epi32(sum, acc, 0x80) : sum;
  }
};

template <typename T, bool kFlip>
CVM_NN_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                        int64_t nr, void* dst, int32_t* colsum, int32_t* range) {
  pack_b_generic<T, uint8_t, 4, kFlip>(w, ld, units, valid, kc, nr, dst, colsum, range);
}

template <int kFault>
NnIsa table() {
  NnIsa i = base_table<AvxVnniT<kFault>>(Isa::kAvxVnni);
  set_avx2_class_fields<128>(i);  // the data stored x + 128
  i.pack_b_i8 = pack_b<int8_t, false>;
  i.pack_b_i32 = pack_b<int32_t, false>;
  i.pack_a_i8 = pack_b<int8_t, true>;  // the dense data, stored x + 128
  i.pack_a_i32 = pack_b<int32_t, true>;
  i.conv_path = path::kConvGemmAvxVnni;
  i.dense_path = path::kDenseGemmAvxVnni;
  return i;
}

}  // namespace

const NnIsa& CVM_ISA_NAME(avxvnni_isa)(int fault) {
  static const NnIsa isa = table<kAvxVnniNoFault>();
  static const NnIsa lane = table<kAvxVnniFaultLane>();
  static const NnIsa k_tail = table<kAvxVnniFaultKTail>();
  static const NnIsa pair_order = table<kAvxVnniFaultPairOrder>();
  switch (fault) {
    case kAvxVnniFaultLane: return lane;
    case kAvxVnniFaultKTail: return k_tail;
    case kAvxVnniFaultPairOrder: return pair_order;
    default: break;
  }
  return isa;
}

}  // namespace cvm::opt::nn

#endif  // x86
