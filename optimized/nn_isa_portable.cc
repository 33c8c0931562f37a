// The portable path of conv2d and dense (baseline x86-64 or any other target): the direct
// kernels of nn_generic.h, vectorized by the compiler for the baseline only. Also the table
// lookup that hands out each ISA's kernels.
#include "optimized/nn_gemm.h"
#include "optimized/nn_generic.h"

namespace cvm::opt::nn {
namespace {

template <typename T>
void direct(const DirectConv& d, int64_t first, int64_t last) {
  direct_conv_generic<T>(d, first, last);
}

template <typename T>
void dense_rows(const T* x, const int32_t* w, const int32_t* bias, int32_t* y, int64_t depth,
                int64_t units, int64_t first, int64_t last) {
  direct_dense_generic<T>(x, w, bias, y, depth, units, first, last);
}

}  // namespace

const NnIsa& portable_isa() {
  static const NnIsa isa = [] {
    NnIsa i;
    i.isa = Isa::kPortable;
    i.gemm = false;
    i.direct_i8 = direct<int8_t>;
    i.direct_i32 = direct<int32_t>;
    i.dense_i8 = dense_rows<int8_t>;
    i.dense_i32 = dense_rows<int32_t>;
    return i;
  }();
  return isa;
}

const NnIsa& nn_isa(Isa isa) {
  switch (isa) {
    case Isa::kAvx512Vnni: return vnni_isa();
    case Isa::kAvx2: return avx2_isa();
    case Isa::kPortable: break;
  }
  return portable_isa();
}

}  // namespace cvm::opt::nn
