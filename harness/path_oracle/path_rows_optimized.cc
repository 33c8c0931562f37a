// The path-mark rows of the optimized backend and its variants (optimized/paths.h): per path,
// a call that must report it and, where a size decides it, one just past that size that must
// not. Sizes come from the backend's thresholds (s["dense.row_panel"]: 4 on AVX2, 6 on VNNI).
#include <utility>

#include "harness/path_oracle/path_marks.h"

namespace cvm::path_oracle {
namespace {

#define CALL(...) [](const Sizes& s [[maybe_unused]]) { return __VA_ARGS__; }

// Why an ISA-tagged path has no call past a threshold: no size decides it within a backend.
const char* const kIsa =
    "the ISA decides it, not a size: the other ISAs' backends must never report it (every "
    "call's paths are checked against what its backend can take)";
const char* const kNoGemm = "the portable ISA has no GEMM: every call of it takes this path";

// The precision up to which AVX2 takes vpmaddubsw (7).
int u8(const Sizes& s) { return static_cast<int>(s["nn.u8_precision"]); }

// Rows that take the packed GEMM, not the gemv (AVX2: 3).
int64_t gemm_rows(const Sizes& s) { return s["dense.gemv_rows"] + 1; }

ConvCall panels(int64_t channels, int64_t height, int64_t width) {
  return ConvCall{.height = height, .width = width, .channels = channels};
}

// A full panel of four input channels (a channel group of every AVX2-class table: int16 pairs,
// u8 quads) under a 1 x `taps` kernel.
ConvCall packed(const Sizes& s, int64_t taps) {
  return ConvCall{.in_channels = 4, .channels = s["conv2d.row_panel"], .kernel = 1,
                  .kernel_w = taps};
}

// One channel of one row `width` long, to one output channel: its values are the input's.
ConvCall row(int64_t width) {
  return ConvCall{.in_channels = 1, .height = 1, .width = width, .channels = 1};
}

// The team, the elementwise, broadcast and reduce passes.
std::vector<PathRow> pass_rows() {
  return {
    // optimized@3 forms a team from work 0: any call that asks; a one-chunk pass asks none.
    {"threads.team", "@3", CALL(unary("relu", {3})), CALL(unary("abs", {3}))},
    {"threads.team", "", CALL(unary("relu", {s["threads.work"]})),
     CALL(unary("relu", {s["threads.work"] - 1}))},
    {"infer.value_check.threaded", "", CALL(reduce("sum", {s["infer.value_chunk"]}, "")),
     CALL(reduce("sum", {s["infer.value_chunk"] - 1}, ""))},
    {"relu.one_chunk", "", CALL(unary("relu", {s["relu.chunk"]})),
     CALL(unary("relu", {s["relu.chunk"] + 1}))},
    {"relu.chunks", "", CALL(unary("relu", {s["relu.chunk"] + 1})),
     CALL(unary("relu", {s["relu.chunk"]}))},
    {"upsampling.scale_1", "", CALL(upsampling(1)), CALL(upsampling(2))},
    {"upsampling.scaled", "", CALL(upsampling(2)), CALL(upsampling(1))},
    {"fused.one_chunk", "", CALL(unary("abs", {s["fused.chunk"]})),
     CALL(unary("abs", {s["fused.chunk"] + 1}))},
    {"fused.chunks", "", CALL(unary("abs", {s["fused.chunk"] + 1})),
     CALL(unary("abs", {s["fused.chunk"]}))},
    {"fused.pass.portable", "", CALL(unary("abs", {3})), nullptr, kIsa},
    {"fused.pass.avx2", "", CALL(unary("abs", {3})), nullptr, kIsa},
    {"fused.pass.avx512", "", CALL(unary("abs", {3})), nullptr, kIsa},
    {"broadcast.rows", "", CALL(binary("broadcast_add", {2, 3}, {1, 3})),
     CALL(binary("broadcast_add", {2, 3}, {2, 3}))},
    {"broadcast.inner.both", "", CALL(binary("broadcast_add", {2, 3}, {1, 3})),
     CALL(binary("broadcast_add", {2, 3}, {2, 1}))},
    {"broadcast.inner.a", "", CALL(binary("broadcast_add", {2, 3}, {2, 1})),
     CALL(binary("broadcast_add", {2, 3}, {1, 3}))},
    {"broadcast.inner.b", "", CALL(binary("broadcast_add", {2, 1}, {2, 3})),
     CALL(binary("broadcast_add", {2, 3}, {2, 1}))},
    // The first kept axis splits over a team: the work threshold (optimized@3's is 0) and
    // the first axis reduced are its two boundaries.
    {"reduce.split_first_axis", "@3", CALL(reduce("sum", {2, 3}, "(1,)")),
     CALL(reduce("sum", {2, 3}, "(0,)"))},
    {"reduce.split_first_axis", "", CALL(reduce("sum", {2, s["threads.work"] / 2}, "(1,)")),
     CALL(reduce("sum", {2, s["threads.work"] / 2 - 1}, "(1,)"))},
    {"reduce.split_first_axis", "", CALL(reduce("sum", {2, s["threads.work"] / 2}, "(1,)")),
     CALL(reduce("sum", {2, s["threads.work"] / 2}, "(0,)"))},
    {"reduce.inner_reduced", "", CALL(reduce("sum", {2, 3}, "(1,)")),
     CALL(reduce("sum", {2, 3}, "(0,)"))},
    {"reduce.inner_kept", "", CALL(reduce("sum", {2, 3}, "(0,)")),
     CALL(reduce("sum", {2, 3}, "(1,)"))},
  };
}

// conv2d, dense and the copy engine.
std::vector<PathRow> nn_and_copy_rows() {
  return {
    // conv2d: two input channels per group take a GEMM ISA's implicit GEMM, one the direct.
    {"conv2d.gemm.avx2", "", CALL(conv({})), CALL(conv({.in_channels = 1}))},
    // AVX2's pair instruction by the precisions: vpmaddubsw where a side has at most 7 bits
    // (the data's first: shifted by 64), the int16 kernels for 8 x 8.
    {"conv2d.gemm.avx2", "", CALL(conv({})), CALL(conv({.p_weight = u8(s)}))},
    {"conv2d.gemm.avx2_u8.data7", "", CALL(conv({.p_data = u8(s)})),
     CALL(conv({.p_data = u8(s) + 1}))},
    {"conv2d.gemm.avx2_u8.weights7", "", CALL(conv({.p_weight = u8(s)})),
     CALL(conv({.p_data = u8(s), .p_weight = u8(s)}))},
    // The other ISAs' GEMM paths (conv2d.gemm.vnni, .avxvnni, .neon_dotprod, ...: every ISA of
    // optimized/isa_list.h), one pattern row for all: the rows of the paths no row names.
    {"conv2d.gemm.*", "", CALL(conv({})), CALL(conv({.in_channels = 1}))},
    // Where the dispatch is portable (the variant, or CVMCHECK_ISA=portable on the base).
    {"conv2d.direct", "?dense.direct", CALL(conv({})), nullptr, kNoGemm},
    {"conv2d.direct", "", CALL(conv({.in_channels = 1})), CALL(conv({}))},
    {"conv2d.gemm_declined", "", CALL(conv({.in_channels = 1})), CALL(conv({}))},
    {"conv2d.direct.depthwise_vnni", "",
     CALL(conv({.in_channels = 2, .channels = 2, .groups = 2, .kernel = 3, .pad_h = 1,
                .pad_w = 1})),
     CALL(conv({.in_channels = 2, .channels = 2, .groups = 2, .kernel = 3, .pad_h = 1,
                .pad_w = 1, .stride_w = 2}))},
    {"conv2d.direct.depthwise_avx2", "",
     CALL(conv({.in_channels = 2, .channels = 2, .groups = 2, .kernel = 3, .pad_h = 1,
                .pad_w = 1})),
     CALL(conv({.in_channels = 2, .channels = 2, .groups = 2, .kernel = 3, .pad_h = 1,
                .pad_w = 1, .stride_w = 2}))},
    {"conv2d.gemm.scratch_store", "", CALL(conv({.width = s["conv2d.lanes"] - 1})),
     CALL(conv({.width = s["conv2d.lanes"]}))},
    {"conv2d.gemm.partial_panel", "", CALL(conv({.channels = s["conv2d.row_panel"] + 1})),
     CALL(conv({.channels = s["conv2d.row_panel"]}))},
    {"conv2d.gemm.partial_panel", "", CALL(conv({.channels = s["conv2d.row_panel"] - 1})),
     CALL(conv({.channels = 2 * s["conv2d.row_panel"]}))},
    {"conv2d.gemm.panels", "", CALL(conv({.channels = s["conv2d.row_panel"] + 1})),
     CALL(conv({.channels = s["conv2d.row_panel"]}))},
    // An image of 1024 pixel blocks gives every team of up to 256 threads four blocks a thread
    // (optimized/conv2d.cc), so each task takes both panels whatever the ISA's block; a 4 x 8
    // one has so few that the panels split into ranges.
    {"conv2d.gemm.panels_per_task", "",
     CALL(conv(panels(s["conv2d.row_panel"] + 1, 256, 4 * s["conv2d.pixel_block"]))),
     CALL(conv(panels(s["conv2d.row_panel"], 256, 4 * s["conv2d.pixel_block"])))},
    {"conv2d.gemm.panel_ranges", "", CALL(conv(panels(s["conv2d.row_panel"] + 1, 4, 8))),
     CALL(conv(panels(s["conv2d.row_panel"], 4, 8)))},
    // The transposition's taps exactly take it, one fewer does not; a full panel (the first of
    // two) takes it, a partial one alone does not.
    {"conv2d.gemm.pack_transposed", "", CALL(conv(packed(s, s["conv2d.pack_taps"]))),
     CALL(conv(packed(s, s["conv2d.pack_taps"] - 1)))},
    {"conv2d.gemm.pack_transposed", "",
     CALL(conv({.in_channels = 4, .channels = s["conv2d.row_panel"] + 1, .kernel = 3})),
     CALL(conv({.in_channels = 4, .channels = s["conv2d.row_panel"] - 1, .kernel = 3}))},
    {"conv2d.value_range.chunks", "", CALL(conv(row(s["conv2d.range_chunk"] + 1))),
     CALL(conv(row(s["conv2d.range_chunk"])))},
    {"dense.gemm.avx2", "", CALL(dense(gemm_rows(s), 1, 1)),
     CALL(dense(gemm_rows(s), 1, 1, DType::kInt32, DType::kInt32, 8, u8(s)))},
    {"dense.gemm.avx2_u8.data7", "",
     CALL(dense(gemm_rows(s), 1, 1, DType::kInt32, DType::kInt32, u8(s), 8)),
     CALL(dense(gemm_rows(s), 1, 1))},
    {"dense.gemm.avx2_u8.weights7", "",
     CALL(dense(gemm_rows(s), 1, 1, DType::kInt32, DType::kInt32, 8, u8(s))),
     CALL(dense(gemm_rows(s), 1, 1, DType::kInt32, DType::kInt32, u8(s), u8(s)))},
    {"dense.gemv.avx2", "", CALL(dense(s["dense.gemv_rows"], 1, 1)),
     CALL(dense(gemm_rows(s), 1, 1))},
    {"dense.gemm.*", "", CALL(dense(1, 1, 1)), nullptr, kIsa},  // every other ISA's GEMM path
    {"dense.direct", "", CALL(dense(1, 1, 1)), nullptr, kNoGemm},
    // More rows than a gemv takes (AVX2): the packed GEMM.
    {"dense.gemm.kblocks", "", CALL(dense(gemm_rows(s), s["dense.kblock"] + 1, 1)),
     CALL(dense(gemm_rows(s), s["dense.kblock"], 1))},
    // One column panel: the rows split into chunks as soon as there are two row panels.
    {"dense.gemm.row_chunks", "", CALL(dense(s["dense.row_panel"] + 1, 1, 1)),
     CALL(dense(s["dense.row_panel"], 1, 1))},
    {"dense.gemm.partial_panel", "", CALL(dense(s["dense.row_panel"] + 1, 1, 1)),
     CALL(dense(s["dense.row_panel"], 1, 1))},
    {"dense.gemm.partial_panel", "", CALL(dense(s["dense.row_panel"] - 1, 1, 1)),
     CALL(dense(2 * s["dense.row_panel"], 1, 1))},
    {"dense.gemm.column_tail", "", CALL(dense(gemm_rows(s), 1, s["dense.lanes"] + 1)),
     CALL(dense(gemm_rows(s), 1, s["dense.lanes"]))},
    {"dense.gemm.column_tail", "", CALL(dense(gemm_rows(s), 1, s["dense.lanes"] - 1)),
     CALL(dense(gemm_rows(s), 1, s["dense.column_panel"]))},
    {"dense.gemm.mixed_dtype", "", CALL(dense(1, 1, 1, DType::kInt8, DType::kInt32)),
     CALL(dense(1, 1, 1, DType::kInt8, DType::kInt8))},
    {"dense.gemm.mixed_dtype", "", CALL(dense(1, 1, 1, DType::kInt32, DType::kInt8)),
     CALL(dense(1, 1, 1, DType::kInt32, DType::kInt32))},
    // The copy engine's view (optimized/transform_copy.h), after merging axes.
    {"copy.run", "", CALL(transpose({2, 3, 4}, "(1, 0, 2)")), CALL(transpose({3, 4}, "(1, 0)"))},
    {"copy.fill", "", CALL(repeat({2, 3}, 2, 1)), CALL(repeat({2, 3}, 2, 0))},
    {"copy.gather", "", CALL(transpose({3, 4}, "(1, 0)")),
     CALL(transpose({2, 3, 4}, "(1, 0, 2)"))},
    {"copy.tiled", "", CALL(transpose({s["copy.tile_side"], s["copy.tile_side"]}, "(1, 0)")),
     CALL(transpose({s["copy.tile_side"], s["copy.tile_side"] - 1}, "(1, 0)"))},
    {"copy.tiled", "", CALL(transpose({s["copy.tile_side"], s["copy.tile_side"]}, "(1, 0)")),
     CALL(transpose({s["copy.tile_side"] - 1, s["copy.tile_side"]}, "(1, 0)"))},
    {"copy.tiled.tiles", "", CALL(transpose({s["copy.tile"] + 1, s["copy.tile_side"]}, "(1, 0)")),
     CALL(transpose({s["copy.tile"], s["copy.tile"]}, "(1, 0)"))},
    {"copy.tiled.tiles", "", CALL(transpose({s["copy.tile_side"], s["copy.tile"] + 1}, "(1, 0)")),
     CALL(transpose({s["copy.tile"], s["copy.tile"]}, "(1, 0)"))},
    {"copy.one_row", "", CALL(transpose({2, 3}, "(0, 1)")), CALL(transpose({2, 3}, "(1, 0)"))},
  };
}

}  // namespace

const std::vector<PathRow>& optimized_path_rows() {
  static const std::vector<PathRow> kRows = [] {
    std::vector<PathRow> rows = pass_rows();
    for (PathRow& row : nn_and_copy_rows()) rows.push_back(std::move(row));
    return rows;
  }();
  return kRows;
}

}  // namespace cvm::path_oracle
