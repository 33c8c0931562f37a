// cuda-host's run of a tiled GEMM step: each CTA tile in turn, its threads' shares of the
// staging one after another (the barrier between them is the loop's order), each warp's mma
// emulated from its 32 lanes' fragments (cuda/mma_device.h). Every function it calls but the
// emulation is the device kernel's own (cuda/gemm_device.h).
#pragma once

#include "cuda/gemm_device.h"

namespace cvm::cuda {

// Runs the GEMM of `p` over every tile, writing `out`; reports each tile's paths.
void run_gemm_host(const GemmParams& p, const Views& v, int32_t* out);

}  // namespace cvm::cuda
