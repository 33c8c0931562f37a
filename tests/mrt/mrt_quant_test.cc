// MRT quantization (the MRT formalization, docs/mrt.md): scales and zero points follow its tables,
// quantize-then-dequantize stays within half a step, channel-wise parameters are the
// layer-wise ones of each channel, the lazy merge takes the largest scale, and the zero-point
// sign of the expansions (decision Z1) gives sc * Yr on real data. Planted bugs prove the
// half-step property can fail (truncation; the seed's literal round-the-ratio requantization).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "registry/registry.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "harness/gen/generators.h"
#include "harness/engine/property.h"
#include "harness/mrt/mrt_check.h"
#include "mrt/mrt_identity.h"
#include "mrt/mrt_quant.h"

namespace cvm::mrt {
namespace {

constexpr int kDefaultCases = 200;

// Real data k / d with integer k and d: exact to describe, not constant.
RealTensor real_tensor(const Shape& shape) {
  const auto count = static_cast<size_t>(shape_size(shape));
  std::vector<int64_t> numerators = *rc::gen::container<std::vector<int64_t>>(
      count, rc::gen::inRange<int64_t>(-1000000, 1000001));
  const int64_t divisor = *rc::gen::inRange<int64_t>(1, 1000);
  numerators[0] += numerators.size() > 1 && numerators[0] == numerators[1] ? 1 : 0;
  if (count == 1 && numerators[0] == 0) numerators[0] = 1;
  RealTensor x{shape, {}};
  for (int64_t k : numerators) x.values.push_back(static_cast<double>(k) / divisor);
  return x;
}

bool constant_data(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double e) { return e == v[0]; });
}

using QuantizeFn = std::function<int64_t(double, const QuantParams&)>;

// |(q - zp) - sc * x| <= 1/2: the dequantized value is within half a step of x.
void check_half_step(const QuantizeFn& quantize_fn, bool zero_point) {
  const Shape shape = *gen::shape(1, 3, 6, 64);
  const int prec = *rc::gen::inRange(zero_point ? 1 : 2, 17);
  const RealTensor x = real_tensor(shape);
  RC_PRE(!constant_data(x.values));  // also excludes all-zero data
  const QuantParams q = zero_point ? zero_point_params(x.values, prec)
                                   : symmetric_params(x.values, prec);
  for (double v : x.values) {
    const int64_t xq = quantize_fn(v, q);
    RC_ASSERT(std::fabs(static_cast<double>(xq - q.zero_point) - q.scale * v) <= 0.5);
    RC_ASSERT(std::fabs(dequantize(xq, q) - v) <= 0.5 / q.scale * (1 + 1e-12));
    RC_ASSERT(xq >= buffer_min(prec, zero_point));
    RC_ASSERT(xq <= buffer_max(prec, zero_point));
  }
}

TEST(MrtQuant, SymmetricQuantizeDequantizeWithinHalfStep) {
  const auto v = check_property("symmetric half step", [] { check_half_step(quantize, false); },
                                {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(MrtQuant, ZeroPointQuantizeDequantizeWithinHalfStep) {
  const auto v = check_property("zero point half step", [] { check_half_step(quantize, true); },
                                {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(MrtQuant, PlantedTruncatingQuantizeIsCaught) {
  const QuantizeFn truncating = [](double v, const QuantParams& q) {
    return static_cast<int64_t>(q.scale * v) + q.zero_point;
  };
  const auto v = check_property("planted truncation", [&] { check_half_step(truncating, true); },
                                {.cases = 200, .seed = 0, .max_size = 100, .shrink = false});
  EXPECT_FALSE(v.passed) << "truncation instead of round() was not caught";
}

TEST(MrtQuant, ScalesAndZeroPointsFollowTheTables) {
  const auto v = check_property(
      "tables",
      [] {
        const Shape shape = *gen::shape(1, 3, 6, 64);
        const int prec = *rc::gen::inRange(2, 17);
        const RealTensor x = real_tensor(shape);
        RC_PRE(!constant_data(x.values));
        double lo = x.values[0], hi = x.values[0], max_abs = 0;
        for (double e : x.values) {
          lo = std::min(lo, e);
          hi = std::max(hi, e);
          max_abs = std::max(max_abs, std::fabs(e));
        }
        const QuantParams s = symmetric_params(x.values, prec);
        RC_ASSERT(s.scale == static_cast<double>(alpha(prec)) / max_abs);
        RC_ASSERT(s.zero_point == 0);
        const QuantParams z = zero_point_params(x.values, prec);
        const double zscale = static_cast<double>((int64_t{1} << prec) - 1) / (hi - lo);
        RC_ASSERT(z.scale == zscale);
        RC_ASSERT(z.zero_point == static_cast<int64_t>(std::ceil(-zscale * lo)));
        // What the tables mean: the extreme magnitude maps to +-(2^(P-1)-1); the zero-point
        // buffer starts at 0 or 1 and ends at 2^P - 1 or 2^P (decision Q2).
        int64_t extreme = 0;
        for (double e : x.values) extreme = std::max(extreme, std::abs(quantize(e, s)));
        RC_ASSERT(extreme == alpha(prec));
        RC_ASSERT(quantize(lo, z) >= 0 && quantize(lo, z) <= 1);
        RC_ASSERT(quantize(hi, z) >= (int64_t{1} << prec) - 1);
        RC_ASSERT(quantize(hi, z) <= int64_t{1} << prec);
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(MrtQuant, ZeroRangeIsALogicError) {
  EXPECT_THROW(symmetric_params({0.0, 0.0}, 8), LogicError);
  EXPECT_THROW(zero_point_params({1.5, 1.5}, 8), LogicError);
  EXPECT_THROW(symmetric_params({1.0}, 1), LogicError);  // 2^0 - 1 = 0 levels
}

TEST(MrtQuant, ZeroPointReachesTwoToThePrecision) {
  // a = sc * min = -0.5: round(-0.5) + ceil(0.5) = 0 at the minimum, and 2^P at the maximum.
  const QuantParams z = zero_point_params({-0.5, 2.5}, 2);  // sc = 3 / 3 = 1, zp = 1
  EXPECT_EQ(z.zero_point, 1);
  EXPECT_EQ(quantize(-0.5, z), 0);
  EXPECT_EQ(quantize(2.5, z), 4);
}

TEST(MrtQuant, ChannelParamsAreLayerParamsOfEachChannelAndMergeTakesTheMax) {
  const auto v = check_property(
      "channel-wise",
      [] {
        const Shape shape = *gen::shape(2, 4, 5, 128);
        const int prec = *rc::gen::inRange(2, 17);
        const bool zero_point = *rc::gen::arbitrary<bool>();
        const RealTensor x = real_tensor(shape);
        for (int64_t i = 0; i < shape[1]; ++i) {
          const std::vector<double> channel = channel_values(x, 1, i);
          RC_PRE(!constant_data(channel));
        }
        const std::vector<QuantParams> params = channel_params(x, 1, prec, zero_point);
        RC_ASSERT(static_cast<int64_t>(params.size()) == shape[1]);
        std::vector<double> scales;
        for (int64_t i = 0; i < shape[1]; ++i) {
          const std::vector<double> channel = channel_values(x, 1, i);
          const QuantParams layer = zero_point ? zero_point_params(channel, prec)
                                               : symmetric_params(channel, prec);
          RC_ASSERT(params[static_cast<size_t>(i)].scale == layer.scale);
          RC_ASSERT(params[static_cast<size_t>(i)].zero_point == layer.zero_point);
          scales.push_back(layer.scale);
        }
        const double merged = merged_scale(scales);
        RC_ASSERT(merged == *std::max_element(scales.begin(), scales.end()));
        const std::vector<int64_t> m = merge_multipliers(scales);
        for (size_t i = 0; i < m.size(); ++i) {
          RC_ASSERT(m[i] >= 1);
          RC_ASSERT(m[i] == round_half_away(merged / scales[i]));
        }
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

// Requantization of an expanded integer buffer: the corrected formula stays within half a
// step; the seed's literal round(sc_x / sc_xe) * Xe does not (decision R1).
void check_requantize(bool literal_seed_formula) {
  const Shape shape = *gen::shape(1, 2, 8, 32);
  const int prec = *rc::gen::inRange(2, 9);
  const bool zero_point = *rc::gen::arbitrary<bool>();
  const Tensor xe = *gen::tensor(shape, 24);
  const int64_t sc_xe_numerator = *rc::gen::inRange<int64_t>(1, 1000000);
  const double sc_xe = static_cast<double>(sc_xe_numerator) / 1000;
  std::vector<double> xr;
  for (int64_t i = 0; i < xe.size(); ++i) xr.push_back(xe.get(i) / sc_xe);
  RC_PRE(!constant_data(xr) && !(xr == std::vector<double>(xr.size(), 0.0)));
  const QuantParams q = zero_point ? zero_point_params(xr, prec) : symmetric_params(xr, prec);
  for (int64_t i = 0; i < xe.size(); ++i) {
    const int64_t xq = literal_seed_formula
                           ? round_half_away(q.scale / sc_xe) * xe.get(i) + q.zero_point
                           : requantize(xe.get(i), sc_xe, q);
    const double target = q.scale * xr[static_cast<size_t>(i)];
    RC_ASSERT(std::fabs(static_cast<double>(xq - q.zero_point) - target) <=
              0.5 + 1e-9 * std::fabs(target));
  }
}

TEST(MrtQuant, RequantizeWithinHalfStep) {
  const auto v = check_property("requantize", [] { check_requantize(false); },
                                {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(MrtQuant, PlantedSeedLiteralRequantizeIsCaught) {
  const auto v = check_property("planted literal requantize", [] { check_requantize(true); },
                                {.cases = 200, .seed = 0, .max_size = 100, .shrink = false});
  EXPECT_FALSE(v.passed) << "round(sc_x / sc_xe) * Xe was not caught";
}

TEST(MrtQuant, SplitChannelsEqualsStridedSliceAndConcatMergesBack) {
  const auto v = check_property(
      "split/merge",
      [] {
        const Shape shape = *gen::shape(2, 4, 5, 128);
        const int prec = *gen::precision(1, 32);
        const Tensor x = *gen::tensor(shape, prec);
        const std::vector<Tensor> slices = split_channels(x, 1);
        for (int64_t i = 0; i < x.dim(1); ++i) {
          const nlohmann::json attrs = {
              {"begin", "(0, " + std::to_string(i) + ")"},
              {"end", "(" + std::to_string(x.dim(0)) + ", " + std::to_string(i + 1) + ")"}};
          const auto out = run_op(registry(), "reference", "strided_slice", attrs, {x});
          RC_ASSERT(out[0].identical(slices[static_cast<size_t>(i)]));
        }
        const auto merged = run_op(registry(), "reference", "concatenate", {{"axis", "1"}}, slices);
        RC_ASSERT(merged[0].values() == x.values());
        RC_ASSERT(merged[0].shape() == x.shape());
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

// Decision Z1: a buffer quantized by the table holds round(sc * Xr) + zp, and the expansions add
// the offset z = -zp. Then relu and pad expansions give exactly round(sc * Yr) on real data,
// on every backend that runs them; with z = +zp (the seed's sign read literally) they do not.
TEST(MrtQuant, ZeroPointExpansionsWithOffsetMinusZpGiveScaledRealResults) {
  const auto v = check_property(
      "zero-point offset sign",
      [] {
        const Shape shape = *gen::shape(4, 4, 5, 256);
        const int prec = *rc::gen::inRange(1, 21);
        const bool channel_wise = *rc::gen::arbitrary<bool>();
        const bool is_pad = *rc::gen::arbitrary<bool>();
        const int64_t pv_numerator = *rc::gen::inRange<int64_t>(-1000, 1001);
        const RealTensor x = real_tensor(shape);
        const int64_t channels = shape[1];
        std::vector<QuantParams> params;
        if (channel_wise) {
          for (int64_t i = 0; i < channels; ++i) RC_PRE(!constant_data(channel_values(x, 1, i)));
          params = channel_params(x, 1, prec, true);
        } else {
          RC_PRE(!constant_data(x.values));
          params.assign(static_cast<size_t>(channels), zero_point_params(x.values, prec));
        }
        const double pv = static_cast<double>(pv_numerator) / 7;
        IdentityCase c;
        c.scheme = {is_pad ? Family::kPad : Family::kRelu,
                    channel_wise ? Granularity::kChannel : Granularity::kLayer, true, false};
        c.padding = {1, 0, 2, 1};
        int64_t inner = 1;
        for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
        std::vector<int32_t> xq;
        for (size_t k = 0; k < x.values.size(); ++k) {
          const int64_t channel = static_cast<int64_t>(k) / inner % channels;
          const QuantParams& q = params[static_cast<size_t>(channel)];
          xq.push_back(static_cast<int32_t>(quantize(x.values[k], q)));
        }
        c.xq = Tensor::from_values(shape, xq, prec + 2);  // values in [0, 2^P] (decision Q2)
        for (const QuantParams& q : params) {
          c.zx.push_back(-q.zero_point);
          c.multipliers.push_back(1);
          c.pad_constants.push_back(round_half_away(pv * q.scale));
        }
        // round(sc * Yr), element by element, from the real data.
        const Int64Tensor expected_shape = direct(c);
        std::vector<int64_t> expected;
        const int64_t h = shape[2], w = shape[3], ph1 = 1, pw1 = 2;
        for (int64_t flat = 0; flat < shape_size(expected_shape.shape); ++flat) {
          if (!is_pad) {
            const QuantParams& q = params[static_cast<size_t>(flat / inner % channels)];
            const double real = x.values[static_cast<size_t>(flat)];
            expected.push_back(round_half_away(q.scale * std::max(0.0, real)));
            continue;
          }
          const int64_t ow = expected_shape.shape[3], oh = expected_shape.shape[2];
          const int64_t s = flat % ow, r = flat / ow % oh, i = flat / ow / oh % channels;
          const int64_t n = flat / ow / oh / channels;
          const QuantParams& q = params[static_cast<size_t>(i)];
          const bool inside = r >= ph1 && r < ph1 + h && s >= pw1 && s < pw1 + w;
          const int64_t source = ((n * channels + i) * h + r - ph1) * w + s - pw1;
          const double real = inside ? x.values[static_cast<size_t>(source)] : pv;
          expected.push_back(round_half_away(q.scale * real));
        }
        for (const Backend& b : registry().backends()) {
          if (!skip_reason(b, c.scheme).empty()) continue;
          const Tensor y = expand(c, ExpansionRun{registry(), b.name});
          for (int64_t k = 0; k < y.size(); ++k) {
            RC_ASSERT(int64_t{y.get(k)} == expected[static_cast<size_t>(k)]);
          }
        }
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(v.passed) << v.message;
}

}  // namespace
}  // namespace cvm::mrt
