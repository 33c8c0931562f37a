// The instruction sets the tests run the optimized kernels on, from the one list of ISAs
// (optimized/isa_list.h), what this binary holds (opt::isa_built: the x86 ISAs and their SIMDe
// twins in x86 builds, NEON in aarch64 builds) and what this CPU runs, so that a test never
// names another processor's ISA.
#pragma once

#include <string>
#include <vector>

#include "optimized/cpu_features.h"

namespace cvm::testing {

// An ISA's native kernels or its emulated twin (optimized/isa_twin.h).
struct IsaRun {
  opt::Isa isa;
  bool emulated;
  std::string name() const { return std::string(opt::isa_name(isa)) + (emulated ? "~simde" : ""); }
};

// Every ISA of optimized/isa_list.h, in its order (the rank), built here or not.
std::vector<opt::Isa> all_isas();

// The portable ISA, then every ISA of this binary that this CPU runs natively.
std::vector<opt::Isa> machine_isas();

// machine_isas() natively, then every emulated twin (any x86-64 CPU runs them).
std::vector<IsaRun> isa_runs();

// The ISA variants that between them take every ISA path of this binary on this machine: each
// ISA's twin where it has one, else its native variant (optimized/avx2, optimized/neon-dotprod,
// optimized/portable), by backend name.
std::vector<std::string> isa_path_backends();

}  // namespace cvm::testing
