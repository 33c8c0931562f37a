// Generators of the nn family's window and scale operators, max_pool2d and upsampling
// (docs/ops/nn.md), apart from conv2d, dense and relu (harness/gen/nn_gen.cc) for length.
// Pools span both layouts of ceil mode, padding up to the window and windows whose last start
// leaves the input; upsampling keeps its outputs small.
#include "harness/gen/nn_gen_common.h"

namespace cvm::nn_gen {
namespace {

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

}  // namespace

OpGenerators max_pool2d_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return pool_call(draw_pool(coin())); });
  add_rule(g.invalid, "data_not_4d", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    call.inputs[0] = tensor_not_of_rank(4, d.p);
    return call;
  });
  add_rule(g.invalid, "pool_size_wrong_length", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    call.attrs["pool_size"] = *gen::tuple_text(wrong_length({d.h.pool, d.w.pool}));
    return call;
  });
  add_rule(g.invalid, "pool_size_exceeds_padded_input", [] {
    PoolAxis a = draw_pool_axis(false);
    const int64_t padded = a.in + 2 * a.pad;
    a.pool = *rc::gen::weightedElement<int64_t>(
        {{4, pick(padded + 1, padded + 4)}, {1, kInt64Max}});
    return pool_call(pool_with_axis(a, coin()));
  });
  // Includes pool sizes <= 0, which no padding >= 0 can be below.
  add_rule(g.invalid, "padding_not_below_pool_size", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pool = *rc::gen::weightedElement<int64_t>({{4, pick(1, 3)}, {1, 0}, {1, -1}, {1, kInt64Min}});
    a.pad = a.pool >= 1 ? pick(a.pool, a.pool + 2) : pick(0, 2);
    a.in = std::max(a.in, a.pool);
    return pool_call(pool_with_axis(a, coin()));
  });
  add_rule(g.invalid, "padding_wrong_length", [] {
    const PoolDraw d = draw_pool(coin());
    Call call = pool_call(d);
    std::vector<int64_t> pads = {d.h.pad, d.w.pad};
    pads.resize(static_cast<size_t>(one_of({0, 3, 4})), d.h.pad);
    call.attrs["padding"] = *gen::tuple_text(pads);
    return call;
  });
  add_rule(g.invalid, "padding_negative", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pad = *rc::gen::weightedElement<int64_t>({{3, -1}, {1, -kMaxAttr}, {1, kInt64Min}});
    if (a.pad == -1) {  // keep the pool within the (shrunk) input: only the range is broken
      a.in = std::max<int64_t>(a.in, 3);
      a.pool = pick(1, a.in - 2);
    }
    return pool_call(pool_with_axis(a, false));
  });
  add_rule(g.invalid, "padding_above_4095", [] {
    PoolAxis a = draw_pool_axis(false);
    a.pad = *rc::gen::weightedElement<int64_t>({{3, kMaxAttr}, {1, kInt64Max}});
    if (a.pad == kMaxAttr) a.pool = pick(kMaxAttr + 1, a.in + 2 * kMaxAttr);
    return pool_call(pool_with_axis(a, false));
  });
  add_pair_rules(g.invalid, "strides", 1, "strides_below_1", [] {
    const PoolDraw d = draw_pool(coin());
    return std::make_pair(pool_call(d), std::vector<int64_t>{d.h.stride, d.w.stride});
  });
  add_rule(g.invalid, "ceil_mode_last_window_outside",
           [] { return pool_call(pool_with_axis(pool_axis_last_window_outside(), true)); });
  add_rule(g.invalid, "layout_unsupported", [] {
    Call call = pool_call(draw_pool(coin()));
    call.attrs["layout"] = text_of({"NHWC", "nchw", "NCHW4c"});
    return call;
  });
  return g;
}

namespace {

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

}  // namespace

OpGenerators upsampling_generators() {
  OpGenerators g;
  g.valid = rc::gen::exec(upsampling_valid);
  add_rule(g.invalid, "data_not_4d", [] {
    Call call = upsampling_valid();
    call.inputs[0] = tensor_not_of_rank(4, call.inputs[0].precision());
    return call;
  });
  add_rule(g.invalid, "scale_below_1", [] {
    Call call = upsampling_valid();
    call.attrs["scale"] = std::to_string(one_of({0, -1, -kTopAttr, kInt32Min}));
    return call;
  });
  add_rule(g.invalid, "scale_above_4095", [] {
    Call call = upsampling_valid();
    call.attrs["scale"] = std::to_string(one_of({kMaxAttr, kMaxAttr + 1, kInt32Max}));
    return call;
  });
  // Over 2^30 output elements (a dim over 2^24 needs an input too large to generate).
  add_rule(g.invalid, "output_over_limits", [] {
    const int64_t scale = pick(2048, kTopAttr);
    const int64_t needed = kMaxElements / (scale * scale) + 1;  // <= 257 input elements
    const int64_t chans = pick(1, 2), height = pick(1, 8);
    const int64_t width = (needed + chans * height - 1) / (chans * height) + pick(0, 2);
    return upsampling_call(scale, {1, chans, height, width}, draw_precision(1, 32));
  });
  add_rule(g.invalid, "layout_unsupported", [] {
    Call call = upsampling_valid();
    call.attrs["layout"] = text_of({"NHWC", "nchw"});
    return call;
  });
  add_rule(g.invalid, "method_unsupported", [] {
    Call call = upsampling_valid();
    call.attrs["method"] = text_of({"BILINEAR", "nearest_neighbor", "NEAREST"});
    return call;
  });
  return g;
}

}  // namespace cvm::nn_gen
