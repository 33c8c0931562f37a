// conv2d and dense as oneDNN's int8 convolution and inner product: s8 data and weights (the
// contract bounds both by precision 8), s32 bias, s32 output, every layout chosen by oneDNN
// (format_tag::any) with its own reorders into and out of it, as an application would run them.
#include <stdexcept>

#include "infer/nn.h"
#include "onednn_common.h"

namespace cvm::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// Runs a forward primitive on user buffers in plain layouts: reorders the operands into the
// layouts the primitive chose, runs it, reorders the output back into `y`.
template <typename Primitive, typename Pd>
// Memory objects are handles: taken by value, as reorder::execute wants them mutable.
void run_plain(const Pd& pd, memory user_x, memory user_w, const memory* user_b, memory user_y) {
  memory x(pd.src_desc(), engine()), w(pd.weights_desc(), engine());
  memory y(pd.dst_desc(), engine());
  dnnl::reorder(user_x, x).execute(stream(), user_x, x);
  dnnl::reorder(user_w, w).execute(stream(), user_w, w);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}};
  if (user_b != nullptr) args[DNNL_ARG_BIAS] = *user_b;
  Primitive(pd).execute(stream(), args);
  dnnl::reorder(y, user_y).execute(stream(), y, user_y);
  stream().wait();
}

// The s32 bias operand (input 2), when the call has one: its values and their oneDNN memory
// (which points into the values, so both live together).
struct BiasMemory {
  std::vector<int32_t> values;
  memory mem;
  bool used = false;
  const memory* get() const { return used ? &mem : nullptr; }
};

BiasMemory bias_memory(const OpContext& ctx, bool use_bias, const memory::desc& desc) {
  BiasMemory b;
  b.used = use_bias;
  if (use_bias) {
    b.values = to_s32(ctx.inputs[2]);
    b.mem = memory(desc, engine(), b.values.data());
  }
  return b;
}

}  // namespace

std::vector<Tensor> conv2d(const OpContext& ctx) {
  const infer::Conv2dInference c = infer::infer_conv2d(ctx);
  Tensor out = infer::allocate(c.output);
  std::vector<int8_t> xs = to_s8(ctx.inputs[0]), ws = to_s8(ctx.inputs[1]);
  const memory::dims x_dims = {c.batch, c.in_channels, c.height, c.width};
  const memory::dims y_dims = {c.batch, c.channels, c.out_h, c.out_w};
  memory::dims w_dims = {c.channels, c.in_per_group, c.kernel_h, c.kernel_w};
  tag w_tag = tag::oihw;
  if (c.groups > 1) {
    w_dims = {c.groups, c.out_per_group, c.in_per_group, c.kernel_h, c.kernel_w};
    w_tag = tag::goihw;
  }
  const memory::dims strides = {c.stride_h, c.stride_w};
  // oneDNN counts dilation from 0 (no gaps); the contract from 1.
  const memory::dims dilation = {c.dilation_h - 1, c.dilation_w - 1};
  const memory::dims padding = {c.pad_h, c.pad_w};
  const memory::desc b_desc = c.use_bias ? memory::desc({c.channels}, dt::s32, tag::a)
                                         : memory::desc();
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(x_dims, dt::s8, tag::any), memory::desc(w_dims, dt::s8, tag::any), b_desc,
      memory::desc(y_dims, dt::s32, tag::any), strides, dilation, padding, padding);
  const dnnl::convolution_forward::primitive_desc pd(desc, engine());
  report_impl("conv2d", pd);
  const memory user_x({x_dims, dt::s8, tag::nchw}, engine(), xs.data());
  const memory user_w({w_dims, dt::s8, w_tag}, engine(), ws.data());
  const memory user_y({y_dims, dt::s32, tag::nchw}, engine(), out.i32());
  const BiasMemory bias = bias_memory(ctx, c.use_bias, b_desc);
  run_plain<dnnl::convolution_forward>(pd, user_x, user_w, bias.get(), user_y);
  return {std::move(out)};
}

std::vector<Tensor> dense(const OpContext& ctx) {
  const infer::DenseInference d = infer::infer_dense(ctx);
  Tensor out = infer::allocate(d.output);
  std::vector<int8_t> xs = to_s8(ctx.inputs[0]), ws = to_s8(ctx.inputs[1]);
  const memory::dims x_dims = {d.rows, d.depth}, w_dims = {d.units, d.depth};
  const memory::dims y_dims = {d.rows, d.units};
  const memory::desc b_desc = d.use_bias ? memory::desc({d.units}, dt::s32, tag::a)
                                         : memory::desc();
  const dnnl::inner_product_forward::desc desc(
      dnnl::prop_kind::forward_inference, memory::desc(x_dims, dt::s8, tag::any),
      memory::desc(w_dims, dt::s8, tag::any), b_desc, memory::desc(y_dims, dt::s32, tag::any));
  const dnnl::inner_product_forward::primitive_desc pd(desc, engine());
  report_impl("dense", pd);
  const memory user_x({x_dims, dt::s8, tag::nc}, engine(), xs.data());
  const memory user_w({w_dims, dt::s8, tag::oi}, engine(), ws.data());
  const memory user_y({y_dims, dt::s32, tag::nc}, engine(), out.i32());
  const BiasMemory bias = bias_memory(ctx, d.use_bias, b_desc);
  run_plain<dnnl::inner_product_forward>(pd, user_x, user_w, bias.get(), user_y);
  return {std::move(out)};
}

}  // namespace cvm::onednn
