// Run-time choice of the instruction set for the nn kernels (conv2d, dense). The binary is built
// for the baseline x86-64; the AVX2 and AVX-512 VNNI kernels are compiled per function with
// target attributes and chosen here from CPUID. CVMCHECK_ISA=portable|avx2|avx512vnni caps the
// choice (tests force every path that the machine supports); an unknown value is ignored.
#pragma once

namespace cvm::opt {

enum class Isa { kPortable = 0, kAvx2 = 1, kAvx512Vnni = 2 };

const char* isa_name(Isa isa);

// The best ISA this CPU (and OS) supports, ignoring any cap.
Isa detected_isa();

// The ISA the nn kernels use now: detected_isa() capped by set_isa_cap, else by CVMCHECK_ISA
// (read on every call, so a test may change it between calls).
Isa active_isa();
const char* active_isa_name();

// Caps the ISA programmatically (overrides CVMCHECK_ISA); clear_isa_cap returns to the variable.
void set_isa_cap(Isa cap);
void clear_isa_cap();
// The programmatic cap, or -1 when none (so a scoped override can restore it exactly).
int isa_cap_state();
void restore_isa_cap_state(int state);

}  // namespace cvm::opt
