// The portable path of conv2d and dense (baseline x86-64 or any other target): the direct
// kernels of nn_generic.h, vectorized by the compiler for the baseline only. Also the table
// lookup that hands out each ISA's kernels.
// No target attribute (the baseline) and no GEMM: nn_tile.h's generic wrappers only.
#define CVM_NN_TARGET
#define CVM_NN_FLAT

#include "optimized/nn_gemm.h"
#include "optimized/nn_tile.h"

namespace cvm::opt::nn {

const NnIsa& portable_isa() {
  static const NnIsa isa = [] {
    NnIsa i = base_table<void>(Isa::kPortable);
    i.direct_i8 = direct_flat<int8_t>;
    i.direct_i32 = direct_flat<int32_t>;
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
