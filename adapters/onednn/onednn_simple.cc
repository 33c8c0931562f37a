// relu (eltwise), max_pool2d (pooling) and the elementwise/broadcast arithmetic (binary) on s32,
// oneDNN's integer type for these primitives.
#include <algorithm>
#include <map>

#include "infer/elementwise.h"
#include "infer/nn.h"
#include "onednn_common.h"

namespace cvm::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

memory::desc s32_desc(const Shape& shape) {
  return memory::desc(dims_of(shape), dt::s32, plain_tag(shape.size()));
}

// `values` of shape `from` (the output's rank, size-1 dims broadcast) copied out to shape `to`.
// oneDNN's binary broadcasts its second source only, so a first operand that needs it is
// expanded here: a copy, no arithmetic.
std::vector<int32_t> expand(const std::vector<int32_t>& values, const Shape& from, const Shape& to) {
  const int64_t total = shape_size(to);
  std::vector<int32_t> out(static_cast<size_t>(total));
  const std::vector<int64_t> from_strides = row_major_strides(from);
  std::vector<int64_t> index(to.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < to.size(); ++d) src += (from[d] == 1 ? 0 : index[d]) * from_strides[d];
    out[static_cast<size_t>(i)] = values[static_cast<size_t>(src)];
    for (size_t d = to.size(); d-- > 0;) {
      if (++index[d] < to[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

const std::map<std::string, dnnl::algorithm>& binary_algorithms() {
  static const std::map<std::string, dnnl::algorithm> table = {
      {"elemwise_add", dnnl::algorithm::binary_add}, {"elemwise_sub", dnnl::algorithm::binary_sub},
      {"broadcast_add", dnnl::algorithm::binary_add}, {"broadcast_sub", dnnl::algorithm::binary_sub},
      {"broadcast_mul", dnnl::algorithm::binary_mul}, {"broadcast_max", dnnl::algorithm::binary_max},
      {"broadcast_greater", dnnl::algorithm::binary_gt}};
  return table;
}

}  // namespace

std::vector<Tensor> relu(const OpContext& ctx) {
  Tensor out = infer::allocate(infer::infer_relu(ctx));
  std::vector<int32_t> xs = to_s32(ctx.inputs[0]);
  const memory::desc md = s32_desc(out.shape());
  const dnnl::eltwise_forward::primitive_desc pd(
      {dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_relu, md, 0.f}, engine());
  report_impl("relu", pd);
  const memory x(md, engine(), xs.data()), y(md, engine(), out.i32());
  dnnl::eltwise_forward(pd).execute(stream(), {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
  stream().wait();
  return {std::move(out)};
}

std::vector<Tensor> max_pool2d(const OpContext& ctx) {
  const infer::MaxPool2dInference m = infer::infer_max_pool2d(ctx);
  Tensor out = infer::allocate(m.output);
  std::vector<int32_t> xs = to_s32(ctx.inputs[0]);
  // oneDNN's output length is floor((H + PL + PR - PSH) / SH) + 1: ceil mode is a larger right
  // padding, just enough for the contract's last window (padding never wins a maximum).
  const memory::dims pad_l = {m.pad_h, m.pad_w};
  const memory::dims pad_r = {std::max(m.pad_h, (m.out_h - 1) * m.stride_h + m.pool_h - m.height - m.pad_h),
                              std::max(m.pad_w, (m.out_w - 1) * m.stride_w + m.pool_w - m.width - m.pad_w)};
  const memory::desc x_md = s32_desc({m.batch, m.channels, m.height, m.width});
  const memory::desc y_md = s32_desc(out.shape());
  const dnnl::pooling_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, x_md, y_md,
      {m.stride_h, m.stride_w}, {m.pool_h, m.pool_w}, pad_l, pad_r);
  const dnnl::pooling_forward::primitive_desc pd(desc, engine());
  report_impl("max_pool2d", pd);
  const memory x(x_md, engine(), xs.data()), y(y_md, engine(), out.i32());
  dnnl::pooling_forward(pd).execute(stream(), {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
  stream().wait();
  return {std::move(out)};
}

std::vector<Tensor> binary_op(const OpContext& ctx) {
  const std::string& name = ctx.op.name;
  infer::validate_input_storage(ctx);
  infer::BroadcastInference b;
  if (name.rfind("elemwise_", 0) == 0) {
    b.output = infer::infer_elemwise_binary(ctx);
    b.a_shape = b.b_shape = b.output.shape;
  } else {
    b = infer::infer_broadcast(ctx, name);
  }
  infer::validate_inputs(ctx);
  Tensor out = infer::allocate(b.output);
  std::vector<int32_t> as = to_s32(ctx.inputs[0]), bs = to_s32(ctx.inputs[1]);
  if (b.a_shape != b.output.shape) as = expand(as, b.a_shape, b.output.shape);
  const memory::desc a_md = s32_desc(b.output.shape), b_md = s32_desc(b.b_shape);
  const dnnl::binary::primitive_desc pd({binary_algorithms().at(name), a_md, b_md, a_md},
                                        engine());
  report_impl(name, pd);
  const memory a(a_md, engine(), as.data()), bm(b_md, engine(), bs.data());
  const memory y(a_md, engine(), out.i32());
  dnnl::binary(pd).execute(stream(), {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, y}});
  stream().wait();
  return {std::move(out)};
}

}  // namespace cvm::onednn
