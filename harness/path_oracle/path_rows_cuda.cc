// The path-mark rows of the CUDA kernels (cuda/paths.h), as cuda-host and cuda run them: the
// step kinds a plan launches, and the tiled GEMM's tile paths sized from the backend's tile
// (s["cuda.tile.rows"]: 64 on cuda-host, 16 on @tile), each on both sides of a tile side.
#include "harness/path_oracle/path_marks.h"

namespace cvm::path_oracle {
namespace {

#define CALL(...) [](const Sizes& s [[maybe_unused]]) { return __VA_ARGS__; }

// Why a step kind has no call past a threshold: the kernel choice decides it.
const char* const kChoice =
    "the kernel choice decides it, not a size: a backend of another choice must never report "
    "it (every call's paths are checked against what its backend declares)";
const char* const kOnly = "the operator's only kernel on this kernel choice";
const char* const kForced = "the variant forces this strategy onto every reduction";
// cuda/plan_fast.cc: int64 index math needs an input of 2^31 elements or offsets, gigabytes.
const char* const kInt32 =
    "its other side needs indices past 2^31 (an input of gigabytes): every call a test can "
    "afford computes them in int32";

// A dense call of one tile's sides plus (dm, dk, dn): rows, depth, units.
PathCall tile(const Sizes& s, int64_t dm, int64_t dk, int64_t dn) {
  return dense(s["cuda.tile.rows"] + dm, s["cuda.tile.depth"] + dk, s["cuda.tile.units"] + dn);
}

}  // namespace

const std::vector<PathRow>& cuda_path_rows() {
  static const std::vector<PathRow> kRows = {
      {"cuda.step.map", "", CALL(unary("abs", {3})), nullptr, kChoice},
      {"cuda.step.gather", "/simple", CALL(transpose({3, 4}, "(1, 0)")), nullptr, kOnly},
      // The fast choices' gather without a run: the innermost axis walks the input by 4.
      {"cuda.step.gather", "", CALL(transpose({3, 4}, "(1, 0)")),
       CALL(transpose({2, 3, 4}, "(1, 0, 2)"))},
      {"cuda.step.take", "", CALL(take()), nullptr, kOnly},
      {"cuda.step.reduce", "", CALL(reduce("sum", {2, 3}, "(1,)")), nullptr, kChoice},
      {"cuda.step.conv2d", "", CALL(conv({})), nullptr, kChoice},
      {"cuda.step.dense", "", CALL(dense(1, 1, 1)), nullptr, kChoice},
      {"cuda.step.pool", "", CALL(max_pool()), nullptr, kOnly},
      {"cuda.step.valid_counts", "", CALL(valid_counts()), nullptr, kChoice},
      {"cuda.step.nms", "", CALL(nms(-1)), nullptr, kChoice},
      // Two input channels per group: the GEMM; one: the depthwise kernel.
      {"cuda.step.gemm", "", CALL(dense(1, 1, 1)), CALL(conv({.in_channels = 1}))},
      {"cuda.step.gemm", "", CALL(conv({})), CALL(conv({.in_channels = 1}))},
      {"cuda.conv2d.depthwise", "", CALL(conv({.in_channels = 1})), CALL(conv({}))},
      {"cuda.map.vector", "", CALL(unary("abs", {3})), nullptr, kChoice},
      {"cuda.gather.run", "", CALL(transpose({2, 3, 4}, "(1, 0, 2)")),
       CALL(transpose({3, 4}, "(1, 0)"))},
      // Automatic: a warp per output where the reduced fiber is the innermost run, longer
      // than one; the split and its combine otherwise.
      {"cuda.reduce.warp", "@warp", CALL(reduce("sum", {2, 3}, "(0,)")), nullptr, kForced},
      {"cuda.reduce.warp", "", CALL(reduce("sum", {2, 3}, "(1,)")),
       CALL(reduce("sum", {2, 3}, "(0,)"))},
      {"cuda.reduce.warp", "", CALL(reduce("sum", {2, 3}, "(1,)")),
       CALL(reduce("sum", {3, 1}, "(1,)"))},
      {"cuda.reduce.split", "@split", CALL(reduce("sum", {2, 3}, "(1,)")), nullptr, kForced},
      {"cuda.reduce.split", "", CALL(reduce("sum", {2, 3}, "(0,)")),
       CALL(reduce("sum", {2, 3}, "(1,)"))},
      {"cuda.reduce.combine", "@split", CALL(reduce("sum", {2, 3}, "(1,)")), nullptr, kForced},
      {"cuda.reduce.combine", "", CALL(reduce("sum", {2, 3}, "(0,)")),
       CALL(reduce("sum", {2, 3}, "(1,)"))},
      {"cuda.valid_counts.warp", "", CALL(valid_counts()), nullptr, kChoice},
      {"cuda.nms.keys", "", CALL(nms(-1)), nullptr, kChoice},
      {"cuda.nms.sort", "", CALL(nms(-1)), nullptr, kChoice},
      {"cuda.nms.mask", "", CALL(nms(-1)), CALL(nms(0))},  // top_k 0 scans no box
      {"cuda.nms.mask", "", CALL(nms(1)), CALL(nms(0))},
      {"cuda.nms.greedy", "", CALL(nms(-1)), nullptr, kChoice},
      {"cuda.nms.fill", "", CALL(nms(-1)), nullptr, kChoice},
      {"cuda.index.int32", "", CALL(unary("abs", {3})), nullptr, kInt32},
      {"cuda.index.int32", "", CALL(transpose({3, 4}, "(1, 0)")), nullptr, kInt32},
      {"cuda.index.int32", "", CALL(max_pool()), nullptr, kInt32},
      // The tile paths (cuda/gemm_device.h, tile_paths), the call's tiles together.
      {"cuda.gemm.full_tile", "", CALL(tile(s, 0, 0, 0)), CALL(tile(s, -1, 0, 0))},
      {"cuda.gemm.full_tile", "", CALL(tile(s, 0, 0, 0)), CALL(tile(s, 0, 0, -1))},
      {"cuda.gemm.partial_m", "", CALL(tile(s, 1, 0, 0)), CALL(tile(s, 0, 0, 0))},
      {"cuda.gemm.partial_m", "", CALL(tile(s, -1, 0, 0)),
       CALL(tile(s, s["cuda.tile.rows"], 0, 0))},
      {"cuda.gemm.partial_n", "", CALL(tile(s, 0, 0, 1)), CALL(tile(s, 0, 0, 0))},
      {"cuda.gemm.partial_n", "", CALL(tile(s, 0, 0, -1)),
       CALL(tile(s, 0, 0, s["cuda.tile.units"]))},
      {"cuda.gemm.k_tail", "", CALL(tile(s, 0, 1, 0)), CALL(tile(s, 0, 0, 0))},
      {"cuda.gemm.k_tail", "", CALL(tile(s, 0, -1, 0)), CALL(tile(s, 0, s["cuda.tile.depth"], 0))},
      {"cuda.gemm.k_slices", "", CALL(tile(s, 0, 1, 0)), CALL(tile(s, 0, 0, 0))},
      // Unpadded, every window ends inside the image on both axes, a wide and a tall one.
      {"cuda.gemm.conv_border", "", CALL(conv({.kernel = 3, .pad_h = 1, .pad_w = 1})),
       CALL(conv({.kernel = 3}))},
      {"cuda.gemm.conv_border", "",
       CALL(conv({.height = 8, .width = 4, .kernel = 3, .pad_h = 1, .pad_w = 1})),
       CALL(conv({.height = 8, .width = 4, .kernel = 3}))},
      // One side alone leaves the image: the left columns' windows (rows unpadded, and a stride
      // of 2 over an even width ends the last window inside), so no other test decides it.
      {"cuda.gemm.conv_border", "",
       CALL(conv({.height = 6, .width = 8, .kernel = 3, .pad_w = 1, .stride_w = 2})),
       CALL(conv({.height = 6, .width = 8, .kernel = 3, .stride_w = 2}))},
      {"cuda.gemm.conv_groups", "", CALL(conv({.in_channels = 4, .groups = 2})),
       CALL(conv({.in_channels = 4}))},
  };
  return kRows;
}

}  // namespace cvm::path_oracle
