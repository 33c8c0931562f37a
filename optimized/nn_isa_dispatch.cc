// The dispatch of conv2d and dense (nn_isa_dispatch.h): one case per ISA of optimized/isa_list.h,
// generated from the list, so that an ISA's table is found by its name in the list alone.
#include "optimized/nn_isa_dispatch.h"

#include <algorithm>
#include <atomic>

#include "optimized/paths.h"
#include "optimized/planted_faults.h"

namespace cvm::opt::nn {
namespace {

std::atomic<int> g_planted{kNoPlantedFault};

// `isa`'s table, native or its twin, with `fault` planted. Each processor's build holds its own
// ISA files only (isa_list.h): another processor's ISA falls through to the portable kernels, and
// its table functions are named in discarded branches only, so they need no definition here.
const NnIsa& table_of(Isa isa, [[maybe_unused]] bool emulated, int fault) {
  switch (isa) {
#define CVM_NN_ISA_CASE(constant, name, processor, twin, vectors, stem) \
  case Isa::constant:                                                   \
    if constexpr (isa_built(Isa::constant)) {                           \
      if constexpr (isa_has_twin(Isa::constant)) {                      \
        if (emulated) return stem##_isa_simde(fault);                   \
      }                                                                 \
      return stem##_isa(fault);                                         \
    }                                                                   \
    break;
    CVMCHECK_ISAS(CVM_NN_ISA_CASE)
#undef CVM_NN_ISA_CASE
  }
  return portable_isa(fault);
}

}  // namespace

const NnIsa& nn_isa(Isa isa, bool emulated) { return table_of(isa, emulated, kNoPlantedFault); }

const NnIsa& active_nn_isa() {
  return table_of(active_isa(), active_isa_emulated(), planted_fault());
}

const NnIsa& active_nn_isa(int p_data, int p_weight) {
  const NnIsa& isa = active_nn_isa();
  if constexpr (isa_built(Isa::kAvx2)) {
    if (isa.isa != Isa::kAvx2) return isa;
    // The planted fault: 8-bit weights taken for 7-bit ones, so vpmaddubsw runs where it
    // saturates.
    if (planted_fault() == kAvx2FaultU8For8Bit) p_weight = std::min(p_weight, path::kU8Precision);
    if (p_data <= path::kU8Precision) return avx2_u8_isa(64);
    if (p_weight <= path::kU8Precision) return avx2_u8_isa(128);
  }
  return isa;
}

int planted_fault() { return g_planted.load(std::memory_order_relaxed); }

void set_planted_fault(int fault) { g_planted.store(fault, std::memory_order_relaxed); }

}  // namespace cvm::opt::nn
