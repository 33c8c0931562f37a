// Generators of the nn family (docs/ops/nn.md): conv2d, dense and relu here; max_pool2d and
// upsampling in harness/gen/nn_window_gen.cc.
// Valid calls span every attribute range (both ends: padding and dilation up to 4095 with
// strides large enough to keep a few outputs), groups > 1 and depthwise, bias or not, int8 and
// int32 storage with values at the precision edges. Work per call stays below ~100k
// multiply-adds. Each invalid generator breaks one operator-specific rule.
#include <algorithm>
#include <limits>

#include "harness/gen/nn_gen_common.h"
#include "harness/gen/path_aim.h"

namespace cvm {
namespace {

using namespace nn_gen;  // the family's helpers (harness/gen/nn_gen_common.h)

// `shape` with one dim off by one, or with one dim more or fewer.
Shape perturbed(Shape shape) {
  const auto axis = static_cast<size_t>(pick(0, static_cast<int64_t>(shape.size())));
  if (axis == shape.size()) {
    if (coin()) shape.push_back(1); else shape.pop_back();
  } else {
    shape[axis] += shape[axis] > 1 && coin() ? -1 : 1;
  }
  return shape;
}

// A bias shape other than (n,).
Shape wrong_bias_shape(int64_t n) {
  std::vector<Shape> wrong = {{n + 1}, {n, 1}, {1, n}};
  if (n > 1) wrong.push_back({n - 1});
  return *rc::gen::elementOf(wrong);
}

// The room left for p_data + p_weight when the output precision must stay <= 32.
int product_room(int64_t terms, bool use_bias) {
  return 32 - bitlen(static_cast<uint64_t>(terms)) - (use_bias ? 1 : 0);
}

// The rules conv2d and dense share. A draw has use_bias, p_data, p_weight, p_bias, terms()
// (products per output) and outputs() (channels or units); the call's inputs are X, W[, B].
template <typename DrawFn, typename CallFn>
void add_product_rules(std::vector<InvalidGenerator>& rules, DrawFn draw, CallFn make_call) {
  add_rule(rules, "use_bias_disagrees_with_input_count", [=] {
    const auto d = draw();
    Call call = make_call(d);
    call.attrs["use_bias"] = *gen::bool_text(!d.use_bias);
    return call;
  });
  add_rule(rules, "weight_shape_mismatch", [=] {
    const auto d = draw();
    Call call = make_call(d);
    call.inputs[1] = tensor(perturbed(call.inputs[1].shape()), d.p_weight);
    return call;
  });
  add_rule(rules, "bias_shape_mismatch", [=] {
    auto d = draw();
    d.use_bias = true;
    Call call = make_call(d);
    call.inputs[2] = tensor(wrong_bias_shape(d.outputs()), d.p_bias);
    return call;
  });
  // The output precision stays <= 32, so only the operand rule is broken.
  add_rule(rules, "data_precision_above_8", [=] {
    auto d = draw();
    d.p_data = static_cast<int>(pick(9, product_room(d.terms(), d.use_bias) - d.p_weight));
    return make_call(d);
  });
  add_rule(rules, "weight_precision_above_8", [=] {
    auto d = draw();
    d.p_weight = static_cast<int>(pick(9, product_room(d.terms(), d.use_bias) - d.p_data));
    return make_call(d);
  });
  add_rule(rules, "output_precision_above_32", [=] {
    auto d = draw();
    d.use_bias = true;
    d.p_bias = 32;  // max(..., 32) + 1 = 33
    return make_call(d);
  });
}

// ---------------------------------------------------------------------------------- conv2d

ConvAxis draw_conv_axis() {
  ConvAxis a;
  const bool wide = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
  if (wide) {
    // The top of the ranges; padding >= 2048 lets a dilation of 4095 fit a kernel of 2.
    a.pad = *rc::gen::weightedElement<int64_t>({{1, kTopAttr}, {2, pick(2048, kTopAttr)}});
    a.kernel = pick(1, 2);
    a.dilation = one_of({1, kTopAttr, pick(1, kTopAttr)});
    a.in = pick(1, 4);
  } else {
    a.kernel = pick(1, 3);
    a.dilation = pick(1, 3);
    a.pad = pick(0, 2);
    a.in = std::max<int64_t>(1, a.dilated() - 2 * a.pad) + pick(0, 5);
  }
  // Output length span / stride + 1: at most 10 on small axes, 4 on wide ones.
  const int64_t span = a.in + 2 * a.pad - a.dilated();
  const int64_t min_stride = wide ? span / 4 + 1 : 1;
  a.stride = *rc::gen::weightedElement<int64_t>(
      {{4, pick(min_stride, std::min(min_stride + 2, kTopAttr))}, {1, kTopAttr}});
  return a;
}

// Now and then (1 draw in 24: the work is a few million multiply-adds) a large image on a small
// kernel, its element count near an "elements" threshold: the data's value check over several
// chunks, and many pixel blocks per channel panel.
void aim_conv_image(ConvDraw& d) {
  const auto elements = gen::aimed("conv2d", "elements", 1, 80000, 24);
  if (!elements) return;
  d.batch = 1;
  d.groups = 1;
  d.in_channels = pick(1, 3);
  // Often near a panel height too: several panels over many pixel blocks.
  d.channels = gen::aimed("conv2d", "channels_per_group", 1, 24, 2).value_or(pick(1, 10));
  ConvAxis axis;
  axis.kernel = pick(1, 3);
  axis.pad = pick(0, 1);
  axis.stride = pick(1, 2);
  axis.in = pick(16, 128);
  d.h = axis;
  d.w = axis;
  d.w.in = std::max<int64_t>(axis.dilated(), *elements / (d.in_channels * axis.in));
}

// Now and then (1 draw in 6 while a backend declares its vector lanes) an output row on either
// side of a multiple of the lanes, up to 72 pixels, on a few rows: the direct kernels' strips of
// several vectors and their tails (a depthwise row of 17 pixels takes two 16-lane vectors, and
// the ordinary draws' rows stop at 10), and the GEMM's vectors that end a row.
void aim_conv_row(ConvDraw& d) {
  const auto width = gen::aimed("conv2d", "out_width", 1, 72);
  if (!width) return;
  ConvAxis w;
  w.kernel = pick(1, 3);
  w.pad = pick(0, 1);
  w.in = std::max<int64_t>(1, *width + w.kernel - 1 - 2 * w.pad);
  ConvAxis h;
  h.kernel = pick(1, 3);
  h.pad = pick(0, 1);
  h.in = std::max<int64_t>(1, h.kernel - 2 * h.pad) + pick(0, 2);
  d.h = h;
  d.w = w;
}

// Now and then (1 draw in 6 while a backend declares a GEMM tile) a convolution whose implicit
// GEMM fills whole tiles: output channels per group near the tile's width, a depth of several
// K slices with a tail (8 to 12 input channels per group under a 3 x 3 kernel: 72 to 108 taps)
// and at least 64 output pixels, so that a run of conv2d alone takes the full tile, the K slices
// and the K tail (docs/paths.md).
void aim_conv_gemm_tile(ConvDraw& d) {
  const auto width = gen::aimed("conv2d", "gemm_tile", 1, 72);
  if (!width) return;
  d.batch = 1;
  d.groups = pick(1, 2);
  d.channels = d.groups * *width;
  d.in_channels = d.groups * std::max<int64_t>(8, pick(8, 12));
  ConvAxis axis;
  axis.kernel = 3;
  axis.pad = 1;
  axis.in = std::max<int64_t>(8, pick(8, 10));
  d.h = axis;
  d.w = axis;
}

// Now and then, while a campaign aims at a "precision" threshold (AVX2's vpmaddubsw limit,
// 7: exact where a side has at most 7 bits), both precisions on either side of it (8 three
// times in five), half of those calls at the saturation edge (see ConvDraw::edge).
template <typename Draw>
void aim_precisions(const std::string& op, Draw& d) {
  const auto p_data = gen::aimed(op, "precision", 1, 8);
  if (!p_data) return;
  d.p_data = static_cast<int>(*p_data);
  d.p_weight = static_cast<int>(gen::aimed(op, "precision", 1, 8, 1).value_or(8));
  d.edge = coin();
  d.edge_sign = coin() ? 1 : -1;
}

// A tensor of precision p whose values are all sign * alpha(p), int8 or int32.
Tensor edge_tensor(const Shape& shape, int p, int sign) {
  const std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)),
                               static_cast<int32_t>(sign * alpha(p)));
  return Tensor::from_values(shape, v, p, coin() ? DType::kInt8 : DType::kInt32);
}

// The data and weights of a draw: drawn values, or the saturation edge.
template <typename Draw>
void push_operands(Call& call, const Draw& d, const Shape& x, const Shape& w) {
  call.inputs.push_back(d.edge ? edge_tensor(x, d.p_data, 1) : tensor(x, d.p_data));
  call.inputs.push_back(d.edge ? edge_tensor(w, d.p_weight, d.edge_sign) : tensor(w, d.p_weight));
}

}  // namespace

nn_gen::ConvDraw nn_gen::draw_conv() {
  ConvDraw d;
  d.batch = pick(1, 2);
  switch (pick(0, 2)) {
    case 0:  // ordinary
      d.in_channels = pick(1, 4);
      d.channels = pick(1, 4);
      break;
    case 1:  // grouped
      d.groups = pick(2, 3);
      d.in_channels = d.groups * pick(1, 2);
      d.channels = d.groups * pick(1, 2);
      break;
    default:  // depthwise
      d.in_channels = pick(1, 4);
      d.groups = d.in_channels;
      d.channels = d.in_channels;
  }
  // Now and then output channels per group on either side of a panel height (full and partial
  // panels, several panels per task) or of a CUDA GEMM tile's width (64: the cap lets a conv
  // fill one, the only conv2d call that takes cuda-host's full-tile path).
  const auto per_group = gen::aimed("conv2d", "channels_per_group", 1, 72);
  if (per_group) d.channels = d.groups * *per_group;
  d.h = draw_conv_axis();
  d.w = draw_conv_axis();
  if (per_group && coin()) {
    // Several panels on a small image (one or two pixel blocks): the panels are split into
    // ranges so that even one thread has several tasks, and a task runs several panels.
    ConvAxis small;
    small.kernel = pick(1, 3);
    small.pad = 1;
    small.in = std::max<int64_t>(2, pick(2, 4));
    d.h = small;
    d.w = small;
    // Two input channels per group at least: the implicit GEMM, not the direct kernel.
    d.in_channels = d.groups * std::max<int64_t>(2, d.in_channels / d.groups);
  }
  aim_conv_row(d);
  aim_conv_image(d);
  aim_conv_gemm_tile(d);
  d.use_bias = coin();
  d.p_data = draw_precision(1, 8);
  d.p_weight = draw_precision(1, 8);
  // p_data + p_weight + bitlen(terms) <= 8 + 8 + 8 < 31, so any bias precision up to 31 fits.
  d.p_bias = draw_precision(1, 31);
  aim_precisions("conv2d", d);
  return d;
}

Call nn_gen::conv_call(const ConvDraw& d) {
  Call call;
  call.op = "conv2d";
  call.attrs["channels"] = std::to_string(d.channels);
  call.attrs["kernel_size"] = *gen::tuple_text({d.h.kernel, d.w.kernel});
  set_tuple(call, "strides", {d.h.stride, d.w.stride}, {1, 1});
  set_tuple(call, "padding", {d.h.pad, d.w.pad}, {0, 0});
  set_tuple(call, "dilation", {d.h.dilation, d.w.dilation}, {1, 1});
  if (d.groups != 1 || coin()) call.attrs["groups"] = std::to_string(d.groups);
  if (coin()) call.attrs["layout"] = "NCHW";
  if (coin()) call.attrs["kernel_layout"] = "OIHW";
  if (coin()) call.attrs["out_layout"] = text_of({"__undef__", "NCHW"});
  if (coin()) call.attrs["out_dtype"] = text_of({"same", "int32"});
  if (!d.use_bias || coin()) call.attrs["use_bias"] = *gen::bool_text(d.use_bias);
  push_operands(call, d, {d.batch, d.in_channels, d.h.in, d.w.in},
                {d.channels, d.in_channels / d.groups, d.h.kernel, d.w.kernel});
  if (d.use_bias) call.inputs.push_back(tensor({d.channels}, d.p_bias));
  return call;
}

namespace {

Call conv_valid() { return conv_call(draw_conv()); }

// An axis whose dilated kernel is longer than the padded input.
ConvAxis conv_axis_not_fitting() {
  ConvAxis a;
  a.kernel = pick(2, 4);
  a.dilation = *rc::gen::weightedElement<int64_t>({{4, pick(1, 3)}, {1, kTopAttr}});
  a.pad = pick(0, std::min((a.dilated() - 2) / 2, kTopAttr));
  a.in = pick(1, std::min<int64_t>(a.dilated() - 2 * a.pad - 1, 12));
  a.stride = pick(1, 3);
  return a;
}

// The axis made a kernel whose dilated span passes 2^31 (dilation 4095, a kernel of about 2^19
// taps, one channel): the span must be computed in 64 bits to see that it does not fit. The
// other axis gets a kernel of 1, which keeps W near 2^19 elements. Two in three draws of the
// rule while a campaign aims: the rule is one of conv2d's 60.
void conv_span_past_int32(ConvDraw& d, bool on_h) {
  ConvAxis& axis = on_h ? d.h : d.w;
  ConvAxis& other = on_h ? d.w : d.h;
  d.batch = d.in_channels = d.channels = d.groups = 1;
  other.kernel = other.dilation = 1;
  axis.dilation = kTopAttr;
  axis.kernel = (int64_t{1} << 31) / kTopAttr + *rc::gen::inRange<int64_t>(2, 6);
}

OpGenerators conv2d_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec(conv_valid);
  add_product_rules(g.invalid, draw_conv, conv_call);
  add_rule(g.invalid, "data_not_4d", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.inputs[0] = tensor_not_of_rank(4, d.p_data);
    return call;
  });
  // channels <= 0 cannot match any weight tensor, whose dims are >= 1.
  add_rule(g.invalid, "channels_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["channels"] = std::to_string(one_of({0, -1, -d.channels, kInt32Min}));
    return call;
  });
  add_rule(g.invalid, "groups_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["groups"] = std::to_string(one_of({0, -1, -d.groups, kInt32Min}));
    return call;
  });
  add_rule(g.invalid, "in_channels_not_divisible_by_groups", [] {
    ConvDraw d = draw_conv();
    d.batch = 1;
    d.groups = pick(2, 4);
    const int64_t whole = pick(1, 2);  // one draw per statement (evaluation order)
    d.in_channels = d.groups * whole + pick(1, d.groups - 1);
    d.channels = d.groups * pick(1, 2);
    return conv_call(d);  // the weight is shaped with floor(C / groups)
  });
  add_rule(g.invalid, "channels_not_divisible_by_groups", [] {
    ConvDraw d = draw_conv();
    d.groups = pick(2, 3);
    d.in_channels = d.groups * pick(1, 2);
    const int64_t whole = pick(1, 2);  // one draw per statement (evaluation order)
    d.channels = d.groups * whole + pick(1, d.groups - 1);
    return conv_call(d);
  });
  add_rule(g.invalid, "kernel_size_wrong_length", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["kernel_size"] = *gen::tuple_text(wrong_length({d.h.kernel, d.w.kernel}));
    return call;
  });
  add_rule(g.invalid, "kernel_size_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    std::vector<int64_t> kernel = {d.h.kernel, d.w.kernel};
    kernel[static_cast<size_t>(pick(0, 1))] = one_of({0, -1, kInt64Min});
    call.attrs["kernel_size"] = *gen::tuple_text(kernel);
    return call;
  });
  add_pair_rules(g.invalid, "strides", 1, "strides_below_1", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.stride, d.w.stride});
  });
  add_pair_rules(g.invalid, "padding", 0, "padding_negative", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.pad, d.w.pad});
  });
  add_pair_rules(g.invalid, "dilation", 1, "dilation_below_1", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.dilation, d.w.dilation});
  });
  add_rule(g.invalid, "kernel_exceeds_padded_input", [] {
    ConvDraw d = draw_conv();
    const ConvAxis not_fitting = conv_axis_not_fitting();  // drawn before the coin (golden)
    const bool on_h = coin();
    (on_h ? d.h : d.w) = not_fitting;
    if (gen::aiming() && *rc::gen::inRange(0, 3) != 0) conv_span_past_int32(d, on_h);
    return conv_call(d);
  });
  const std::vector<std::pair<std::string, std::vector<std::string>>> strings = {
      {"layout", {"NHWC", "nchw", "NCHW4c", "CHWN"}},
      {"kernel_layout", {"HWIO", "OHWI", "oihw"}},
      {"out_layout", {"NHWC", "", "__UNDEF__"}},
      {"out_dtype", {"int8", "float32", "int64", "Same"}}};
  for (const auto& attr_values : strings) {
    add_rule(g.invalid, attr_values.first + "_unsupported", [attr_values] {
      Call call = conv_valid();
      call.attrs[attr_values.first] = text_of(attr_values.second);
      return call;
    });
  }
  return g;
}

// ----------------------------------------------------------------------------------- dense

}  // namespace

nn_gen::DenseDraw nn_gen::draw_dense() {
  DenseDraw d;
  d.depth = *rc::gen::weightedElement<int64_t>({{4, pick(1, 16)}, {1, pick(17, 256)}});
  d.rows = pick(1, std::min<int64_t>(8, gen::kMaxElements / d.depth));
  d.units = pick(1, std::min<int64_t>(8, gen::kMaxElements / d.depth));
  // Now and then a size on either side of a path threshold (a k-block's depth, a row panel,
  // the vector lanes, a column panel), the others kept small: work stays under ~1M terms.
  if (const auto depth = gen::aimed("dense", "depth", 1, 12288)) {
    d.depth = *depth;
    // The gemv (AVX2: 1 or 2 rows) and, two draws in three, the packed GEMM's k-blocks.
    d.rows = pick(1, 6);
    d.units = pick(1, 12);
  }
  if (const auto rows = gen::aimed("dense", "rows", 1, 64)) d.rows = *rows;
  if (const auto units = gen::aimed("dense", "units", 1, 200)) d.units = *units;
  d.use_bias = coin();
  d.p_data = draw_precision(1, 8);
  d.p_weight = draw_precision(1, 8);
  d.p_bias = draw_precision(1, 31);  // 8 + 8 + bitlen(256) < 31
  aim_precisions("dense", d);
  return d;
}

Call nn_gen::dense_call(const DenseDraw& d) {
  Call call;
  call.op = "dense";
  call.attrs["units"] = std::to_string(d.units);
  if (!d.use_bias || coin()) call.attrs["use_bias"] = *gen::bool_text(d.use_bias);
  push_operands(call, d, {d.rows, d.depth}, {d.units, d.depth});
  if (d.use_bias) call.inputs.push_back(tensor({d.units}, d.p_bias));
  return call;
}

namespace {

OpGenerators dense_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return dense_call(draw_dense()); });
  add_product_rules(g.invalid, draw_dense, dense_call);
  add_rule(g.invalid, "units_below_1", [] {
    const DenseDraw d = draw_dense();
    Call call = dense_call(d);
    call.attrs["units"] = std::to_string(one_of({0, -1, -d.units, kInt32Min}));
    return call;
  });
  add_rule(g.invalid, "data_not_2d", [] {
    const DenseDraw d = draw_dense();
    Call call = dense_call(d);
    call.inputs[0] = tensor_not_of_rank(2, d.p_data);
    return call;
  });
  return g;
}

// ------------------------------------------------------------------------------------ relu

OpGenerators relu_generators() {
  OpGenerators g;  // no rules beyond the shared input-side ones
  g.valid = rc::gen::exec([] {
    Call call;
    call.op = "relu";
    const Shape shape = gen::shape_aimed("relu", 1, 6);  // one draw per statement
    call.inputs.push_back(tensor(shape, draw_precision(1, 32)));
    return call;
  });
  return g;
}

}  // namespace

void add_nn_generators(GeneratorTable& table) {
  table["conv2d"] = conv2d_generators();
  table["conv2d"].invalid_at_scale = nn_gen::conv2d_at_scale();
  table["dense"] = dense_generators();
  table["dense"].invalid_at_scale = nn_gen::dense_at_scale();
  table["relu"] = relu_generators();
  table["max_pool2d"] = nn_gen::max_pool2d_generators();
  table["upsampling"] = nn_gen::upsampling_generators();
}

}  // namespace cvm
