// The portable path of conv2d and dense (baseline x86-64, baseline aarch64 or any other
// target): the direct kernels of nn_generic.h, vectorized by the compiler for the baseline only. Also the table
// lookup that hands out each ISA's kernels, native or emulated.
// No target attribute (the baseline) and no GEMM: nn_tile.h's generic wrappers only.
#define CVM_NN_TARGET
#define CVM_NN_FLAT

#include <algorithm>
#include <atomic>

#include "optimized/nn_gemm.h"
#include "optimized/nn_tile.h"
#include "optimized/paths.h"

namespace cvm::opt::nn {
namespace {

std::atomic<int> g_planted{kAvxVnniNoFault};

}  // namespace

const NnIsa& portable_isa() {
  static const NnIsa isa = [] {
    NnIsa i = base_table<void>(Isa::kPortable);
    i.direct_i8 = direct_flat<int8_t>;
    i.direct_i32 = direct_flat<int32_t>;
    return i;
  }();
  return isa;
}

// Each processor's build holds its own ISA files only (CMakeLists.txt): the x86 ones include
// <immintrin.h>, the NEON one <arm_neon.h>.
const NnIsa& nn_isa(Isa isa, [[maybe_unused]] bool emulated) {
  switch (isa) {
#if defined(__x86_64__) || defined(__i386__)
    case Isa::kAvx512Vnni: return emulated ? vnni_isa_simde() : vnni_isa();
    case Isa::kAvxVnni: return emulated ? avxvnni_isa_simde() : avxvnni_isa();
    case Isa::kAvx2: return avx2_isa();
#elif defined(__aarch64__)
    case Isa::kNeonDot: return neon_dot_isa();
#endif
    default: break;
  }
  return portable_isa();
}

const NnIsa& active_nn_isa() {
  const Isa isa = active_isa();
  const bool emulated = active_isa_emulated();
  [[maybe_unused]] const int fault = planted_fault();
#if defined(__x86_64__) || defined(__i386__)
  if (fault != kAvxVnniNoFault && isa == Isa::kAvxVnni) {
    return emulated ? avxvnni_isa_simde(fault) : avxvnni_isa(fault);
  }
#elif defined(__aarch64__)
  if (fault != kNeonDotNoFault && isa == Isa::kNeonDot) return neon_dot_isa(fault);
#endif
  return nn_isa(isa, emulated);
}

const NnIsa& active_nn_isa(int p_data, int p_weight) {
  const NnIsa& isa = active_nn_isa();
#if defined(__x86_64__) || defined(__i386__)
  if (isa.isa != Isa::kAvx2) return isa;
  // The planted fault: 8-bit weights taken for 7-bit ones, so vpmaddubsw runs where it saturates.
  if (planted_fault() == kAvx2FaultU8For8Bit) p_weight = std::min(p_weight, path::kU8Precision);
  if (p_data <= path::kU8Precision) return avx2_u8_isa(64);
  if (p_weight <= path::kU8Precision) return avx2_u8_isa(128);
#else
  (void)p_data, (void)p_weight;  // one pair instruction per ISA off x86
#endif
  return isa;
}

int planted_fault() { return g_planted.load(std::memory_order_relaxed); }

void set_planted_fault(int fault) { g_planted.store(fault, std::memory_order_relaxed); }

}  // namespace cvm::opt::nn
