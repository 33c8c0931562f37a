// Generators of the nn family: conv2d, dense, relu, max_pool2d, upsampling (docs/ops/nn.md).
// Valid calls span every attribute range (both ends: padding and dilation up to 4095 with
// strides large enough to keep a few outputs), groups > 1 and depthwise, bias or not, int8 and
// int32 storage with values at the precision edges. Work per call stays below ~100k
// multiply-adds. Each invalid generator breaks one operator-specific rule.
#include <algorithm>
#include <limits>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kTopAttr = kMaxAttr - 1;  // 4095, the largest valid padding/stride/dilation

using gen::coin;
using gen::draw_precision;
using gen::rule;

// Uniform in [lo, hi], both inclusive (rapidcheck's inRange excludes its upper end).
int64_t pick(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }

int64_t one_of(std::vector<int64_t> values) { return *rc::gen::elementOf(values); }

std::string text_of(std::vector<std::string> values) { return *rc::gen::elementOf(values); }

// gen::tensor_any_dtype at full size for the same reason (small sizes give mostly 0 or -alpha).
Tensor tensor(const Shape& shape, int p) {
  return *rc::gen::resize(100, gen::tensor_any_dtype(shape, p));
}

// Spells a tuple attribute, leaving it out now and then when it equals the default.
void set_tuple(Call& call, const std::string& name, const std::vector<int64_t>& value,
               const std::vector<int64_t>& default_value) {
  if (value != default_value || coin()) call.attrs[name] = *gen::tuple_text(value);
}

// Entries of a valid pair, repeated to a length that is not 2 (0, 1, 3 or 4).
std::vector<int64_t> wrong_length(const std::vector<int64_t>& pair) {
  const int64_t length = one_of({0, 1, 3, 4});
  std::vector<int64_t> v;
  for (int64_t i = 0; i < length; ++i) v.push_back(pair[static_cast<size_t>(i % 2)]);
  return v;
}

// A tensor whose rank is anything but `rank`.
Tensor tensor_not_of_rank(int rank, int p) {
  std::vector<int64_t> ranks;
  for (int r = 1; r <= kMaxNdim; ++r) {
    if (r != rank) ranks.push_back(r);
  }
  const int r = static_cast<int>(one_of(ranks));
  return tensor(*gen::shape(r, r, 4, 256), p);
}

// The three rules of a pair attribute with entries in [lo, 4096): its length, an entry below lo,
// an entry above 4095. `draw` gives a valid call and the pair's current value.
template <typename Draw>
void add_pair_rules(std::vector<InvalidGenerator>& out, const std::string& attr, int64_t lo,
                    const std::string& below_rule, Draw draw) {
  out.push_back(rule(attr + "_wrong_length", [=] {
    auto [call, pair] = draw();
    call.attrs[attr] = *gen::tuple_text(wrong_length(pair));
    return call;
  }));
  out.push_back(rule(below_rule, [=] {
    auto [call, pair] = draw();
    pair[static_cast<size_t>(pick(0, 1))] = one_of({lo - 1, lo - 2, -kMaxAttr, kInt64Min});
    call.attrs[attr] = *gen::tuple_text(pair);
    return call;
  }));
  out.push_back(rule(attr + "_above_4095", [=] {
    auto [call, pair] = draw();
    pair[static_cast<size_t>(pick(0, 1))] = one_of({kMaxAttr, kMaxAttr + 1, int64_t{1} << 40,
                                                    kInt64Max});
    call.attrs[attr] = *gen::tuple_text(pair);
    return call;
  }));
}

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
void add_product_rules(std::vector<InvalidGenerator>& out, DrawFn draw, CallFn make_call) {
  out.push_back(rule("use_bias_disagrees_with_input_count", [=] {
    const auto d = draw();
    Call call = make_call(d);
    call.attrs["use_bias"] = *gen::bool_text(!d.use_bias);
    return call;
  }));
  out.push_back(rule("weight_shape_mismatch", [=] {
    const auto d = draw();
    Call call = make_call(d);
    call.inputs[1] = tensor(perturbed(call.inputs[1].shape()), d.p_weight);
    return call;
  }));
  out.push_back(rule("bias_shape_mismatch", [=] {
    auto d = draw();
    d.use_bias = true;
    Call call = make_call(d);
    call.inputs[2] = tensor(wrong_bias_shape(d.outputs()), d.p_bias);
    return call;
  }));
  // The output precision stays <= 32, so only the operand rule is broken.
  out.push_back(rule("data_precision_above_8", [=] {
    auto d = draw();
    d.p_data = static_cast<int>(pick(9, product_room(d.terms(), d.use_bias) - d.p_weight));
    return make_call(d);
  }));
  out.push_back(rule("weight_precision_above_8", [=] {
    auto d = draw();
    d.p_weight = static_cast<int>(pick(9, product_room(d.terms(), d.use_bias) - d.p_data));
    return make_call(d);
  }));
  out.push_back(rule("output_precision_above_32", [=] {
    auto d = draw();
    d.use_bias = true;
    d.p_bias = 32;  // max(..., 32) + 1 = 33
    return make_call(d);
  }));
}

// ---------------------------------------------------------------------------------- conv2d

struct ConvAxis {
  int64_t in = 1, kernel = 1, pad = 0, stride = 1, dilation = 1;
  int64_t dilated() const { return dilation * (kernel - 1) + 1; }
};

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

struct ConvDraw {
  int64_t batch = 1, in_channels = 1, channels = 1, groups = 1;
  ConvAxis h, w;
  bool use_bias = false;
  int p_data = 8, p_weight = 8, p_bias = 8;
  int64_t terms() const { return in_channels / groups * h.kernel * w.kernel; }
  int64_t outputs() const { return channels; }
};

ConvDraw draw_conv() {
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
  d.h = draw_conv_axis();
  d.w = draw_conv_axis();
  d.use_bias = coin();
  d.p_data = draw_precision(1, 8);
  d.p_weight = draw_precision(1, 8);
  // p_data + p_weight + bitlen(terms) <= 8 + 8 + 8 < 31, so any bias precision up to 31 fits.
  d.p_bias = draw_precision(1, 31);
  return d;
}

Call conv_call(const ConvDraw& d) {
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
  call.inputs.push_back(tensor({d.batch, d.in_channels, d.h.in, d.w.in}, d.p_data));
  call.inputs.push_back(
      tensor({d.channels, d.in_channels / d.groups, d.h.kernel, d.w.kernel}, d.p_weight));
  if (d.use_bias) call.inputs.push_back(tensor({d.channels}, d.p_bias));
  return call;
}

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

OpGenerators conv2d_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec(conv_valid);
  auto& out = g.invalid;
  add_product_rules(out, draw_conv, conv_call);
  out.push_back(rule("data_not_4d", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.inputs[0] = tensor_not_of_rank(4, d.p_data);
    return call;
  }));
  // channels <= 0 cannot match any weight tensor, whose dims are >= 1.
  out.push_back(rule("channels_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["channels"] = std::to_string(one_of({0, -1, -d.channels, kInt32Min}));
    return call;
  }));
  out.push_back(rule("groups_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["groups"] = std::to_string(one_of({0, -1, -d.groups, kInt32Min}));
    return call;
  }));
  out.push_back(rule("in_channels_not_divisible_by_groups", [] {
    ConvDraw d = draw_conv();
    d.batch = 1;
    d.groups = pick(2, 4);
    const int64_t whole = pick(1, 2);  // one draw per statement (evaluation order)
    d.in_channels = d.groups * whole + pick(1, d.groups - 1);
    d.channels = d.groups * pick(1, 2);
    return conv_call(d);  // the weight is shaped with floor(C / groups)
  }));
  out.push_back(rule("channels_not_divisible_by_groups", [] {
    ConvDraw d = draw_conv();
    d.groups = pick(2, 3);
    d.in_channels = d.groups * pick(1, 2);
    const int64_t whole = pick(1, 2);  // one draw per statement (evaluation order)
    d.channels = d.groups * whole + pick(1, d.groups - 1);
    return conv_call(d);
  }));
  out.push_back(rule("kernel_size_wrong_length", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    call.attrs["kernel_size"] = *gen::tuple_text(wrong_length({d.h.kernel, d.w.kernel}));
    return call;
  }));
  out.push_back(rule("kernel_size_below_1", [] {
    const ConvDraw d = draw_conv();
    Call call = conv_call(d);
    std::vector<int64_t> kernel = {d.h.kernel, d.w.kernel};
    kernel[static_cast<size_t>(pick(0, 1))] = one_of({0, -1, kInt64Min});
    call.attrs["kernel_size"] = *gen::tuple_text(kernel);
    return call;
  }));
  add_pair_rules(out, "strides", 1, "strides_below_1", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.stride, d.w.stride});
  });
  add_pair_rules(out, "padding", 0, "padding_negative", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.pad, d.w.pad});
  });
  add_pair_rules(out, "dilation", 1, "dilation_below_1", [] {
    const ConvDraw d = draw_conv();
    return std::make_pair(conv_call(d), std::vector<int64_t>{d.h.dilation, d.w.dilation});
  });
  out.push_back(rule("kernel_exceeds_padded_input", [] {
    ConvDraw d = draw_conv();
    (coin() ? d.h : d.w) = conv_axis_not_fitting();
    return conv_call(d);
  }));
  const std::vector<std::pair<std::string, std::vector<std::string>>> strings = {
      {"layout", {"NHWC", "nchw", "NCHW4c", "CHWN"}},
      {"kernel_layout", {"HWIO", "OHWI", "oihw"}},
      {"out_layout", {"NHWC", "", "__UNDEF__"}},
      {"out_dtype", {"int8", "float32", "int64", "Same"}}};
  for (const auto& attr_values : strings) {
    out.push_back(rule(attr_values.first + "_unsupported", [attr_values] {
      Call call = conv_valid();
      call.attrs[attr_values.first] = text_of(attr_values.second);
      return call;
    }));
  }
  return g;
}

// ----------------------------------------------------------------------------------- dense

struct DenseDraw {
  int64_t rows = 1, depth = 1, units = 1;
  bool use_bias = false;
  int p_data = 8, p_weight = 8, p_bias = 8;
  int64_t terms() const { return depth; }
  int64_t outputs() const { return units; }
};

DenseDraw draw_dense() {
  DenseDraw d;
  d.depth = *rc::gen::weightedElement<int64_t>({{4, pick(1, 16)}, {1, pick(17, 256)}});
  d.rows = pick(1, std::min<int64_t>(8, gen::kMaxElements / d.depth));
  d.units = pick(1, std::min<int64_t>(8, gen::kMaxElements / d.depth));
  d.use_bias = coin();
  d.p_data = draw_precision(1, 8);
  d.p_weight = draw_precision(1, 8);
  d.p_bias = draw_precision(1, 31);  // 8 + 8 + bitlen(256) < 31
  return d;
}

Call dense_call(const DenseDraw& d) {
  Call call;
  call.op = "dense";
  call.attrs["units"] = std::to_string(d.units);
  if (!d.use_bias || coin()) call.attrs["use_bias"] = *gen::bool_text(d.use_bias);
  call.inputs.push_back(tensor({d.rows, d.depth}, d.p_data));
  call.inputs.push_back(tensor({d.units, d.depth}, d.p_weight));
  if (d.use_bias) call.inputs.push_back(tensor({d.units}, d.p_bias));
  return call;
}

OpGenerators dense_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return dense_call(draw_dense()); });
  auto& out = g.invalid;
  add_product_rules(out, draw_dense, dense_call);
  out.push_back(rule("units_below_1", [] {
    const DenseDraw d = draw_dense();
    Call call = dense_call(d);
    call.attrs["units"] = std::to_string(one_of({0, -1, -d.units, kInt32Min}));
    return call;
  }));
  out.push_back(rule("data_not_2d", [] {
    const DenseDraw d = draw_dense();
    Call call = dense_call(d);
    call.inputs[0] = tensor_not_of_rank(2, d.p_data);
    return call;
  }));
  return g;
}

// ------------------------------------------------------------------------------------ relu

OpGenerators relu_generators() {
  OpGenerators g;  // no rules beyond the shared input-side ones
  g.valid = rc::gen::exec([] {
    Call call;
    call.op = "relu";
    const Shape shape = *gen::shape(1, 6);  // one draw per statement (evaluation order)
    call.inputs.push_back(tensor(shape, draw_precision(1, 32)));
    return call;
  });
  return g;
}

// ------------------------------------------------------------------------------ max_pool2d

struct PoolAxis {
  int64_t in = 1, pool = 1, pad = 0, stride = 1;
};

// In ceil mode the last window must start inside the input (always true in floor mode).
bool last_window_inside(const PoolAxis& a, bool ceil_mode) {
  const int64_t span = a.in + 2 * a.pad - a.pool;
  const int64_t last = ceil_mode ? (span + a.stride - 1) / a.stride : span / a.stride;
  return last * a.stride - a.pad < a.in;
}

PoolAxis draw_pool_axis(bool ceil_mode) {
  PoolAxis a;
  const bool wide = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
  a.in = wide ? pick(1, 4) : pick(1, 8);
  a.pad = wide ? *rc::gen::weightedElement<int64_t>({{1, kTopAttr}, {2, pick(2048, kTopAttr)}})
               : pick(0, 3);
  // A valid ceil-mode stride is at most pool - pad, so with a wide padding the pool must be
  // within 8 of the padded input for the outputs to stay few.
  const int64_t padded = a.in + 2 * a.pad;
  a.pool = pick(wide && ceil_mode ? std::max(a.pad + 1, padded - 8) : a.pad + 1, padded);
  // At most 9 outputs: span / stride <= 8 (+1 in ceil mode).
  const int64_t min_stride = (a.in + 2 * a.pad - a.pool) / 8 + 1;
  a.stride = *rc::gen::weightedElement<int64_t>(
      {{4, pick(min_stride, std::min(min_stride + 3, kTopAttr))}, {1, kTopAttr}});
  // Stride 1 always keeps the last window inside, so this ends.
  while (!last_window_inside(a, ceil_mode)) --a.stride;
  return a;
}

struct PoolDraw {
  int64_t batch = 1, chans = 1;
  PoolAxis h, w;
  bool ceil_mode = false;
  int p = 8;
};

PoolDraw draw_pool(bool ceil_mode) {
  PoolDraw d;
  d.batch = pick(1, 2);
  d.chans = pick(1, 3);
  d.ceil_mode = ceil_mode;
  d.h = draw_pool_axis(d.ceil_mode);
  d.w = draw_pool_axis(d.ceil_mode);
  d.p = draw_precision(1, 32);
  return d;
}

Call pool_call(const PoolDraw& d) {
  Call call;
  call.op = "max_pool2d";
  call.attrs["pool_size"] = *gen::tuple_text({d.h.pool, d.w.pool});
  set_tuple(call, "strides", {d.h.stride, d.w.stride}, {1, 1});
  if (d.h.pad == d.w.pad && coin()) {
    call.attrs["padding"] = *gen::tuple_text({d.h.pad});  // one entry: PH = PW
  } else {
    set_tuple(call, "padding", {d.h.pad, d.w.pad}, {0, 0});
  }
  if (coin()) call.attrs["layout"] = "NCHW";
  if (d.ceil_mode || coin()) call.attrs["ceil_mode"] = *gen::bool_text(d.ceil_mode);
  call.inputs.push_back(tensor({d.batch, d.chans, d.h.in, d.w.in}, d.p));
  return call;
}

// A draw with one axis (at random) replaced by `axis`.
PoolDraw pool_with_axis(PoolAxis axis, bool ceil_mode) {
  PoolDraw d = draw_pool(ceil_mode);
  (coin() ? d.h : d.w) = axis;
  return d;
}

// A small axis whose last window, in ceil mode, starts outside the input.
PoolAxis pool_axis_last_window_outside() {
  PoolAxis a;
  a.in = pick(2, 6);
  std::vector<PoolAxis> outside;
  for (int64_t pad = 0; pad <= 3; ++pad) {
    for (int64_t pool = pad + 1; pool <= a.in + 2 * pad; ++pool) {
      for (int64_t stride = 1; stride <= 8; ++stride) {
        const PoolAxis c{a.in, pool, pad, stride};
        if (!last_window_inside(c, true)) outside.push_back(c);
      }
    }
  }
  // Never empty for in >= 2: pool 1, pad 0, stride in + 1 has its second window at in + 1.
  return *rc::gen::elementOf(outside);
}

OpGenerators max_pool2d_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return pool_call(draw_pool(coin())); });
  auto& out = g.invalid;
  out.push_back(rule("data_not_4d", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    call.inputs[0] = tensor_not_of_rank(4, d.p);
    return call;
  }));
  out.push_back(rule("pool_size_wrong_length", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    call.attrs["pool_size"] = *gen::tuple_text(wrong_length({d.h.pool, d.w.pool}));
    return call;
  }));
  out.push_back(rule("pool_size_exceeds_padded_input", [] {
    PoolAxis a = draw_pool_axis(false);
    const int64_t padded = a.in + 2 * a.pad;
    a.pool = *rc::gen::weightedElement<int64_t>(
        {{4, pick(padded + 1, padded + 4)}, {1, kInt64Max}});
    return pool_call(pool_with_axis(a, coin()));
  }));
  // Includes pool sizes <= 0, which no padding >= 0 can be below.
  out.push_back(rule("padding_not_below_pool_size", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pool = *rc::gen::weightedElement<int64_t>({{4, pick(1, 3)}, {1, 0}, {1, -1}, {1, kInt64Min}});
    a.pad = a.pool >= 1 ? pick(a.pool, a.pool + 2) : pick(0, 2);
    a.in = std::max(a.in, a.pool);
    return pool_call(pool_with_axis(a, coin()));
  }));
  out.push_back(rule("padding_wrong_length", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    std::vector<int64_t> pads = {d.h.pad, d.w.pad};
    pads.resize(static_cast<size_t>(one_of({0, 3, 4})), d.h.pad);
    call.attrs["padding"] = *gen::tuple_text(pads);
    return call;
  }));
  out.push_back(rule("padding_negative", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pad = *rc::gen::weightedElement<int64_t>({{3, -1}, {1, -kMaxAttr}, {1, kInt64Min}});
    if (a.pad == -1) {  // keep the pool within the (shrunk) input: only the range is broken
      a.in = std::max<int64_t>(a.in, 3);
      a.pool = pick(1, a.in - 2);
    }
    return pool_call(pool_with_axis(a, false));
  }));
  out.push_back(rule("padding_above_4095", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pad = *rc::gen::weightedElement<int64_t>({{3, kMaxAttr}, {1, kInt64Max}});
    if (a.pad == kMaxAttr) a.pool = pick(kMaxAttr + 1, a.in + 2 * kMaxAttr);
    return pool_call(pool_with_axis(a, false));
  }));
  add_pair_rules(out, "strides", 1, "strides_below_1", [] {
    const PoolDraw d = draw_pool(coin());
    return std::make_pair(pool_call(d), std::vector<int64_t>{d.h.stride, d.w.stride});
  });
  out.push_back(rule("ceil_mode_last_window_outside", [] {
    return pool_call(pool_with_axis(pool_axis_last_window_outside(), true));
  }));
  out.push_back(rule("layout_unsupported", [] {
    Call call = pool_call(draw_pool(coin()));
    call.attrs["layout"] = text_of({"NHWC", "nchw", "NCHW4c"});
    return call;
  }));
  return g;
}

// ------------------------------------------------------------------------------ upsampling

// Outputs stay within 2^14 elements, so scales above 128 only appear in the examples' and
// the invalid rules' limits (docs/ops/nn.md).
Call upsampling_call(int64_t scale, const Shape& shape, int p) {
  Call call;
  call.op = "upsampling";
  call.attrs["scale"] = std::to_string(scale);
  if (coin()) call.attrs["layout"] = "NCHW";
  if (coin()) call.attrs["method"] = "NEAREST_NEIGHBOR";
  call.inputs.push_back(tensor(shape, p));
  return call;
}

Call upsampling_valid() {
  const int64_t scale =
      *rc::gen::weightedElement<int64_t>({{4, pick(1, 4)}, {2, pick(5, 32)}, {1, pick(33, 128)}});
  const int64_t budget = std::clamp<int64_t>((int64_t{1} << 14) / (scale * scale), 1, 512);
  const Shape shape = *gen::shape(4, 4, 8, budget);  // one draw per statement (evaluation order)
  return upsampling_call(scale, shape, draw_precision(1, 32));
}

OpGenerators upsampling_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec(upsampling_valid);
  auto& out = g.invalid;
  out.push_back(rule("data_not_4d", [] {
    Call call = upsampling_valid();
    call.inputs[0] = tensor_not_of_rank(4, call.inputs[0].precision());
    return call;
  }));
  out.push_back(rule("scale_below_1", [] {
    Call call = upsampling_valid();
    call.attrs["scale"] = std::to_string(one_of({0, -1, -kTopAttr, kInt32Min}));
    return call;
  }));
  out.push_back(rule("scale_above_4095", [] {
    Call call = upsampling_valid();
    call.attrs["scale"] = std::to_string(one_of({kMaxAttr, kMaxAttr + 1, kInt32Max}));
    return call;
  }));
  // Over 2^30 output elements (a dim over 2^24 needs an input too large to generate).
  out.push_back(rule("output_over_limits", [] {
    const int64_t scale = pick(2048, kTopAttr);
    const int64_t needed = kMaxElements / (scale * scale) + 1;  // <= 257 input elements
    const int64_t chans = pick(1, 2), height = pick(1, 8);
    const int64_t width = (needed + chans * height - 1) / (chans * height) + pick(0, 2);
    return upsampling_call(scale, {1, chans, height, width}, draw_precision(1, 32));
  }));
  out.push_back(rule("layout_unsupported", [] {
    Call call = upsampling_valid();
    call.attrs["layout"] = text_of({"NHWC", "nchw"});
    return call;
  }));
  out.push_back(rule("method_unsupported", [] {
    Call call = upsampling_valid();
    call.attrs["method"] = text_of({"BILINEAR", "nearest_neighbor", "NEAREST"});
    return call;
  }));
  return g;
}

}  // namespace

void add_nn_generators(GeneratorTable& table) {
  table["conv2d"] = conv2d_generators();
  table["dense"] = dense_generators();
  table["relu"] = relu_generators();
  table["max_pool2d"] = max_pool2d_generators();
  table["upsampling"] = upsampling_generators();
}

}  // namespace cvm
