// The integer GEMM core of the optimized conv2d and dense: register-tiled micro-kernels over
// packed 8-bit operands (AVX-512 VNNI, AVX-VNNI, AVX2, NEON), chosen per call from the active
// ISA (optimized/nn_isa_dispatch.h), plus the direct kernels of the portable path.
//
// Exactness (why int32 accumulation is exact here). conv2d and dense require p0, p1 <= 8, so
// |x|, |w| <= alpha(8) = 127, and an output precision P <= 32. Without a bias
// P = p0 + p1 + bitlen(T) for T terms, and every term is at most alpha(p0) * alpha(p1) <
// 2^(p0-1) * 2^(p1-1) while T < 2^bitlen(T), so the sum of ANY subset of the terms (every partial
// sum, in whatever order, tile or thread) is below 2^(P-2) <= 2^30 in magnitude. With a bias,
// P = max(P0, p2) + 1 <= 32 gives P0 <= 31 (terms below 2^29) and p2 <= 31 (|bias| < 2^30), so
// bias plus any partial sum stays below 2^30 + 2^29 < 2^31. Hence the plain signed
// accumulations (AVX2's vpmaddwd of int16 pair sums, the portable and direct kernels) never
// overflow int32 and need no 64-bit bias step.
// The VNNI paths (AVX-512 VNNI and AVX-VNNI) multiply u8 x s8 (vpdpbusd), so activations are
// stored shifted, x + 128 in [1, 255], and the kernel accumulates sum((x + 128) * w) = sum(x * w)
// + 128 * sum(w); the accumulator is initialised with bias - 128 * sum(w) to cancel the shift.
// These intermediate values can exceed int32 (e.g. p0 = 2 with 2^21 terms), but vpdpbusd (the
// non-saturating form) and every other step here add and subtract modulo 2^32 (SIMD lanes, or
// uint32 in scalar code), so the final value is exact modulo 2^32; being the true result, which
// fits int32 (above), it is exact.
// The AVX2 vpmaddubsw tables (nn_isa_avx2.cc) also store the data as u8, x + s, and add
// pairs of u8 x s8 products with int16 saturation, then the pairs into int32 (vpmaddwd by ones).
// A pair cannot saturate when one side has precision <= 7: data |x| <= 63 stored x + 64 in
// [1, 127] with |w| <= 127 gives 2 * 127 * 127 = 32,258; |w| <= 63 with x + 128 in [1, 255]
// gives 2 * 255 * 63 = 32,130; both <= 32,767. The dispatch (active_nn_isa(p_data, p_weight))
// takes them only then; with garbage values (checked after packing) a pair saturates, which is
// defined, and the call raises the value check's error anyway. The AVX2 table of the other
// calls (both sides of precision 8, the same file) stores the data as it is (s8) and multiplies
// one side's absolute value (u8) by the other side times the first's sign (s8, vpsignb): a pair
// is at most 2 * 127 * 127 = 32,258 in magnitude. With garbage (a value of -128) a product may
// be wrong, never undefined, and the value check raises its error. No other instruction
// saturates.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "cvmcheck/tensor.h"
#include "optimized/cpu_features.h"

namespace cvm::opt::nn {

inline constexpr int kMaxNV = 4;  // vectors per tile row

// Where one output vector of a tile goes, relative to the tile row's base: lanes [0, n1) at
// row + off1, lanes [s2, s2 + n2) at row + off2 (the next image row, for implicit conv2d).
struct VecStore {
  int64_t off1 = 0;
  int64_t off2 = 0;
  int32_t n1 = 0;
  int32_t s2 = 0;
  int32_t n2 = 0;
};

// One micro-kernel call: rows x (nv * lanes) int32 outputs over kt k-steps.
struct Tile {
  const void* a = nullptr;         // packed A panel: [kt][rows][G] (broadcast operand)
  const void* b = nullptr;         // B at this column block (vector operand)
  const int64_t* b_off = nullptr;  // per k-step B offset in elements (implicit conv2d), or
  int64_t b_step = 0;              // elements per k-step (packed B, dense) when b_off is null
  int64_t kt = 0;
  int rows = 0;          // 1..mr
  int nv = 0;            // 1..nv of the ISA (dense); conv uses the ISA's conv_nv
  int32_t* c = nullptr;  // output row 0
  int64_t ldc = 0;       // elements between output rows
  VecStore vec[kMaxNV];
  const int32_t* row_init = nullptr;  // per row (conv2d: bias - compensation), or null
  const int32_t* col_init = nullptr;  // per lane of the tile (dense), or null
  bool accumulate = false;            // start from C (single-segment stores only)
};

using TileFn = void (*)(const Tile&);

// Fills one row of an implicit-conv2d plane: dst[j*G + s] = conv(src[s][j*stride + first]) for
// j < count, the pad value where src[s] is null or the column is outside [0, width).
template <typename T>
using FillRowFn = void (*)(const T* const* src, int64_t stride, int64_t first, int64_t width,
                           int64_t count, void* dst);

// Packs dense weights: dst [kc/G][nr][G] from rows w + u*ld (u < units, else 0), columns
// [0, kc) (k >= valid: 0); adds each row's sum to colsum[u] (modulo 2^32) and widens the running
// [range[0], range[1]] to the values read: the weights' value check is fused into this pass, so
// dense reads W from memory once (the caller raises the LogicError after packing).
template <typename T>
using PackBFn = void (*)(const T* w, int64_t ld, int64_t units, int64_t valid, int64_t kc,
                         int64_t nr, void* dst, int32_t* colsum, int32_t* range);

// Packs the weights of `rows` output channels (row r at w + r * icg * taps, taps = KH * KW) into
// an A panel [ceil(icg / G) * taps][rows][G], zeros for the padding channels; row_sum[r] = the
// row's sum (modulo 2^32); widens [range[0], range[1]] to the values (the fused value check).
template <typename T>
using PackWFn = void (*)(const T* w, int64_t rows, int64_t icg, int64_t taps, void* dst,
                         int32_t* row_sum, int32_t* range);

// Widens [range[0], range[1]] to the values data[0, n) (a vectorized value check).
template <typename T>
using RangeFn = void (*)(const T* data, int64_t n, int32_t* range);

// The direct conv2d (portable path, depthwise, and layouts the implicit GEMM cannot hold).
struct DirectConv {
  const void* x = nullptr;        // int8 or int32 data (N, C, H, W)
  const int32_t* w = nullptr;     // weights widened to int32 (OC, ICG, KH, KW)
  const int32_t* bias = nullptr;  // or null
  int32_t* y = nullptr;
  int64_t batch, in_channels, height, width, channels, groups, in_per_group, out_per_group;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t out_h, out_w;
};

// Computes the output planes of units [first, last), unit = n * groups + g (all OPG output
// channels of group g of image n).
template <typename T>
using DirectConvFn = void (*)(const DirectConv& conv, int64_t first, int64_t last);

// Portable dense rows [first, last): y[m][u] = bias[u] + sum_k x[m][k] * w[u][k].
template <typename T>
using DirectDenseFn = void (*)(const T* x, const int32_t* w, const int32_t* bias, int32_t* y,
                               int64_t depth, int64_t units, int64_t first, int64_t last);

// dense of few rows (both operands of type T): y[m][u] = bias[u] + sum_k x[m][k] * w[u][k] for
// rows m < rows and units u in [first, last), W streamed from memory once, each row converted
// and multiplied in the same pass; widens [range[0], range[1]] to W's values read (the fused
// value check). X's values are checked before the call; W's are not yet (garbage in, no UB).
template <typename T>
using GemvFn = void (*)(const T* x, const T* w, const int32_t* bias, int32_t* y, int64_t rows,
                        int64_t depth, int64_t units, int64_t first, int64_t last,
                        int32_t* range);

struct NnIsa {
  Isa isa = Isa::kPortable;
  bool gemm = false;   // false: the portable direct kernels only
  int group = 1;       // G: k values per lane and step
  int lanes = 1;       // int32 lanes per vector
  int elem_bytes = 1;  // packed element size (1: u8/s8, 2: int16)
  int shift = 0;       // activations stored + shift as u8 (0: as they are): minus shift * sum(w)
  int conv_mr = 1, conv_nv = 1, dense_mr = 1, dense_nv = 1;
  TileFn conv_tile = nullptr;   // A = weights (signed), B = implicit shifted data
  TileFn dense_tile = nullptr;  // A = data (shifted), B = packed weights (signed)
  FillRowFn<int8_t> fill_row_i8 = nullptr;
  FillRowFn<int32_t> fill_row_i32 = nullptr;
  PackBFn<int8_t> pack_b_i8 = nullptr;  // dense weights (signed)
  PackBFn<int32_t> pack_b_i32 = nullptr;
  PackBFn<int8_t> pack_a_i8 = nullptr;  // dense data: the same layout, shifted on VNNI
  PackBFn<int32_t> pack_a_i32 = nullptr;
  PackWFn<int8_t> pack_w_i8 = nullptr;  // conv2d weights
  PackWFn<int32_t> pack_w_i32 = nullptr;
  RangeFn<int8_t> range_i8 = nullptr;
  RangeFn<int32_t> range_i32 = nullptr;
  DirectConvFn<int8_t> direct_i8 = nullptr;
  DirectConvFn<int32_t> direct_i32 = nullptr;
  DirectDenseFn<int8_t> dense_i8 = nullptr;
  DirectDenseFn<int32_t> dense_i32 = nullptr;
  GemvFn<int8_t> gemv_i8 = nullptr;  // null: dense of few rows takes the packed GEMM too
  GemvFn<int32_t> gemv_i32 = nullptr;
  // The path marks of its GEMM (optimized/paths.h: kConvGemm*, kDenseGemm*); -1 without one.
  int conv_path = -1;
  int dense_path = -1;
};

// Each ISA's kernel table, for the dispatch (nn_isa_dispatch.h), in its kernel file
// optimized/nn_isa_<stem>.cc (isa_list.h), and its SIMDe twin's in nn_isa_<stem>_simde.cc:
// with the test-only fault `fault` planted (planted_faults.h), or faultless for
// kNoPlantedFault and any fault that ISA does not plant. Declared for every ISA of the list, the
// twin too; defined only in the builds that hold them (isa_built, isa_has_twin), where the
// dispatch alone names them (the others only in its discarded `if constexpr` branches).
#define CVM_NN_ISA_TABLE(constant, name, processor, twin, vectors, stem) \
  const NnIsa& stem##_isa(int fault);                                   \
  const NnIsa& stem##_isa_simde(int fault);
CVMCHECK_ISAS(CVM_NN_ISA_TABLE)
#undef CVM_NN_ISA_TABLE
// The AVX2 vpmaddubsw kernels storing the data as x + shift: 64 (data of precision <= 7) or
// 128 (weights of precision <= 7); x86 builds only.
const NnIsa& avx2_u8_isa(int shift);
// The AVX2 gemv (nn_gemv_avx2.cc): int16 pairs, exact at every valid precision.
void avx2_gemv_i8(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t* y, int64_t rows,
                  int64_t depth, int64_t units, int64_t first, int64_t last, int32_t* range);
void avx2_gemv_i32(const int32_t* x, const int32_t* w, const int32_t* bias, int32_t* y,
                   int64_t rows, int64_t depth, int64_t units, int64_t first, int64_t last,
                   int32_t* range);

// Wrapping int32 arithmetic (the VNNI compensation): exact modulo 2^32, never UB.
inline int32_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int32_t>(
      static_cast<uint32_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)));
}

// Uninitialised bytes aligned to 4 KiB, for the packed operands: their vector loads then have
// the same cache-line and page alignment in every run (malloc's 16-byte alignment made the
// 2-thread conv2d time vary by 25% from one process to the next with the address layout).
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t size = 0) { resize(size); }
  void resize(size_t size) {
    const size_t rounded = (size + 4095) / 4096 * 4096;
    if (rounded == capacity_) return;
    ptr_.reset(rounded == 0 ? nullptr : static_cast<uint8_t*>(std::aligned_alloc(4096, rounded)));
    if (rounded != 0 && ptr_ == nullptr) throw std::bad_alloc();
    capacity_ = rounded;
  }
  uint8_t* data() { return ptr_.get(); }
  const uint8_t* data() const { return ptr_.get(); }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> ptr_;
  size_t capacity_ = 0;
};

// A kernel's single output, moved (return {y} would copy the whole tensor).
inline std::vector<Tensor> only(Tensor&& y) {
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace cvm::opt::nn
