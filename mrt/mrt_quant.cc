#include "mrt/mrt_quant.h"

#include <algorithm>
#include <cmath>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"

namespace cvm::mrt {

int64_t round_half_away(double v) {
  // std::llround rounds halves away from zero, as the seed's round() does.
  return std::llround(v);
}

QuantParams symmetric_params(const std::vector<double>& xr, int prec) {
  if (prec < 2 || prec > 32) fail_logic("mrt: symmetric precision ", prec, " not in [2, 32]");
  double max_abs = 0;
  for (double v : xr) max_abs = std::max(max_abs, std::fabs(v));
  if (max_abs == 0) fail_logic("mrt: symmetric scale of all-zero data (max |Xr| = 0)");
  return {static_cast<double>(alpha(prec)) / max_abs, 0};
}

QuantParams zero_point_params(const std::vector<double>& xr, int prec) {
  if (prec < 1 || prec > 31) fail_logic("mrt: zero-point precision ", prec, " not in [1, 31]");
  if (xr.empty()) fail_logic("mrt: zero-point scale of empty data");
  const auto [lo, hi] = std::minmax_element(xr.begin(), xr.end());
  if (*hi == *lo) fail_logic("mrt: zero-point scale of constant data (max Xr = min Xr)");
  const double scale = static_cast<double>((int64_t{1} << prec) - 1) / (*hi - *lo);
  return {scale, static_cast<int64_t>(std::ceil(-scale * *lo))};
}

std::vector<double> channel_values(const RealTensor& xr, int axis, int64_t index) {
  const Shape& s = xr.shape;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t channels = s[static_cast<size_t>(axis)];
  std::vector<double> values;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      values.push_back(xr.values[static_cast<size_t>((o * channels + index) * inner + k)]);
    }
  }
  return values;
}

std::vector<QuantParams> channel_params(const RealTensor& xr, int axis, int prec,
                                        bool zero_point) {
  if (axis < 0 || axis >= static_cast<int>(xr.shape.size())) fail_logic("mrt: bad channel axis");
  std::vector<QuantParams> params;
  for (int64_t i = 0; i < xr.shape[static_cast<size_t>(axis)]; ++i) {
    const std::vector<double> channel = channel_values(xr, axis, i);
    params.push_back(zero_point ? zero_point_params(channel, prec)
                                : symmetric_params(channel, prec));
  }
  return params;
}

int64_t quantize(double xr, const QuantParams& q) {
  return round_half_away(q.scale * xr) + q.zero_point;
}

double dequantize(int64_t xq, const QuantParams& q) {
  return static_cast<double>(xq - q.zero_point) / q.scale;
}

int64_t requantize(int64_t xe, double sc_xe, const QuantParams& q) {
  return round_half_away(q.scale / sc_xe * static_cast<double>(xe)) + q.zero_point;
}

int64_t buffer_max(int prec, bool zero_point) {
  return zero_point ? int64_t{1} << prec : alpha(prec);
}

int64_t buffer_min(int prec, bool zero_point) { return zero_point ? 0 : -alpha(prec); }

double merged_scale(const std::vector<double>& channel_scales) {
  if (channel_scales.empty()) fail_logic("mrt: lazy merge of zero channels");
  return *std::max_element(channel_scales.begin(), channel_scales.end());
}

std::vector<int64_t> merge_multipliers(const std::vector<double>& channel_scales) {
  const double merged = merged_scale(channel_scales);
  std::vector<int64_t> multipliers;
  for (double sc : channel_scales) multipliers.push_back(round_half_away(merged / sc));
  return multipliers;
}

std::vector<Tensor> split_channels(const Tensor& x, int axis) {
  Shape slice_shape = x.shape();
  const int64_t channels = slice_shape[static_cast<size_t>(axis)];
  slice_shape[static_cast<size_t>(axis)] = 1;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int d = axis + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  std::vector<Tensor> slices;
  for (int64_t i = 0; i < channels; ++i) {
    Tensor slice = Tensor::zeros(DType::kInt32, slice_shape, x.precision());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < inner; ++k) {
        slice.set(o * inner + k, x.get((o * channels + i) * inner + k));
      }
    }
    slices.push_back(std::move(slice));
  }
  return slices;
}

}  // namespace cvm::mrt
