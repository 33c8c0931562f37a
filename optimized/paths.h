// The optimized backend's kernel paths and the sizes that decide them, in one place
// (cvmcheck/paths.h, docs/paths.md): the kernels mark the path they take with hit(kX); the
// backend and its variants declare the list (paths.cc), the generators draw on either side of
// the thresholds, and the tests read both from here rather than copying them.
#pragma once

#include <cstdint>
#include <vector>

#include "cvmcheck/paths.h"
#include "cvmcheck/registry.h"
#include "optimized/isa_list.h"

namespace cvm::opt::nn {
struct NnIsa;
}  // namespace cvm::opt::nn

namespace cvm::opt::path {

// Sizes that decide paths (the kernels use these constants; nothing else may copy them).
inline constexpr int64_t kWorkThreshold = int64_t{1} << 16;  // work worth a thread team
inline constexpr int64_t kReluChunk = int64_t{1} << 14;      // elements per relu chunk
inline constexpr int64_t kFusedChunk = 4096;                 // elements per fused-pass chunk
inline constexpr int64_t kConvRangeChunk = int64_t{1} << 16;  // values per conv2d range chunk
inline constexpr int64_t kDenseBlockSteps = 1024;  // k-steps per dense B block (x the ISA group)
inline constexpr int64_t kCopyTileSide = 8;  // both sides of a transposing view copied in tiles
inline constexpr int64_t kCopyTile = 64;     // the sides of one tile of that copy
inline constexpr int kU8Precision = 7;  // AVX2: a side of at most this precision takes vpmaddubsw
inline constexpr int64_t kDenseGemvRows = 2;  // AVX2: dense of at most this many rows is a gemv
inline constexpr int64_t kConvPackTaps = 8;  // AVX2-class: weight taps packed by one transposition

// Which dispatch a path belongs to: a variant forcing one ISA declares only its own, and a
// binary declares only the paths of the ISAs it holds (cpu_features.h: isa_built). Beside kAny
// and kGemm (every ISA with a GEMM, not portable), a tag is one ISA of optimized/isa_list.h (by
// the same name as its Isa constant), or the ISAs of one vector class (the list's `vectors`):
// kBasePass the baseline's (the portable ISA, and NEON, whose aarch64 baseline already has the
// Advanced SIMD the compiler vectorizes the elementwise loop for), kAvx2Pass AVX2's (AVX2 and
// AVX-VNNI, no wider vectors), kAvx512Pass AVX-512's.
enum class On {
  kAny, kBasePass, kAvx2Pass, kAvx512Pass, kGemm,
#define CVM_ON_ONE_ISA(constant, ...) constant,
  CVMCHECK_ISAS(CVM_ON_ONE_ISA)
#undef CVM_ON_ONE_ISA
};

// X(constant, id, on, ops, description). ops: canonical names, "family:F" or "*" (every op).
#define CVMCHECK_OPTIMIZED_PATHS(X)                                                             \
  X(kThreads, "threads.team", kAny, "*", "a parallel region on more than one thread")           \
  X(kValueCheckThreaded, "infer.value_check.threaded", kAny,                                    \
    "sum,max,family:transform_shape,family:transform_index",                                    \
    "the production value check's min/max pass split over threads (2^16 elements or more)")     \
  X(kReluOneChunk, "relu.one_chunk", kAny, "relu", "relu of at most one 2^14-element chunk")    \
  X(kReluChunks, "relu.chunks", kAny, "relu", "relu over several 2^14-element chunks")          \
  X(kUpsamplingCopy, "upsampling.scale_1", kAny, "upsampling", "upsampling by 1: row copies")   \
  X(kUpsamplingRepeat, "upsampling.scaled", kAny, "upsampling", "upsampling by 2 or more")      \
  X(kFusedOneChunk, "fused.one_chunk", kAny, "family:elementwise",                              \
    "an elementwise pass of one 4096-element chunk")                                            \
  X(kFusedChunks, "fused.chunks", kAny, "family:elementwise",                                   \
    "an elementwise pass over several 4096-element chunks")                                     \
  X(kFusedPortable, "fused.pass.portable", kBasePass, "family:elementwise,family:broadcast",   \
    "the baseline elementwise pass (portable and NEON)")                                        \
  X(kFusedAvx2, "fused.pass.avx2", kAvx2Pass, "family:elementwise,family:broadcast",            \
    "the AVX2 pass (AVX2 and AVX-VNNI)")                                                        \
  X(kFusedAvx512, "fused.pass.avx512", kAvx512Pass, "family:elementwise,family:broadcast",      \
    "the AVX-512 elementwise pass")                                                             \
  X(kBroadcastRows, "broadcast.rows", kAny, "family:broadcast",                                 \
    "a broadcast over several rows of its merged inner axis")                                   \
  X(kBroadcastInnerBoth, "broadcast.inner.both", kAny, "family:broadcast",                      \
    "both operands full along the merged inner axis")                                           \
  X(kBroadcastInnerA, "broadcast.inner.a", kAny, "family:broadcast",                            \
    "only the first operand full along the merged inner axis")                                  \
  X(kBroadcastInnerB, "broadcast.inner.b", kAny, "family:broadcast",                            \
    "only the second operand full along the merged inner axis")                                 \
  X(kReduceSplitFirst, "reduce.split_first_axis", kAny, "sum,max",                              \
    "threads over the first kept axis")                                                         \
  X(kReduceInner, "reduce.inner_reduced", kAny, "sum,max", "the innermost axis reduced")        \
  X(kReduceOuter, "reduce.inner_kept", kAny, "sum,max", "the innermost axis kept (row adds)")   \
  X(kConvGemmAvx2, "conv2d.gemm.avx2", kAvx2, "conv2d",                                       \
    "implicit GEMM on AVX2, vpsignb + vpmaddubsw on s8 (data and weights of precision 8)")      \
  X(kConvGemmAvx2U8Data, "conv2d.gemm.avx2_u8.data7", kAvx2, "conv2d",                          \
    "implicit GEMM on AVX2, vpmaddubsw: data of precision <= 7 stored x + 64")                  \
  X(kConvGemmAvx2U8Weights, "conv2d.gemm.avx2_u8.weights7", kAvx2, "conv2d",                    \
    "implicit GEMM on AVX2, vpmaddubsw: weights of precision <= 7, data (precision 8) + 128")   \
  X(kConvGemmAvxVnni, "conv2d.gemm.avxvnni", kAvxVnni, "conv2d",                               \
    "implicit GEMM on AVX-VNNI (u8, 256-bit)")                                                  \
  X(kConvGemmVnni, "conv2d.gemm.vnni", kAvx512Vnni, "conv2d",                                   \
    "implicit GEMM on AVX-512 VNNI (u8)")                                                       \
  X(kConvGemmNeonDot, "conv2d.gemm.neon_dotprod", kNeonDot, "conv2d",                          \
    "implicit GEMM on NEON SDOT (s8, 128-bit)")                                                 \
  X(kConvDirect, "conv2d.direct", kAny, "conv2d", "the direct kernel")                          \
  X(kConvDeclined, "conv2d.gemm_declined", kGemm, "conv2d",                                     \
    "a GEMM ISA sends the call to the direct kernel (one channel per group, or buffers out of " \
    "proportion)")                                                                              \
  X(kConvDepthwiseVnni, "conv2d.direct.depthwise_vnni", kAvx512Vnni, "conv2d",                  \
    "VNNI's depthwise direct kernel (one input channel per group, width stride 1)")             \
  X(kConvDepthwiseAvx2, "conv2d.direct.depthwise_avx2", kAvx2Pass, "conv2d",                    \
    "the AVX2 depthwise direct kernel (AVX2 and AVX-VNNI; one input channel per group)")        \
  X(kConvScratchStore, "conv2d.gemm.scratch_store", kGemm, "conv2d",                            \
    "output rows narrower than a vector: tiles stored through a scratch tile")                  \
  X(kConvPartialPanel, "conv2d.gemm.partial_panel", kGemm, "conv2d",                            \
    "output channels per group not a multiple of the panel height")                             \
  X(kConvPanels, "conv2d.gemm.panels", kGemm, "conv2d",                                         \
    "two or more channel panels per group")                                                     \
  X(kConvPanelRun, "conv2d.gemm.panels_per_task", kGemm, "conv2d",                              \
    "a task runs two or more channel panels")                                                   \
  X(kConvPanelRanges, "conv2d.gemm.panel_ranges", kGemm, "conv2d",                              \
    "channel panels split into ranges over tasks")                                              \
  X(kConvRangeChunks, "conv2d.value_range.chunks", kGemm, "conv2d",                             \
    "the deferred data value check over several 2^16-value chunks")                             \
  X(kConvPackTransposed, "conv2d.gemm.pack_transposed", kAvx2Pass, "conv2d",                    \
    "AVX2-class weight packing of a 4-row panel with 8 or more taps: 8 taps transposed at once") \
  X(kDenseGemmAvx2, "dense.gemm.avx2", kAvx2, "dense",                                         \
    "packed GEMM on AVX2, vpsignb + vpmaddubsw on s8 (data and weights of precision 8)")        \
  X(kDenseGemmAvx2U8Data, "dense.gemm.avx2_u8.data7", kAvx2, "dense",                           \
    "packed GEMM on AVX2, vpmaddubsw: data of precision <= 7 stored x + 64")                    \
  X(kDenseGemmAvx2U8Weights, "dense.gemm.avx2_u8.weights7", kAvx2, "dense",                     \
    "packed GEMM on AVX2, vpmaddubsw: weights of precision <= 7, data (precision 8) + 128")     \
  X(kDenseGemvAvx2, "dense.gemv.avx2", kAvx2, "dense",                                          \
    "at most 2 rows on AVX2: a gemv streaming W once, converted and multiplied in one pass")    \
  X(kDenseGemmAvxVnni, "dense.gemm.avxvnni", kAvxVnni, "dense",                                \
    "packed GEMM on AVX-VNNI (u8 x s8, 256-bit)")                                               \
  X(kDenseGemmVnni, "dense.gemm.vnni", kAvx512Vnni, "dense",                                    \
    "packed GEMM on AVX-512 VNNI (u8 x s8)")                                                    \
  X(kDenseGemmNeonDot, "dense.gemm.neon_dotprod", kNeonDot, "dense",                            \
    "packed GEMM on NEON SDOT (s8 x s8, 128-bit)")                                              \
  X(kDenseDirect, "dense.direct", kPortable, "dense", "direct dot products")                    \
  X(kDenseKBlocks, "dense.gemm.kblocks", kGemm, "dense", "a depth of two or more k-blocks")     \
  X(kDenseRowChunks, "dense.gemm.row_chunks", kGemm, "dense",                                   \
    "row panels split over tasks (few column panels)")                                          \
  X(kDensePartialPanel, "dense.gemm.partial_panel", kGemm, "dense",                             \
    "rows not a multiple of the row panel height")                                              \
  X(kDenseColumnTail, "dense.gemm.column_tail", kGemm, "dense",                                 \
    "units not a multiple of the vector lanes")                                                 \
  X(kDenseMixed, "dense.gemm.mixed_dtype", kGemm, "dense", "int8 and int32 operands mixed")     \
  X(kCopyRun, "copy.run", kAny, "family:transform_shape,family:transform_index",                \
    "a strided view copied in unit-stride runs")                                                \
  X(kCopyFill, "copy.fill", kAny, "family:transform_shape,family:transform_index",              \
    "a strided view with a repeated value (stride 0), a row or one value at a time")                                          \
  X(kCopyGather, "copy.gather", kAny, "family:transform_shape,family:transform_index",          \
    "a strided view gathered element by element")                                               \
  X(kCopyTiled, "copy.tiled", kAny, "transpose",                                                \
    "a transposing view copied in cache tiles")                                                 \
  X(kCopyTiles, "copy.tiled.tiles", kAny, "transpose",                                          \
    "a tiled copy of a side longer than one 64-element tile")                                   \
  X(kCopyOneRow, "copy.one_row", kAny, "family:transform_shape,family:transform_index",        \
    "a view of one axis: the row itself split among threads where worth it")

#define CVMCHECK_OPTIMIZED_PATH_INDEX(constant, id, on, ops, description) \
  inline const int constant = paths::define(id, ops, description);
CVMCHECK_OPTIMIZED_PATHS(CVMCHECK_OPTIMIZED_PATH_INDEX)
#undef CVMCHECK_OPTIMIZED_PATH_INDEX

using paths::hit;
using paths::hit_if;

// The k-steps of one dense B block on `isa`'s kernels: kDenseBlockSteps, but half of it for the
// AVX2 tables (4 k values a step, on 256-bit vectors), so that their k-block keeps the depth
// (2048) that the generators aim at.
int64_t dense_block_steps(const nn::NnIsa& isa);

// The GEMM path of a conv2d (conv) or dense call on `isa`'s kernels, which its table names (on
// AVX2 that of the pair instruction the call's precisions chose: nn::active_nn_isa(p_data,
// p_weight)).
int gemm_path(const nn::NnIsa& isa, bool conv);

// The paths `backend_isa` can take (-1: any ISA, the CPUID pick), with those this machine
// cannot reach given their reason, and the thresholds; set on the backend and its variants.
// emulated: the variant runs forced_isa's SIMDe twin, which every x86-64 CPU reaches.
void declare(Backend& backend, int forced_isa, bool forced_threads, bool emulated = false);
// Marks the team paths of a backend that this process runs on one thread unreachable, with why
// (the campaign's jobs run single-threaded: optimized@3 keeps its own team).
void mark_single_threaded(Backend& backend, const std::string& why);

}  // namespace cvm::opt::path
