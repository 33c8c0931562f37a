// Run-time choice of the instruction set for the nn kernels (conv2d, dense) and the fused
// elementwise passes, among the ISAs of optimized/isa_list.h. The binary is built for the
// baseline of its processor (x86-64 or aarch64); each ISA's kernels (those of this build's
// processor) are compiled per function with target attributes and chosen here from CPUID or, on
// ARM, the kernel's hardware capabilities (getauxval). CVMCHECK_ISA=<name> (the list's names:
// portable, avx2, avxvnni, avx512vnni, neon-dotprod) caps the choice (tests force every path that
// the machine supports); an unknown value is ignored.
//
// An ISA with a twin (the list's kSimdeTwin) has its kernels compiled a second time against
// SIMDe (docs/paths.md, "Emulated twins"): the same source without target attributes, which runs
// on any x86-64 CPU. A cap may ask for that twin (set_isa_cap(isa, true), or
// CVMCHECK_ISA=avx512vnni~simde): the CPU then need not have the ISA.
#pragma once

#include "optimized/isa_list.h"

namespace cvm::opt {

// The ISAs of optimized/isa_list.h, ranked by their place there.
enum class Isa {
#define CVM_ISA_CONSTANT(constant, ...) constant,
  CVMCHECK_ISAS(CVM_ISA_CONSTANT)
#undef CVM_ISA_CONSTANT
};
#define CVM_ISA_ONE(...) +1
inline constexpr int kIsaCount = 0 CVMCHECK_ISAS(CVM_ISA_ONE);
#undef CVM_ISA_ONE

// One ISA's columns of the list.
struct IsaFacts {
  const char* name;
  Processor processor;
  Twin twin;
  Vectors vectors;
};
inline constexpr IsaFacts kIsaFacts[kIsaCount] = {
#define CVM_ISA_FACTS(constant, name, processor, twin, vectors, stem) \
  {name, Processor::processor, Twin::twin, Vectors::vectors},
    CVMCHECK_ISAS(CVM_ISA_FACTS)
#undef CVM_ISA_FACTS
};

// Whether `isa` is one of the list's (a value cast from an int may not be).
constexpr bool isa_valid(Isa isa) {
  return static_cast<int>(isa) >= 0 && static_cast<int>(isa) < kIsaCount;
}

// Its name (isa_list.h); "portable" for a value outside the list.
constexpr const char* isa_name(Isa isa) {
  return isa_valid(isa) ? kIsaFacts[static_cast<int>(isa)].name : "portable";
}

// Whether this binary holds `isa`'s kernels: the x86 ISAs in x86 builds, the NEON one in aarch64
// builds, the portable one everywhere. Variants and declared paths exist for these only.
constexpr bool isa_built(Isa isa) {
  if (!isa_valid(isa)) return false;
  const Processor p = kIsaFacts[static_cast<int>(isa)].processor;
  return p == Processor::kAnyProcessor || p == kBuildProcessor;
}

// Whether `isa` has an emulated twin in this binary (AVX-VNNI and AVX-512 VNNI in x86 builds;
// AVX2 is the CI machines' own; the twins are SIMDe's x86 emulation, built on x86 only).
constexpr bool isa_has_twin(Isa isa) {
  return isa_built(isa) && kIsaFacts[static_cast<int>(isa)].twin == Twin::kSimdeTwin;
}

// The vector registers of `isa` beyond its own instructions (isa_list.h: the elementwise pass).
constexpr Vectors isa_vectors(Isa isa) {
  return isa_valid(isa) ? kIsaFacts[static_cast<int>(isa)].vectors : Vectors::kBaselineVectors;
}

// Whether this CPU (and OS) runs `isa`'s native kernels.
bool isa_supported(Isa isa);

// The best ISA this CPU (and OS) supports, ignoring any cap.
Isa detected_isa();

// The ISA the nn kernels use now: detected_isa() capped by set_isa_cap, else by CVMCHECK_ISA
// (read on every call, so a test may change it between calls); with an emulated cap, the cap.
Isa active_isa();
const char* active_isa_name();
// Whether the kernels of active_isa() are its SIMDe twin (never for the portable ISA).
bool active_isa_emulated();

// Caps the ISA programmatically (overrides CVMCHECK_ISA); clear_isa_cap returns to the variable.
// emulated: run the SIMDe twin of `cap` whatever the CPU (ignored where isa_has_twin is false).
void set_isa_cap(Isa cap, bool emulated = false);
void clear_isa_cap();
// The programmatic cap, or -1 when none (so a scoped override can restore it exactly).
int isa_cap_state();
void restore_isa_cap_state(int state);

}  // namespace cvm::opt
