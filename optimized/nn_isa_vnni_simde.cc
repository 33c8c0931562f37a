// The emulated twin of the AVX-512 VNNI kernels (optimized/isa_twin.h): nn_isa_vnni.cc compiled
// against SIMDe without target attributes, so optimized/avx512vnni~simde runs its code on any
// x86-64 CPU. Its table is vnni_isa_simde().
#define CVM_ISA_TWIN 1
#include "optimized/nn_isa_vnni.cc"  // NOLINT(bugprone-suspicious-include): the twin by design
