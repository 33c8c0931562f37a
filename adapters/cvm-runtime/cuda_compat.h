// Pre-included into every CUDA source of the original runtime by `build.sh --cuda`, so that it
// builds with CUDA 12 and later without a change to its checkout. Its conv.cu declares two
// legacy texture references (`texture<char4, 1, cudaReadModeElementType>`) that no kernel
// fetches; CUDA 12 removed the `texture` template with the texture-reference API. An empty
// template of the same shape lets those declarations compile; nothing can read through it.
#pragma once

#include <cuda_runtime.h>

template <class T, int Dim = 1, enum cudaTextureReadMode Mode = cudaReadModeElementType>
struct texture {};
