// MRT quantization (the MRT formalization, docs/mrt.md): quantized-buffer definitions (symmetric and
// zero-point, layer-wise and channel-wise), the quantization process, and the channel lazy
// split and merge. Scales are computed in double from real data, as the seed's tables say;
// everything after that is integer.
#pragma once

#include <cstdint>
#include <vector>

#include "cvmcheck/tensor.h"

namespace cvm::mrt {

// Real-valued data (the "Xr" of the seed), row-major.
struct RealTensor {
  Shape shape;
  std::vector<double> values;
};

// One quantized buffer's parameters: Xq = round(sc * Xr) + zp, so Xr ~ (Xq - zp) / sc.
// zero_point is 0 for a symmetric buffer.
struct QuantParams {
  double scale = 1;
  int64_t zero_point = 0;
};

// round() of the seed: half away from zero.
int64_t round_half_away(double v);

// Symmetric: sc = (2^(P-1) - 1) / max|Xr|. LogicError when max|Xr| = 0 or P not in [2, 32].
QuantParams symmetric_params(const std::vector<double>& xr, int prec);
// Zero point: sc = (2^P - 1) / (max Xr - min Xr), zp = ceil(-sc * min Xr). LogicError when
// max = min or P not in [1, 31].
QuantParams zero_point_params(const std::vector<double>& xr, int prec);

// Channel-wise: one set of parameters per index of `axis` (the seed's ich), each from that
// channel's values only.
std::vector<QuantParams> channel_params(const RealTensor& xr, int axis, int prec,
                                        bool zero_point);

// The values of channel `index` along `axis` (row-major within the channel).
std::vector<double> channel_values(const RealTensor& xr, int axis, int64_t index);

// Float-to-int: round(sc * xr) + zp.
int64_t quantize(double xr, const QuantParams& q);
// Int-to-float: (xq - zp) / sc.
double dequantize(int64_t xq, const QuantParams& q);

// Requantization of an expanded integer Xe (scale sc_xe) to the buffer q:
// round(sc_x / sc_xe * Xe) + zp. The seed writes round(sc_x / sc_xe) * Xe, which rounds the
// scale ratio alone; see docs/mrt.md, decision R1.
int64_t requantize(int64_t xe, double sc_xe, const QuantParams& q);

// Largest and smallest value a buffer of precision `prec` holds: symmetric [-a, a] with
// a = 2^(P-1) - 1; zero point [0, 2^P] (2^P is reachable: docs/mrt.md, decision Q2).
int64_t buffer_max(int prec, bool zero_point);
int64_t buffer_min(int prec, bool zero_point);

// Channel lazy merge: the merged scale is the largest channel scale ...
double merged_scale(const std::vector<double>& channel_scales);
// ... and channel i is multiplied by round(sc_merged / sc_i) >= 1 before the merge (the
// integer realisation of the seed's sc_xe / sc_xei factor; decision M1).
std::vector<int64_t> merge_multipliers(const std::vector<double>& channel_scales);

// Channel lazy split of an integer tensor: slice i of `axis`, keeping the axis (size 1).
// Every slice keeps the tensor's scale (sc_xei = sc_xe), so only values move.
std::vector<Tensor> split_channels(const Tensor& x, int axis);

}  // namespace cvm::mrt
