// Test-only faults planted in the optimized kernels and their dispatch, so that the tests can
// prove that a short campaign catches each (tests/optimized/*_planted_test.cc, docs/paths.md).
// Production never sets one: the knob below stays kNoPlantedFault, and each ISA's table function
// (nn_gemm.h) given kNoPlantedFault, or a fault it does not plant, returns its faultless table.
// A fault is a template parameter of the kernel's traits, so the production table carries none.
#pragma once

#include <string>

#include "cvmcheck/registry.h"

namespace cvm::opt::nn {

inline constexpr int kNoPlantedFault = 0;

// In the AVX-VNNI micro-kernel (tests/optimized/avxvnni_planted_test.cc: a short campaign of the
// emulated twin catches each).
enum AvxVnniFault : int {
  kAvxVnniNoFault = kNoPlantedFault,
  kAvxVnniFaultLane = 1,       // the last lane keeps its accumulator
  kAvxVnniFaultKTail = 2,      // an odd last k-step dropped
  kAvxVnniFaultPairOrder = 3,  // vpdpbusd's u8 and s8 operands swapped
};

// In the AVX2 dispatch (tests/optimized/avx2_planted_test.cc): it takes vpmaddubsw for a call
// whose data and weights both have precision 8, where its int16 pair sums saturate.
inline constexpr int kAvx2FaultU8For8Bit = 4;

// In the NEON dot-product micro-kernel (tests/optimized/neon_planted_test.cc: a short campaign on
// an aarch64 CPU, or under qemu-aarch64, catches each).
enum NeonDotFault : int {
  kNeonDotNoFault = kNoPlantedFault,
  kNeonDotFaultLane = 1,   // the last lane keeps its accumulator
  kNeonDotFaultKTail = 2,  // an odd last k-step dropped
};

// The fault active_nn_isa() plants in the active ISA's kernels (nn_isa_dispatch.h); a dispatch
// variant sets it for the duration of a call.
int planted_fault();
void set_planted_fault(int fault);

}  // namespace cvm::opt::nn

namespace cvm::opt {

// optimized/avxvnni~simde with nn::AvxVnniFault `fault` planted in its micro-kernel.
Backend make_planted_avxvnni_variant(const Backend& optimized, const std::string& name,
                                     int fault);
// The same on optimized/neon-dotprod with a nn::NeonDotFault planted (aarch64 builds).
Backend make_planted_neon_variant(const Backend& optimized, const std::string& name, int fault);
// optimized/avx2 (native) with nn::kAvx2FaultU8For8Bit planted in its dispatch.
Backend make_planted_avx2_variant(const Backend& optimized, const std::string& name);

}  // namespace cvm::opt
