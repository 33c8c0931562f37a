#include "infer/nn.h"

#include <algorithm>

namespace cvm::infer {
namespace {

void require_inputs(const OpContext& ctx, size_t count, const char* why, const char* rule) {
  if (ctx.inputs.size() != count) {
    fail_rule(rule, "expected ", count, " inputs (", why, "), got ", ctx.inputs.size());
  }
}

// Contract 1.1 on each input's metadata: precision in [1, 32], int8 storage only with p <= 8.
void check_meta(const OpContext& ctx) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& t = ctx.inputs[k];
    const int p = t.precision();
    if (p < kMinPrecision || p > kMaxPrecision) {
      fail_rule(rules::kPrecisionRange, "input ", k, ": precision ", p, " not in [1, 32]");
    }
    if (t.dtype() == DType::kInt8 && p > 8) {
      fail_rule(rules::kInt8Precision, "input ", k, ": int8 data with precision ", p);
    }
  }
}

// True when every value is within [-a, a]. A compare-and-or loop: it vectorizes on the baseline
// x86-64 (SSE2 has signed compares but no 32-bit min/max); the range is found only on failure.
template <typename T>
bool within(const T* data, int64_t n, T a) {
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad |= static_cast<int>(data[i] > a) | static_cast<int>(data[i] < -a);
  return bad == 0;
}

template <typename T>
void check_data(const T* data, int64_t n, size_t index, int p) {
  if (within(data, n, static_cast<T>(alpha(p)))) return;
  int64_t lo = data[0], hi = data[0];
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min<int64_t>(lo, data[i]);
    hi = std::max<int64_t>(hi, data[i]);
  }
  check_value_range(index, lo, hi, p);
}

// Contract 1.1 on each input; inputs 0 and 1 only when `data_and_weights` (else the caller
// checks their values, with check_value_range).
void check_inputs(const OpContext& ctx, bool data_and_weights = true) {
  check_meta(ctx);
  for (size_t k = data_and_weights ? 0 : 2; k < ctx.inputs.size(); ++k) {
    const Tensor& t = ctx.inputs[k];
    if (t.dtype() == DType::kInt8) {
      check_data(t.i8(), t.size(), k, t.precision());
    } else {
      check_data(t.i32(), t.size(), k, t.precision());
    }
  }
}

void require_rank(const Tensor& t, int rank, const char* what, const char* rule) {
  if (t.ndim() != rank) fail_rule(rule, what, " must be ", rank, "-D, got ", shape_str(t.shape()));
}

void require_text(const OpContext& ctx, const char* name, std::initializer_list<const char*> ok) {
  const std::string& value = ctx.attrs.str(name);
  for (const char* v : ok) {
    if (value == v) return;
  }
  fail_rule(rules::kAttrMalformed, name, " '", value, "' is not supported");
}

// Two entries, each in [lo, 4096). The rules are "<name>_wrong_length", `below_rule` and
// "<name>_above_4095" (harness/gen/nn_gen_common.h names them).
void pair_attr(const OpContext& ctx, const std::string& name, int64_t lo, const char* below_rule,
               int64_t& first, int64_t& second) {
  const Tuple& t = ctx.attrs.tuple(name);
  if (t.size() != 2) {
    fail_rule(name + "_wrong_length", name, " needs exactly 2 entries, got ", t.size());
  }
  for (int64_t v : t) {
    if (v < lo) fail_rule(below_rule, name, " entry ", v, " not in [", lo, ", ", kMaxAttr, ")");
    if (v >= kMaxAttr) {
      fail_rule(name + "_above_4095", name, " entry ", v, " not in [", lo, ", ", kMaxAttr, ")");
    }
  }
  first = t[0];
  second = t[1];
}

// p0 + p1 + bitlen(terms), then max(., p2) + 1 with a bias.
int product_precision(const OpContext& ctx, int64_t terms, bool use_bias) {
  const int p0 = ctx.inputs[0].precision(), p1 = ctx.inputs[1].precision();
  if (p0 > 8) fail_rule("data_precision_above_8", "data precision ", p0, " exceeds 8");
  if (p1 > 8) fail_rule("weight_precision_above_8", "weight precision ", p1, " exceeds 8");
  int p = p0 + p1 + bitlen(static_cast<uint64_t>(terms));
  if (use_bias) p = std::max(p, ctx.inputs[2].precision()) + 1;
  return p;
}

void require_bias_shape(const OpContext& ctx, bool use_bias, int64_t count) {
  if (!use_bias) return;
  const Shape& s = ctx.inputs[2].shape();
  if (s.size() != 1 || s[0] != count) {
    fail_rule("bias_shape_mismatch", "bias shape ", shape_str(s), " must be (", count, ",)");
  }
}

// One pooled axis: pad < pool <= in + 2 pad; in ceil mode the last window starts in the input.
int64_t pooled(int64_t in, int64_t pool, int64_t stride, int64_t pad, bool ceil_mode,
               const char* axis) {
  if (pool <= pad) {
    fail_rule("padding_not_below_pool_size", "pool_size ", pool, " must exceed padding ", pad, " (",
              axis, ")");
  }
  if (pool > in + 2 * pad) {
    fail_rule("pool_size_exceeds_padded_input", "pool_size ", pool, " exceeds the padded ", axis,
              " ", in + 2 * pad);
  }
  const int64_t room = in + 2 * pad - pool;
  const int64_t steps = ceil_mode ? (room + stride - 1) / stride : room / stride;
  if (ceil_mode && steps * stride - pad >= in) {
    fail_rule("ceil_mode_last_window_outside", "ceil_mode: the last ", axis,
              " window starts outside the input");
  }
  return steps + 1;
}

}  // namespace

void check_value_range(size_t index, int64_t lo, int64_t hi, int precision) {
  const int64_t a = alpha(precision);
  if (lo < -a || hi > a) {
    fail_rule(rules::kValueRange, "input ", index, ": values in [", lo, ", ", hi,
              "] exceed precision ", precision);
  }
}

Conv2dInference infer_conv2d(const OpContext& ctx, bool data_values_deferred) {
  Conv2dInference c;
  c.use_bias = ctx.attrs.b("use_bias");
  require_inputs(ctx, c.use_bias ? 3 : 2, c.use_bias ? "use_bias is true" : "use_bias is false",
                 "use_bias_disagrees_with_input_count");
  check_inputs(ctx, !data_values_deferred);
  require_text(ctx, "layout", {"NCHW"});
  require_text(ctx, "kernel_layout", {"OIHW"});
  require_text(ctx, "out_layout", {"__undef__", "NCHW"});
  require_text(ctx, "out_dtype", {"same", "int32"});
  const Tensor& x = ctx.inputs[0];
  const Tensor& w = ctx.inputs[1];
  require_rank(x, 4, "data", "data_not_4d");
  c.channels = ctx.attrs.i("channels");
  c.groups = ctx.attrs.i("groups");
  if (c.channels < 1) fail_rule("channels_below_1", "channels ", c.channels, " must be >= 1");
  if (c.groups < 1) fail_rule("groups_below_1", "groups ", c.groups, " must be >= 1");
  const Tuple& ks = ctx.attrs.tuple("kernel_size");
  if (ks.size() != 2) {
    fail_rule("kernel_size_wrong_length", "kernel_size needs exactly 2 entries, got ", ks.size());
  }
  if (ks[0] < 1 || ks[1] < 1) fail_rule("kernel_size_below_1", "kernel_size entries must be >= 1");
  pair_attr(ctx, "strides", 1, "strides_below_1", c.stride_h, c.stride_w);
  pair_attr(ctx, "padding", 0, "padding_negative", c.pad_h, c.pad_w);
  pair_attr(ctx, "dilation", 1, "dilation_below_1", c.dilation_h, c.dilation_w);
  c.batch = x.dim(0);
  c.in_channels = x.dim(1);
  c.height = x.dim(2);
  c.width = x.dim(3);
  if (c.in_channels % c.groups != 0) {
    fail_rule("in_channels_not_divisible_by_groups", "groups ", c.groups, " does not divide the ",
              c.in_channels, " input channels");
  }
  if (c.channels % c.groups != 0) {
    fail_rule("channels_not_divisible_by_groups", "groups ", c.groups, " does not divide channels ",
              c.channels);
  }
  c.in_per_group = c.in_channels / c.groups;
  c.out_per_group = c.channels / c.groups;
  const Shape expected = {c.channels, c.in_per_group, ks[0], ks[1]};
  if (w.shape() != expected) {
    fail_rule("weight_shape_mismatch", "weight shape ", shape_str(w.shape()), " must be ",
              shape_str(expected));
  }
  require_bias_shape(ctx, c.use_bias, c.channels);
  // From here the kernel dims are W's (<= 2^24) and every attribute is below 4096.
  c.kernel_h = ks[0];
  c.kernel_w = ks[1];
  const int64_t span_h = c.dilation_h * (c.kernel_h - 1) + 1;
  const int64_t span_w = c.dilation_w * (c.kernel_w - 1) + 1;
  if (span_h > c.height + 2 * c.pad_h || span_w > c.width + 2 * c.pad_w) {
    fail_rule("kernel_exceeds_padded_input", "dilated kernel ", span_h, "x", span_w,
              " does not fit the padded input ", c.height + 2 * c.pad_h, "x",
              c.width + 2 * c.pad_w);
  }
  c.out_h = (c.height + 2 * c.pad_h - span_h) / c.stride_h + 1;
  c.out_w = (c.width + 2 * c.pad_w - span_w) / c.stride_w + 1;
  c.output.shape = {c.batch, c.channels, c.out_h, c.out_w};
  c.output.precision = product_precision(ctx, c.in_per_group * c.kernel_h * c.kernel_w, c.use_bias);
  validate_output(c.output);
  return c;
}

DenseInference infer_dense(const OpContext& ctx, bool data_values_deferred) {
  DenseInference d;
  d.use_bias = ctx.attrs.b("use_bias");
  require_inputs(ctx, d.use_bias ? 3 : 2, d.use_bias ? "use_bias is true" : "use_bias is false",
                 "use_bias_disagrees_with_input_count");
  check_inputs(ctx, !data_values_deferred);
  d.units = ctx.attrs.i("units");
  if (d.units < 1) fail_rule("units_below_1", "units ", d.units, " must be >= 1");
  const Tensor& x = ctx.inputs[0];
  require_rank(x, 2, "data", "data_not_2d");
  d.rows = x.dim(0);
  d.depth = x.dim(1);
  const Shape expected = {d.units, d.depth};
  if (ctx.inputs[1].shape() != expected) {
    fail_rule("weight_shape_mismatch", "weight shape ", shape_str(ctx.inputs[1].shape()),
              " must be ", shape_str(expected));
  }
  require_bias_shape(ctx, d.use_bias, d.units);
  d.output.shape = {d.rows, d.units};
  d.output.precision = product_precision(ctx, d.depth, d.use_bias);
  validate_output(d.output);
  return d;
}

OutputSpec infer_relu(const OpContext& ctx) {
  require_inputs(ctx, 1, "relu", rules::kInputCount);
  check_inputs(ctx);
  OutputSpec out{ctx.inputs[0].shape(), ctx.inputs[0].precision()};
  validate_output(out);
  return out;
}

MaxPool2dInference infer_max_pool2d(const OpContext& ctx) {
  require_inputs(ctx, 1, "max_pool2d", rules::kInputCount);
  check_inputs(ctx);
  require_text(ctx, "layout", {"NCHW"});
  const Tensor& x = ctx.inputs[0];
  require_rank(x, 4, "data", "data_not_4d");
  MaxPool2dInference m;
  const Tuple& pool = ctx.attrs.tuple("pool_size");
  if (pool.size() != 2) {
    fail_rule("pool_size_wrong_length", "pool_size needs exactly 2 entries, got ", pool.size());
  }
  pair_attr(ctx, "strides", 1, "strides_below_1", m.stride_h, m.stride_w);
  const Tuple& pad = ctx.attrs.tuple("padding");
  if (pad.size() != 1 && pad.size() != 2) {
    fail_rule("padding_wrong_length", "padding needs 1 or 2 entries, got ", pad.size());
  }
  for (int64_t v : pad) {
    if (v < 0) fail_rule("padding_negative", "padding entry ", v, " not in [0, ", kMaxAttr, ")");
    if (v >= kMaxAttr) {
      fail_rule("padding_above_4095", "padding entry ", v, " not in [0, ", kMaxAttr, ")");
    }
  }
  m.pad_h = pad[0];
  m.pad_w = pad.back();
  m.pool_h = pool[0];
  m.pool_w = pool[1];
  m.batch = x.dim(0);
  m.channels = x.dim(1);
  m.height = x.dim(2);
  m.width = x.dim(3);
  const bool ceil_mode = ctx.attrs.b("ceil_mode");
  // pool entries may be anything int64: compare before any arithmetic on them.
  m.out_h = pooled(m.height, m.pool_h, m.stride_h, m.pad_h, ceil_mode, "height");
  m.out_w = pooled(m.width, m.pool_w, m.stride_w, m.pad_w, ceil_mode, "width");
  m.output.shape = {m.batch, m.channels, m.out_h, m.out_w};
  m.output.precision = x.precision();
  validate_output(m.output);
  return m;
}

UpsamplingInference infer_upsampling(const OpContext& ctx) {
  require_inputs(ctx, 1, "upsampling", rules::kInputCount);
  check_inputs(ctx);
  require_text(ctx, "layout", {"NCHW"});
  require_text(ctx, "method", {"NEAREST_NEIGHBOR"});
  const Tensor& x = ctx.inputs[0];
  require_rank(x, 4, "data", "data_not_4d");
  UpsamplingInference u;
  u.scale = ctx.attrs.i("scale");
  if (u.scale < 1) fail_rule("scale_below_1", "scale ", u.scale, " not in [1, ", kMaxAttr, ")");
  if (u.scale >= kMaxAttr) {
    fail_rule("scale_above_4095", "scale ", u.scale, " not in [1, ", kMaxAttr, ")");
  }
  // dims <= 2^24 and scale < 2^12: the products fit int64; validate_output checks the limits.
  u.output.shape = {x.dim(0), x.dim(1), x.dim(2) * u.scale, x.dim(3) * u.scale};
  u.output.precision = x.precision();
  validate_output(u.output);
  return u;
}

}  // namespace cvm::infer
