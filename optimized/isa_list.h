// The instruction sets of the optimized backend's conv2d and dense kernels, in one list: every
// place that has one thing per ISA reads it from here (docs/architecture.md, "Adding an ISA"):
// the Isa enum, its names and facts (cpu_features.h), the dispatch to each ISA's kernel table
// (nn_isa_dispatch.cc), the dispatch variants optimized/<name> (variants.cc), the elementwise
// pass each ISA runs (fused_pass.h), the one-ISA tags of the kernel paths (paths.h), the tests'
// ISA lists (tests/support/isas.cc) and the mutation tool (tools/mutate/isas.py parses it).
//
// X(constant, name, processor, twin, vectors, stem), one line per ISA:
//   constant   Isa::constant. The order is the rank: a cap (CVMCHECK_ISA, a variant) picks the
//              best supported ISA at or below it. AVX-VNNI ranks below AVX-512 VNNI although
//              neither implies the other (Ice Lake has AVX-512 VNNI only, Alder Lake AVX-VNNI
//              only). The NEON one ranks last: no x86 CPU supports it and no ARM CPU the x86
//              ones, so on either processor a cap still picks among that processor's own ISAs.
//   name       its variant optimized/<name>, its CVMCHECK_ISA value, isa_name()
//   processor  the builds that hold its kernels: kAnyProcessor, kX86 or kArm64 (its kernel
//              file compiles to nothing elsewhere)
//   twin       kSimdeTwin: its kernel file is compiled a second time against SIMDe
//              (optimized/isa_twin.h, nn_isa_<stem>_simde.cc), variant optimized/<name>~simde
//   vectors    the vector registers it has beyond its own instructions: the elementwise pass it
//              runs (fused_pass.h) and, for kAvx2Vectors, the AVX2-class depthwise kernel and
//              weight packing paths (nn_depthwise.h, nn_avx2_pack.h)
//   stem       its kernel file optimized/nn_isa_<stem>.cc, whose table is <stem>_isa(fault)
//              (the twin's <stem>_isa_simde(fault): nn_gemm.h)
#pragma once

#define CVMCHECK_ISAS(X)                                                            \
  X(kPortable, "portable", kAnyProcessor, kNoTwin, kBaselineVectors, portable)      \
  X(kAvx2, "avx2", kX86, kNoTwin, kAvx2Vectors, avx2)                               \
  X(kAvxVnni, "avxvnni", kX86, kSimdeTwin, kAvx2Vectors, avxvnni)                   \
  X(kAvx512Vnni, "avx512vnni", kX86, kSimdeTwin, kAvx512Vectors, vnni)              \
  X(kNeonDot, "neon-dotprod", kArm64, kNoTwin, kBaselineVectors, neon_dot)

namespace cvm::opt {

// The values of the list's columns.
enum class Processor { kAnyProcessor, kX86, kArm64, kOtherProcessor };
enum class Twin { kNoTwin, kSimdeTwin };
enum class Vectors { kBaselineVectors, kAvx2Vectors, kAvx512Vectors };

// The processor this build is for: its ISAs' kernel files are the ones compiled.
inline constexpr Processor kBuildProcessor =
#if defined(__x86_64__) || defined(__i386__)
    Processor::kX86;
#elif defined(__aarch64__)
    Processor::kArm64;
#else
    Processor::kOtherProcessor;  // the portable kernels only
#endif

}  // namespace cvm::opt
