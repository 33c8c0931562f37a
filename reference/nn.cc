// Reference kernels of the nn family: conv2d, dense, relu, max_pool2d, upsampling
// (docs/ops/nn.md). Naive loops over the contract's formulas. Every attribute and shape rule is
// verified before any arithmetic that could overflow and before the output is allocated.
#include <algorithm>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

struct Pair {
  int64_t h = 0;
  int64_t w = 0;
};

// An attribute entry in [lo, 4096): below lo breaks `below_rule`, above 4095 "<name>_above_4095"
// (the generator records' names, harness/gen/nn_gen.cc and nn_window_gen.cc).
void check_entry(int64_t value, int64_t lo, const std::string& name, const char* below_rule) {
  verify_rule(value >= lo, below_rule, name, " ", value, " is below ", lo);
  verify_rule(value < kMaxAttr, name + "_above_4095", name, " ", value, " is above ", kMaxAttr - 1);
}

// A tuple attribute of exactly two entries, each in [lo, 4096).
Pair pair_in_range(const OpContext& ctx, const std::string& name, int64_t lo,
                   const char* below_rule) {
  const Tuple& t = ctx.attrs.tuple(name);
  verify_rule(t.size() == 2, name + "_wrong_length", name, " must have 2 entries, got ", t.size());
  check_entry(t[0], lo, name, below_rule);
  check_entry(t[1], lo, name, below_rule);
  return {t[0], t[1]};
}

// Precision of a sum of `terms` products of p0-bit and p1-bit values, plus an optional bias.
int product_sum_precision(const OpContext& ctx, int64_t terms, bool use_bias) {
  int precision = ctx.inputs[0].precision() + ctx.inputs[1].precision() +
                  bitlen(static_cast<uint64_t>(terms));
  if (use_bias) precision = std::max(precision, ctx.inputs[2].precision()) + 1;
  return precision;
}

void verify_int8_operands(const OpContext& ctx) {
  verify_rule(ctx.inputs[0].precision() <= 8, "data_precision_above_8", "data precision ",
              ctx.inputs[0].precision(), " is above 8");
  verify_rule(ctx.inputs[1].precision() <= 8, "weight_precision_above_8", "weight precision ",
              ctx.inputs[1].precision(), " is above 8");
}

std::vector<Tensor> conv2d(const OpContext& ctx) {
  const bool use_bias = ctx.attrs.b("use_bias");
  check_input_count(ctx, use_bias ? 3 : 2, "use_bias_disagrees_with_input_count");
  const Tensor& x = ctx.inputs[0];
  const Tensor& w = ctx.inputs[1];
  verify_rule(x.ndim() == 4, "data_not_4d", "data must be 4-D (N, C, H, W), got ",
              shape_str(x.shape()));

  const int64_t channels = ctx.attrs.i("channels");
  const int64_t groups = ctx.attrs.i("groups");
  verify_rule(channels >= 1, "channels_below_1", "channels ", channels, " is below 1");
  verify_rule(groups >= 1, "groups_below_1", "groups ", groups, " is below 1");
  const Tuple& kernel_size = ctx.attrs.tuple("kernel_size");
  verify_rule(kernel_size.size() == 2, "kernel_size_wrong_length",
              "kernel_size must have 2 entries, got ", kernel_size.size());
  verify_rule(kernel_size[0] >= 1 && kernel_size[1] >= 1, "kernel_size_below_1",
              "kernel_size entries must be >= 1");
  const Pair strides = pair_in_range(ctx, "strides", 1, "strides_below_1");
  const Pair padding = pair_in_range(ctx, "padding", 0, "padding_negative");
  const Pair dilation = pair_in_range(ctx, "dilation", 1, "dilation_below_1");

  const int64_t batch = x.dim(0), in_channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  verify_rule(in_channels % groups == 0, "in_channels_not_divisible_by_groups", "input channels ",
              in_channels, " not divisible by groups ", groups);
  verify_rule(channels % groups == 0, "channels_not_divisible_by_groups", "channels ", channels,
              " not divisible by groups ", groups);
  const int64_t in_per_group = in_channels / groups;
  const Shape weight_shape = {channels, in_per_group, kernel_size[0], kernel_size[1]};
  verify_rule(w.shape() == weight_shape, "weight_shape_mismatch", "weight shape ",
              shape_str(w.shape()), " is not ", shape_str(weight_shape));
  if (use_bias) {
    verify_rule(ctx.inputs[2].shape() == Shape{channels}, "bias_shape_mismatch", "bias shape ",
                shape_str(ctx.inputs[2].shape()), " is not (", channels, ",)");
  }
  verify_int8_operands(ctx);

  // The kernel dims now equal W's (<= 2^24) and dilation < 4096: no overflow below.
  const int64_t kh = kernel_size[0], kw = kernel_size[1];
  const int64_t dilated_h = dilation.h * (kh - 1) + 1;
  const int64_t dilated_w = dilation.w * (kw - 1) + 1;
  verify_rule(dilated_h <= height + 2 * padding.h, "kernel_exceeds_padded_input",
              "dilated kernel height ", dilated_h, " exceeds padded input height ",
              height + 2 * padding.h);
  verify_rule(dilated_w <= width + 2 * padding.w, "kernel_exceeds_padded_input",
              "dilated kernel width ", dilated_w, " exceeds padded input width ",
              width + 2 * padding.w);
  const int64_t out_h = (height + 2 * padding.h - dilated_h) / strides.h + 1;
  const int64_t out_w = (width + 2 * padding.w - dilated_w) / strides.w + 1;
  Tensor y = make_output({batch, channels, out_h, out_w},
                         product_sum_precision(ctx, in_per_group * kh * kw, use_bias));

  const int64_t out_per_group = channels / groups;
  int64_t flat = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < channels; ++oc) {
      for (int64_t p = 0; p < out_h; ++p) {
        for (int64_t q = 0; q < out_w; ++q) {
          int64_t sum = use_bias ? ctx.inputs[2].get(oc) : 0;
          for (int64_t ic = 0; ic < in_per_group; ++ic) {
            const int64_t c = (oc / out_per_group) * in_per_group + ic;
            for (int64_t ki = 0; ki < kh; ++ki) {
              for (int64_t kj = 0; kj < kw; ++kj) {
                const int64_t r = p * strides.h - padding.h + ki * dilation.h;
                const int64_t s = q * strides.w - padding.w + kj * dilation.w;
                if (r < 0 || r >= height || s < 0 || s >= width) continue;  // zero padding
                const int64_t xv = x.get(((n * in_channels + c) * height + r) * width + s);
                const int64_t wv = w.get(((oc * in_per_group + ic) * kh + ki) * kw + kj);
                sum += xv * wv;
              }
            }
          }
          y.set(flat++, static_cast<int32_t>(sum));
        }
      }
    }
  }
  return {y};
}

std::vector<Tensor> dense(const OpContext& ctx) {
  const bool use_bias = ctx.attrs.b("use_bias");
  check_input_count(ctx, use_bias ? 3 : 2, "use_bias_disagrees_with_input_count");
  const Tensor& x = ctx.inputs[0];
  const Tensor& w = ctx.inputs[1];
  const int64_t units = ctx.attrs.i("units");
  verify_rule(units >= 1, "units_below_1", "units ", units, " is below 1");
  verify_rule(x.ndim() == 2, "data_not_2d", "data must be 2-D (M, K), got ", shape_str(x.shape()));
  const int64_t rows = x.dim(0), depth = x.dim(1);
  verify_rule(w.shape() == Shape{units, depth}, "weight_shape_mismatch", "weight shape ",
              shape_str(w.shape()), " is not (", units, ", ", depth, ")");
  if (use_bias) {
    verify_rule(ctx.inputs[2].shape() == Shape{units}, "bias_shape_mismatch", "bias shape ",
                shape_str(ctx.inputs[2].shape()), " is not (", units, ",)");
  }
  verify_int8_operands(ctx);
  Tensor y = make_output({rows, units}, product_sum_precision(ctx, depth, use_bias));
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t u = 0; u < units; ++u) {
      int64_t sum = use_bias ? ctx.inputs[2].get(u) : 0;
      for (int64_t k = 0; k < depth; ++k) {
        sum += int64_t{x.get(m * depth + k)} * w.get(u * depth + k);
      }
      y.set(m * units + u, static_cast<int32_t>(sum));
    }
  }
  return {y};
}

std::vector<Tensor> relu(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  Tensor y = make_output(x.shape(), x.precision());
  for (int64_t i = 0; i < x.size(); ++i) y.set(i, std::max(x.get(i), 0));
  return {y};
}

// Output length of one pooled axis; verifies that axis's rules first.
int64_t pooled_length(int64_t in, int64_t pool, int64_t stride, int64_t pad, bool ceil_mode,
                      const char* axis) {
  verify_rule(pad < pool, "padding_not_below_pool_size", "padding ", pad,
              " is not below pool_size ", pool, " (", axis, ")");
  verify_rule(pool <= in + 2 * pad, "pool_size_exceeds_padded_input", "pool_size ", pool,
              " exceeds padded input ", in + 2 * pad, " (", axis, ")");
  const int64_t span = in + 2 * pad - pool;  // >= 0
  const int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // In ceil mode the extra window must still start inside the input.
  verify_rule(!ceil_mode || (out - 1) * stride - pad < in, "ceil_mode_last_window_outside",
              "ceil_mode: last window starts at ", (out - 1) * stride - pad,
              ", outside the input (", axis, ")");
  return out;
}

std::vector<Tensor> max_pool2d(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  verify_rule(x.ndim() == 4, "data_not_4d", "data must be 4-D (N, C, H, W), got ",
              shape_str(x.shape()));
  const Tuple& pool_size = ctx.attrs.tuple("pool_size");
  verify_rule(pool_size.size() == 2, "pool_size_wrong_length",
              "pool_size must have 2 entries, got ", pool_size.size());
  const Pair strides = pair_in_range(ctx, "strides", 1, "strides_below_1");
  const Tuple& padding = ctx.attrs.tuple("padding");
  verify_rule(padding.size() == 1 || padding.size() == 2, "padding_wrong_length",
              "padding must have 1 or 2 entries, got ", padding.size());
  for (int64_t pad : padding) check_entry(pad, 0, "padding", "padding_negative");
  const int64_t pad_h = padding[0];
  const int64_t pad_w = padding.size() == 2 ? padding[1] : padding[0];
  const bool ceil_mode = ctx.attrs.b("ceil_mode");

  const int64_t batch = x.dim(0), chans = x.dim(1), height = x.dim(2), width = x.dim(3);
  const int64_t pool_h = pool_size[0], pool_w = pool_size[1];
  const int64_t out_h = pooled_length(height, pool_h, strides.h, pad_h, ceil_mode, "height");
  const int64_t out_w = pooled_length(width, pool_w, strides.w, pad_w, ceil_mode, "width");
  Tensor y = make_output({batch, chans, out_h, out_w}, x.precision());

  int64_t flat = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < chans; ++c) {
      for (int64_t p = 0; p < out_h; ++p) {
        for (int64_t q = 0; q < out_w; ++q) {
          // Only the window's in-image elements take part: padding never wins.
          const int64_t row0 = p * strides.h - pad_h, col0 = q * strides.w - pad_w;
          bool seen = false;
          int32_t best = 0;
          for (int64_t r = std::max<int64_t>(row0, 0); r < std::min(row0 + pool_h, height); ++r) {
            for (int64_t s = std::max<int64_t>(col0, 0); s < std::min(col0 + pool_w, width); ++s) {
              const int32_t v = x.get(((n * chans + c) * height + r) * width + s);
              if (!seen || v > best) best = v;
              seen = true;
            }
          }
          check(seen, "max_pool2d window (", p, ", ", q, ") holds no input element");
          y.set(flat++, best);
        }
      }
    }
  }
  return {y};
}

std::vector<Tensor> upsampling(const OpContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  verify_rule(x.ndim() == 4, "data_not_4d", "data must be 4-D (N, C, H, W), got ",
              shape_str(x.shape()));
  const int64_t scale = ctx.attrs.i("scale");
  check_entry(scale, 1, "scale", "scale_below_1");
  const int64_t batch = x.dim(0), chans = x.dim(1), height = x.dim(2), width = x.dim(3);
  const int64_t out_h = height * scale, out_w = width * scale;  // < 2^24 * 4096: no overflow
  Tensor y = make_output({batch, chans, out_h, out_w}, x.precision());
  int64_t flat = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < chans; ++c) {
      for (int64_t h = 0; h < out_h; ++h) {
        for (int64_t w = 0; w < out_w; ++w) {
          y.set(flat++, x.get(((n * chans + c) * height + h / scale) * width + w / scale));
        }
      }
    }
  }
  return {y};
}

}  // namespace

void add_nn(Backend& backend) {
  backend.add("conv2d", kernel(conv2d));
  backend.add("dense", kernel(dense));
  backend.add("relu", kernel(relu));
  backend.add("max_pool2d", kernel(max_pool2d));
  backend.add("upsampling", kernel(upsampling));
}

}  // namespace cvm::ref
