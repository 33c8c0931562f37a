// Helpers of the nn family's generator records (harness/gen/nn_gen.cc: conv2d, dense, relu;
// harness/gen/nn_window_gen.cc: max_pool2d, upsampling): draws and the rules of pair attributes.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "harness/gen/generators.h"
#include "harness/gen/path_aim.h"

namespace cvm::nn_gen {

using gen::kInt32Max;
using gen::kInt32Min;
using gen::kInt64Max;
using gen::kInt64Min;
inline constexpr int64_t kTopAttr = kMaxAttr - 1;  // 4095, the largest valid padding/stride/dilation

using gen::add_rule;
using gen::coin;
using gen::draw_precision;

// Uniform in [lo, hi], both inclusive (rapidcheck's inRange excludes its upper end).
inline int64_t pick(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }

inline int64_t one_of(std::vector<int64_t> values) { return *rc::gen::elementOf(values); }

inline std::string text_of(std::vector<std::string> values) { return *rc::gen::elementOf(values); }

// gen::tensor_any_dtype at full size for the same reason (small sizes give mostly 0 or -alpha).
inline Tensor tensor(const Shape& shape, int p) {
  return *rc::gen::resize(100, gen::tensor_any_dtype(shape, p));
}

// Spells a tuple attribute, leaving it out now and then when it equals the default.
inline void set_tuple(Call& call, const std::string& name, const std::vector<int64_t>& value,
               const std::vector<int64_t>& default_value) {
  if (value != default_value || coin()) call.attrs[name] = *gen::tuple_text(value);
}

// Entries of a valid pair, repeated to a length that is not 2 (0, 1, 3 or 4).
inline std::vector<int64_t> wrong_length(const std::vector<int64_t>& pair) {
  const int64_t length = one_of({0, 1, 3, 4});
  std::vector<int64_t> v;
  for (int64_t i = 0; i < length; ++i) v.push_back(pair[static_cast<size_t>(i % 2)]);
  return v;
}

// A tensor whose rank is anything but `rank`.
inline Tensor tensor_not_of_rank(int rank, int p) {
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
void add_pair_rules(std::vector<InvalidGenerator>& rules, const std::string& attr, int64_t lo,
                    const std::string& below_rule, Draw draw) {
  add_rule(rules, attr + "_wrong_length", [=] {
    auto [call, pair] = draw();
    call.attrs[attr] = *gen::tuple_text(wrong_length(pair));
    return call;
  });
  add_rule(rules, below_rule, [=] {
    auto [call, pair] = draw();
    pair[static_cast<size_t>(pick(0, 1))] = one_of({lo - 1, lo - 2, -kMaxAttr, kInt64Min});
    call.attrs[attr] = *gen::tuple_text(pair);
    return call;
  });
  add_rule(rules, attr + "_above_4095", [=] {
    auto [call, pair] = draw();
    pair[static_cast<size_t>(pick(0, 1))] = one_of({kMaxAttr, kMaxAttr + 1, int64_t{1} << 40,
                                                    kInt64Max});
    call.attrs[attr] = *gen::tuple_text(pair);
    return call;
  });
}

// A conv2d call as drawn (harness/gen/nn_gen.cc): one spatial axis, then the whole call.
struct ConvAxis {
  int64_t in = 1, kernel = 1, pad = 0, stride = 1, dilation = 1;
  int64_t dilated() const { return dilation * (kernel - 1) + 1; }
};

struct ConvDraw {
  int64_t batch = 1, in_channels = 1, channels = 1, groups = 1;
  ConvAxis h, w;
  bool use_bias = false;
  int p_data = 8, p_weight = 8, p_bias = 8;
  // The saturation edge of AVX2's vpmaddubsw pairs: the data all +alpha (the largest u8 once
  // shifted), the weights all edge_sign * alpha (harness/gen/nn_gen.cc, aim_precisions).
  bool edge = false;
  int edge_sign = 1;
  int64_t terms() const { return in_channels / groups * h.kernel * w.kernel; }
  int64_t outputs() const { return channels; }
};

ConvDraw draw_conv();
Call conv_call(const ConvDraw& d);

// A dense call as drawn (harness/gen/nn_gen.cc).
struct DenseDraw {
  int64_t rows = 1, depth = 1, units = 1;
  bool use_bias = false;
  int p_data = 8, p_weight = 8, p_bias = 8;
  // The saturation edge of AVX2's vpmaddubsw pairs: the data all +alpha (the largest u8 once
  // shifted), the weights all edge_sign * alpha (harness/gen/nn_gen.cc, aim_precisions).
  bool edge = false;
  int edge_sign = 1;
  int64_t terms() const { return depth; }
  int64_t outputs() const { return units; }
};

DenseDraw draw_dense();
Call dense_call(const DenseDraw& d);

// The value check of conv2d's and dense's inputs on shapes that take every fast path
// (harness/gen/nn_scale_gen.cc).
std::vector<InvalidGenerator> conv2d_at_scale();
std::vector<InvalidGenerator> dense_at_scale();

// The window and scale operators' records (harness/gen/nn_window_gen.cc).
OpGenerators max_pool2d_generators();
OpGenerators upsampling_generators();

}  // namespace cvm::nn_gen
