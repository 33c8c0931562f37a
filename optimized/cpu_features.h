// Run-time choice of the instruction set for the nn kernels (conv2d, dense) and the fused
// elementwise passes. The binary is built for the baseline of its processor (x86-64 or aarch64);
// the AVX2, AVX-VNNI and AVX-512 VNNI kernels (x86 builds) and the NEON dot-product kernels
// (aarch64 builds) are compiled per function with target attributes and chosen here from CPUID
// or, on ARM, the kernel's hardware capabilities (getauxval). CVMCHECK_ISA=portable|avx2|avxvnni|
// avx512vnni|neon-dotprod caps the choice (tests force every path that the machine supports); an
// unknown value is ignored.
//
// Each x86 ISA's kernels are also compiled a second time against SIMDe (docs/paths.md,
// "Emulated twins"): the same source without target attributes, which runs on any x86-64 CPU.
// A cap may ask for that twin (set_isa_cap(isa, true), or CVMCHECK_ISA=avx512vnni~simde): the
// CPU then need not have the ISA.
#pragma once

namespace cvm::opt {

// Ranked: a cap picks the best supported ISA at or below it. AVX-VNNI ranks below AVX-512 VNNI
// although neither implies the other (Ice Lake has AVX-512 VNNI only, Alder Lake AVX-VNNI only).
// The NEON one ranks last: no x86 CPU supports it and no ARM CPU the others, so on either
// processor a cap still picks among that processor's own ISAs.
enum class Isa { kPortable = 0, kAvx2 = 1, kAvxVnni = 2, kAvx512Vnni = 3, kNeonDot = 4 };
inline constexpr int kIsaCount = 5;

const char* isa_name(Isa isa);

// Whether this binary holds `isa`'s kernels: the x86 ISAs in x86 builds, the NEON one in aarch64
// builds, the portable one everywhere. Variants and declared paths exist for these only.
bool isa_built(Isa isa);

// Whether this CPU (and OS) runs `isa`'s native kernels.
bool isa_supported(Isa isa);

// Whether `isa` has an emulated twin (AVX-VNNI and AVX-512 VNNI in x86 builds; AVX2 is the CI
// machines' own; the twins are SIMDe's x86 emulation, built on x86 only).
bool isa_has_twin(Isa isa);

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
