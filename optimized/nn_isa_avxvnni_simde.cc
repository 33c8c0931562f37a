// The emulated twin of the AVX-VNNI kernels (optimized/isa_twin.h): nn_isa_avxvnni.cc compiled
// against SIMDe without target attributes, so optimized/avxvnni~simde runs its code on any
// x86-64 CPU. Its table is avxvnni_isa_simde().
#define CVM_ISA_TWIN 1
#include "optimized/nn_isa_avxvnni.cc"  // NOLINT(bugprone-suspicious-include): the twin by design
