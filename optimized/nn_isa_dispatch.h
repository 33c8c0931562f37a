// The dispatch of conv2d and dense: the kernel table (nn_gemm.h's NnIsa) a call runs, from the
// ISA cpu_features.h chose (CPUID, CVMCHECK_ISA or a variant's cap; native or its SIMDe twin)
// and, on AVX2, the call's precisions. Each ISA's table comes from its kernel file through the
// list of optimized/isa_list.h; an ISA this binary does not hold (isa_built) gives the portable
// kernels.
#pragma once

#include "optimized/cpu_features.h"
#include "optimized/nn_gemm.h"

namespace cvm::opt::nn {

// The kernels of `isa` (optimized/nn_isa_<stem>.cc), or of its SIMDe twin
// (nn_isa_<stem>_simde.cc; an ISA without one ignores `emulated`).
const NnIsa& nn_isa(Isa isa, bool emulated = false);
// The kernels of active_isa() and active_isa_emulated(), with the planted fault if any
// (planted_faults.h: tests only).
const NnIsa& active_nn_isa();
// The same for a call of conv2d or dense whose data and weights have these precisions: on AVX2,
// the vpmaddubsw kernels of a side of precision <= 7 (nn_gemm.h), else vpsignb + vpmaddubsw.
const NnIsa& active_nn_isa(int p_data, int p_weight);

}  // namespace cvm::opt::nn
