// Optimized transform_shape family: repeat, tile, flatten, concatenate, expand_dims, reshape,
// squeeze, transpose. The shape-only operators are one flat copy; repeat, tile and transpose
// are strided views of the input for the copy engine (optimized/transform_copy.h), which merges
// axes into the longest runs; concatenate copies one run per (outer index, input). The flat
// copies (the shape-only operators, concatenate) check the input values in the same pass.
#include <algorithm>

#include "infer/transform_shape.h"
#include "optimized/fused_pass.h"
#include "optimized/kernels.h"
#include "optimized/transform_copy.h"

namespace cvm::opt {
namespace {

// flatten, expand_dims, reshape, squeeze: the row-major sequence under a new shape, copied by
// a pass that checks the input values from the same loads (optimized/fused_pass.h).
template <infer::OutputSpec (*kInfer)(const OpContext&)>
std::vector<Tensor> reshaping(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  Tensor y = infer::allocate(kInfer(ctx));
  const fused::Seen seen = with_data(ctx.inputs[0], [&](const auto* data) {
    return fused::unary(data, y.i32(), y.size(), fused::Identity{});
  });
  infer::check_input_values(ctx, 0, seen.lo, seen.hi);
  return results(std::move(y));
}

// Output axis `axis` split into (n_axis, repeats): the second walks nothing, so each element is
// repeated in place (a fill per element when the axis is innermost, a run copy per repeat
// otherwise).
std::vector<Tensor> repeat(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::RepeatInference inf = infer::infer_repeat(ctx);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  const std::vector<int64_t> in_stride = row_major_strides(x.shape());
  StridedView view;
  for (int i = 0; i < x.ndim(); ++i) {
    view.dims.push_back(x.dim(i));
    view.strides.push_back(in_stride[static_cast<size_t>(i)]);
    if (i == inf.axis) {
      view.dims.push_back(inf.repeats);
      view.strides.push_back(0);
    }
  }
  copy_view(x, view, y.i32());
  return results(std::move(y));
}

// Output axis j (SX_j * SR_j long) split into (SR_j, SX_j): the outer part walks nothing, the
// inner part walks the input axis, so index k_j reads k_j mod SX_j.
std::vector<Tensor> tile(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::TileInference inf = infer::infer_tile(ctx);
  Tensor y = infer::allocate(inf.output);
  const std::vector<int64_t> in_stride = row_major_strides(inf.source);
  StridedView view;
  for (size_t j = 0; j < inf.source.size(); ++j) {
    view.dims.push_back(inf.output.shape[j] / inf.source[j]);
    view.strides.push_back(0);
    view.dims.push_back(inf.source[j]);
    view.strides.push_back(in_stride[j]);
  }
  copy_view(ctx.inputs[0], view, y.i32());
  return results(std::move(y));
}

// Output axis i walks input axis axes[i]. When the input's innermost axis stays innermost the
// engine copies runs; when it moves, it copies in cache tiles.
std::vector<Tensor> transpose(const OpContext& ctx) {
  infer::validate_inputs(ctx, threads());
  const infer::TransposeInference inf = infer::infer_transpose(ctx);
  Tensor y = infer::allocate(inf.output);
  const Tensor& x = ctx.inputs[0];
  const std::vector<int64_t> in_stride = row_major_strides(x.shape());
  StridedView view;
  view.dims = inf.output.shape;
  for (int a : inf.axes) view.strides.push_back(in_stride[static_cast<size_t>(a)]);
  copy_view(x, view, y.i32());
  return results(std::move(y));
}

// Per outer index (the axes before `axis`), each input contributes one contiguous block of
// n_axis * (trailing size) values: run copies into its offset in the output row. The copies
// read every input value once, so they check the values too (optimized/fused_pass.h).
std::vector<Tensor> concatenate(const OpContext& ctx) {
  infer::validate_input_storage(ctx);
  const infer::ConcatInference inf = infer::infer_concatenate(ctx);
  Tensor y = infer::allocate(inf.output);
  const std::vector<Tensor>& in = ctx.inputs;
  const auto axis = static_cast<size_t>(inf.axis);
  int64_t outer = 1;
  for (size_t j = 0; j < axis; ++j) outer *= inf.output.shape[j];
  const int64_t row = y.size() / outer;  // one output row per outer index
  // Blocks are cut in pieces of at most kPiece values, so that few large inputs still split
  // among threads; piece_end[k] counts the pieces of inputs 0..k.
  constexpr int64_t kPiece = int64_t{1} << 16;
  std::vector<int64_t> block(in.size()), start(in.size()), piece_end(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    block[k] = in[k].size() / outer;
    start[k] = k == 0 ? 0 : start[k - 1] + block[k - 1];
    piece_end[k] = (k == 0 ? 0 : piece_end[k - 1]) + (block[k] + kPiece - 1) / kPiece;
  }
  const int64_t pieces = piece_end.back();
  int32_t* out = y.i32();
  const auto copy8 = fused::unary_pass<int8_t, fused::Identity>();
  const auto copy32 = fused::unary_pass<int32_t, fused::Identity>();
  std::vector<fused::Seen> seen(in.size());
  split_range(outer * pieces, y.size(), [&](int64_t w0, int64_t w1) {
    std::vector<fused::Seen> mine(in.size());
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t o = w / pieces, p = w % pieces;
      const auto k = static_cast<size_t>(
          std::upper_bound(piece_end.begin(), piece_end.end(), p) - piece_end.begin());
      const int64_t first = (p - (k == 0 ? 0 : piece_end[k - 1])) * kPiece;
      const int64_t count = std::min(kPiece, block[k] - first);
      const int64_t from = o * block[k] + first;
      int32_t* to = out + o * row + start[k] + first;
      if (in[k].dtype() == DType::kInt8) {
        copy8(in[k].i8() + from, to, count, {}, &mine[k]);
      } else {
        copy32(in[k].i32() + from, to, count, {}, &mine[k]);
      }
    }
#pragma omp critical(cvm_concatenate_merge)
    for (size_t k = 0; k < in.size(); ++k) seen[k].merge(mine[k]);
  });
  for (size_t k = 0; k < in.size(); ++k) {
    infer::check_input_values(ctx, k, seen[k].lo, seen[k].hi);
  }
  return results(std::move(y));
}

}  // namespace

void add_transform_shape(Backend& backend) {
  backend.add("repeat", repeat);
  backend.add("tile", tile);
  backend.add("flatten", reshaping<infer::infer_flatten>);
  backend.add("concatenate", concatenate);
  backend.add("expand_dims", reshaping<infer::infer_expand_dims>);
  backend.add("reshape", reshaping<infer::infer_reshape>);
  backend.add("squeeze", reshaping<infer::infer_squeeze>);
  backend.add("transpose", transpose);
}

}  // namespace cvm::opt
