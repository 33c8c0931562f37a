// AVX2 kernels of conv2d and dense: s8 weights, 4 k-values per int32 lane, the pairs of
// _mm256_maddubs_epi16 (u8 x s8 products summed into int16, saturating) added into int32 by
// _mm256_madd_epi16 by ones. Exact only where a pair stays within int16, so the table is chosen
// per call by the precisions (active_nn_isa(p_data, p_weight); nn_gemm.h):
// - a side has precision <= 7 (avx2_u8_isa): the data stored u8, x + 64 when it has 7 bits
//   (2 * 127 * 127 = 32,258), x + 128 when the weights have (2 * 255 * 63 = 32,130); the shift *
//   sum(w) in the initial values (the AVX-VNNI layout). 32 products per three instructions.
// - both have precision 8 (avx2_isa): the data as it is (s8); the vector operand b taken as |b|
//   (u8) and the broadcast one a as a * sign(b) (s8, vpsignb), products a * b with |a|, |b| <=
//   127 (2 * 127 * 127 = 32,258). One instruction more; in the kernel 1.09-1.22x faster than
//   the int16 pairs of _mm256_madd_epi16 it replaces (docs/performance.md).
// The micro-kernel is nn_tile.h's skeleton over the traits below; packing is the generic code
// compiled for AVX2 (conv2d's data rows and weights: nn_avx2_pack.h), the direct conv2d
// nn_depthwise.h's kernel, dense of few rows nn_gemv_avx2.cc's. Used when CPUID reports AVX2 +
// FMA but not AVX-512 VNNI, or CVMCHECK_ISA=avx2.
#if defined(__x86_64__) || defined(__i386__)  // an x86 ISA (isa_list.h): nothing elsewhere
#include <immintrin.h>

#define CVM_AVX2 __attribute__((target("avx2,fma")))
#define CVM_AVX2_OP __attribute__((target("avx2,fma"), always_inline))
#define CVM_NN_TARGET CVM_AVX2
#define CVM_NN_FLAT __attribute__((target("avx2,fma"), flatten))

#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"
#include "optimized/nn_avx2_vec.h"
#include "optimized/nn_avx2_pack.h"
#include "optimized/nn_tile.h"
#include "optimized/nn_depthwise.h"
#include "optimized/paths.h"

namespace cvm::opt::nn {
namespace {

// The nn_tile.h traits; kAdd: the data's shift (64 or 128; 0 for 8 x 8 bits). A is the
// broadcast operand, B the vector one.
template <int kAdd>
struct Avx2 : Avx2Vec {
  using BElem = uint8_t;
  static constexpr int kGroup = 4;
  static constexpr int kShift = kAdd;
  // 8 accumulators + 2 B vectors (and, for 8 x 8 bits, their absolute values) + 1 broadcast +
  // the pair sums + the ones: 15 of 16 registers at most.
  static constexpr int kConvMr = 4, kConvNv = 2, kDenseMr = 4, kDenseNv = 2;
  static_assert(kConvMr == kPackPanelRows, "full conv2d panels take pack_w_avx2's transposition");

  template <bool kConv>
  CVM_AVX2_OP static Vec mac(Vec acc, Vec b, Vec a) {
    Vec pairs;
    if constexpr (kAdd == 0) {
      // Both within [-127, 127]: the product is symmetric, so |b| times a * sign(b) for conv2d
      // (B the data) and dense (B the weights) alike; vpabsb once per B vector and k-step,
      // shared by the tile's rows.
      pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(b), _mm256_sign_epi8(a, b));
    } else {
      // vpmaddubsw's first operand is the unsigned one: the shifted data (B for conv2d, A for
      // dense), the second the signed weights.
      pairs = kConv ? _mm256_maddubs_epi16(b, a) : _mm256_maddubs_epi16(a, b);
    }
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
};

// kAdd 0: the weights (or 8-bit data) as they are (s8); else the dense data, stored x + kAdd.
template <typename T, int kAdd>
CVM_NN_FLAT void pack_b(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                        int64_t nr, void* dst, int32_t* colsum, int32_t* range) {
  pack_b_generic<T, uint8_t, 4, false, kAdd>(w, ld, units, valid, kc, nr, dst, colsum, range);
}

template <int kAdd>
NnIsa table() {
  NnIsa i = base_table<Avx2<kAdd>>(Isa::kAvx2);
  set_avx2_class_fields<kAdd>(i);
  i.pack_b_i8 = pack_b<int8_t, 0>;
  i.pack_b_i32 = pack_b<int32_t, 0>;
  i.pack_a_i8 = pack_b<int8_t, kAdd>;
  i.pack_a_i32 = pack_b<int32_t, kAdd>;
  i.gemv_i8 = avx2_gemv_i8;  // int16 pairs: exact at every precision
  i.gemv_i32 = avx2_gemv_i32;
  // Each pair instruction is its own path: vpsignb on s8, or vpmaddubsw on data + 64 or + 128.
  i.conv_path = kAdd == 64    ? path::kConvGemmAvx2U8Data
                : kAdd == 128 ? path::kConvGemmAvx2U8Weights
                              : path::kConvGemmAvx2;
  i.dense_path = kAdd == 64    ? path::kDenseGemmAvx2U8Data
                 : kAdd == 128 ? path::kDenseGemmAvx2U8Weights
                               : path::kDenseGemmAvx2;
  return i;
}

}  // namespace

// No planted faults in the tables (planted_faults.h: the AVX2 one is the dispatch's).
const NnIsa& avx2_isa(int /*fault*/) {
  static const NnIsa eight_bits = table<0>();
  return eight_bits;
}

const NnIsa& avx2_u8_isa(int shift) {
  static const NnIsa data7 = table<64>();
  static const NnIsa weights7 = table<128>();
  return shift == 64 ? data7 : weights7;
}

}  // namespace cvm::opt::nn

#endif  // x86
