// The switch that compiles one x86 ISA kernel file twice (docs/paths.md, "Emulated twins"): as
// itself, with <immintrin.h> and per-function target attributes, and, where CVM_ISA_TWIN is
// defined (optimized/*_simde.cc include the kernel file after defining it), against SIMDe's
// portable implementations of the same intrinsic names and without target attributes, so that
// the same kernel source runs on any x86-64 CPU. The twin's table gets a different name
// (CVM_ISA_NAME), so both link into one binary; everything else in a kernel file is in an
// unnamed namespace.
//
// In a kernel file: CVM_ISA_TARGET("avx2,fma") in place of __attribute__((target(...))),
// CVM_ISA_INLINE for always_inline, CVM_ISA_NAME(table) for the table's function, Mask16 and Mask64 for the mask types.
#pragma once

#ifdef CVM_ISA_TWIN
// Nothing may include <immintrin.h> before this: SIMDe's aliases declare __m256i and __m512i.
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include "optimized/simde_fallbacks.h"

#define CVM_ISA_TARGET(features)
#define CVM_ISA_NAME(name) name##_simde
namespace cvm::opt {
using Mask16 = simde__mmask16;
using Mask64 = simde__mmask64;
}  // namespace cvm::opt
#else
#include <immintrin.h>

#define CVM_ISA_TARGET(features) __attribute__((target(features)))
#define CVM_ISA_NAME(name) name
namespace cvm::opt {
using Mask16 = __mmask16;
using Mask64 = __mmask64;
}  // namespace cvm::opt
#endif

#define CVM_ISA_INLINE __attribute__((always_inline))
