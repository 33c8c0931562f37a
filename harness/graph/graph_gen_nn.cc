// Drafters of the nn, elementwise and broadcast operators (graph_gen_ops.h): attributes in the
// ranges real quantized models use (small kernels, strides 1 or 2, 8-bit weights), so that most
// drafts are valid; the production inference refuses the rest.
#include <algorithm>

#include "cvmcheck/precision.h"
#include "harness/graph/graph_gen_ops.h"

namespace cvm::graph {
namespace {

std::string flag(bool b) { return b ? "True" : "False"; }

// Another live entry of exactly this shape, or -1.
int same_shape_entry(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  std::vector<int> same;
  for (size_t i = 0; i < live.size(); ++i) {
    if (static_cast<int>(i) != primary && live[i].shape == live[static_cast<size_t>(primary)].shape) {
      same.push_back(static_cast<int>(i));
    }
  }
  return same.empty() ? -1 : rng.pick(same);
}

std::optional<Draft> conv2d(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const Shape& x = live[static_cast<size_t>(primary)].shape;
  const int64_t c = x[1];
  int64_t groups = 1;
  if (rng.chance(0.2)) groups = c;                               // depthwise
  else if (rng.chance(0.1)) groups = rng.range(1, c);            // grouped (often refused)
  const int64_t channels = groups == 1 ? rng.range(1, 8) : groups * rng.range(1, 2);
  const int64_t kh = rng.range(1, 3), kw = rng.range(1, 3);
  const int64_t sh = rng.range(1, 2), sw = rng.range(1, 2);
  const int64_t ph = rng.range(0, 1), pw = rng.range(0, 1);
  const int64_t dh = rng.chance(0.8) ? 1 : 2, dw = rng.chance(0.8) ? 1 : 2;
  const bool bias = rng.chance(0.5);
  Draft d{"conv2d",
          {{"channels", std::to_string(channels)},
           {"kernel_size", tuple_text({kh, kw})},
           {"strides", tuple_text({sh, sw})},
           {"padding", tuple_text({ph, pw})},
           {"dilation", tuple_text({dh, dw})},
           {"groups", std::to_string(groups)},
           {"use_bias", flag(bias)}},
          {live_input(primary), param_input({channels, std::max<int64_t>(c / groups, 1), kh, kw},
                                            static_cast<int>(rng.range(2, 8)))}};
  if (bias) d.inputs.push_back(param_input({channels}, static_cast<int>(rng.range(4, 16))));
  return d;
}

std::optional<Draft> dense(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const Shape& x = live[static_cast<size_t>(primary)].shape;
  const int64_t units = rng.range(1, 16);
  const bool bias = rng.chance(0.5);
  Draft d{"dense",
          {{"units", std::to_string(units)}, {"use_bias", flag(bias)}},
          {live_input(primary), param_input({units, x[1]}, static_cast<int>(rng.range(2, 8)))}};
  if (bias) d.inputs.push_back(param_input({units}, static_cast<int>(rng.range(4, 16))));
  return d;
}

std::optional<Draft> max_pool2d(Rng& rng, int primary, const std::vector<LiveEntry>&) {
  const int64_t kh = rng.range(1, 3), kw = rng.range(1, 3);
  return Draft{"max_pool2d",
               {{"pool_size", tuple_text({kh, kw})},
                {"strides", tuple_text({rng.range(1, 2), rng.range(1, 2)})},
                {"padding", tuple_text({rng.range(0, kh - 1), rng.range(0, kw - 1)})},
                {"ceil_mode", flag(rng.chance(0.2))}},
               {live_input(primary)}};
}

std::optional<Draft> upsampling(Rng& rng, int primary, const std::vector<LiveEntry>&) {
  return Draft{"upsampling", {{"scale", std::to_string(rng.range(1, 2))}}, {live_input(primary)}};
}

template <const char* kName>
std::optional<Draft> unary(Rng&, int primary, const std::vector<LiveEntry>&) {
  return Draft{kName, {}, {live_input(primary)}};
}

std::optional<Draft> clip(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int64_t a = alpha(live[static_cast<size_t>(primary)].precision);
  const int64_t lo = rng.range(-a, std::max<int64_t>(a - 1, -a));
  return Draft{"clip",
               {{"a_min", std::to_string(lo)}, {"a_max", std::to_string(rng.range(lo + 1, std::max(lo + 1, a)))}},
               {live_input(primary)}};
}

std::optional<Draft> cvm_clip(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int p = live[static_cast<size_t>(primary)].precision;
  return Draft{"cvm_clip", {{"precision", std::to_string(rng.range(1, std::max(p, 8)))}}, {live_input(primary)}};
}

std::optional<Draft> shift(Rng& rng, int primary, const std::vector<LiveEntry>& live, bool left) {
  const int p = live[static_cast<size_t>(primary)].precision;
  if (left && p >= 32) return std::nullopt;
  const int64_t s = left ? rng.range(1, std::min(32 - p, 8)) : rng.range(1, std::max(p - 1, 1));
  const int64_t out = left ? rng.range(std::min<int64_t>(p + s, 32), 32) : rng.range(1, 8);
  return Draft{left ? "cvm_left_shift" : "cvm_right_shift",
               {{"precision", std::to_string(out)}, {"shift_bit", std::to_string(s)}},
               {live_input(primary)}};
}

std::optional<Draft> right_shift(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  return shift(rng, primary, live, false);
}
std::optional<Draft> left_shift(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  return shift(rng, primary, live, true);
}

template <const char* kName>
std::optional<Draft> elemwise(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int other = rng.chance(0.6) ? same_shape_entry(rng, primary, live) : -1;
  const LiveEntry& x = live[static_cast<size_t>(primary)];
  return Draft{kName, {},
               {live_input(primary),
                other >= 0 ? live_input(other) : param_input(x.shape, static_cast<int>(rng.range(1, std::max(x.precision, 2))))}};
}

// The second operand of a broadcast: a live entry that broadcasts against the first, or a new
// parameter of the first's shape with some dims set to 1, or fewer (trailing) dims.
template <const char* kName>
std::optional<Draft> broadcast(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const LiveEntry& x = live[static_cast<size_t>(primary)];
  const std::string op = kName;
  const int other = rng.chance(0.4) && op != "broadcast_div" ? same_shape_entry(rng, primary, live) : -1;
  Draft d{op, {}, {live_input(primary)}};
  if (other >= 0) {
    d.inputs.push_back(live_input(other));
    return d;
  }
  Shape s = x.shape;
  if (rng.chance(0.3)) s.erase(s.begin(), s.begin() + static_cast<long>(rng.below(s.size())));
  for (int64_t& dim : s) {
    if (rng.chance(0.5)) dim = 1;
  }
  int p = static_cast<int>(rng.range(1, 8));
  if (op == "broadcast_mul") p = std::max(1, std::min(p, 32 - x.precision));
  DraftInput b = param_input(s, op == "broadcast_div" ? std::max(p, 2) : p);  // 0 alone fits 1 bit
  b.param.nonzero = op == "broadcast_div";
  d.inputs.push_back(b);
  if (rng.chance(0.2)) std::swap(d.inputs[0], d.inputs[1]);  // the lower rank on the left
  return d;
}

constexpr char kRelu[] = "relu", kAbs[] = "abs", kNegative[] = "negative",
               kPrecision[] = "cvm_precision", kAdd[] = "elemwise_add", kSub[] = "elemwise_sub",
               kBAdd[] = "broadcast_add", kBSub[] = "broadcast_sub", kBMul[] = "broadcast_mul",
               kBDiv[] = "broadcast_div", kBMax[] = "broadcast_max", kBGreater[] = "broadcast_greater";

}  // namespace

void add_nn_and_elementwise_drafters(std::vector<OpDrafter>& t) {
  t.push_back({"broadcast_add", 0, 32, broadcast<kBAdd>});
  t.push_back({"broadcast_sub", 0, 32, broadcast<kBSub>});
  t.push_back({"broadcast_mul", 0, 31, broadcast<kBMul>});
  t.push_back({"broadcast_div", 0, 32, broadcast<kBDiv>});
  t.push_back({"broadcast_max", 0, 32, broadcast<kBMax>});
  t.push_back({"broadcast_greater", 0, 32, broadcast<kBGreater>});
  t.push_back({"abs", 0, 32, unary<kAbs>});
  t.push_back({"cvm_precision", 0, 32, unary<kPrecision>});
  t.push_back({"elemwise_add", 0, 31, elemwise<kAdd>});
  t.push_back({"elemwise_sub", 0, 31, elemwise<kSub>});
  t.push_back({"negative", 0, 32, unary<kNegative>});
  t.push_back({"clip", 0, 32, clip});
  t.push_back({"cvm_clip", 0, 32, cvm_clip});
  t.push_back({"cvm_right_shift", 0, 32, right_shift});
  t.push_back({"cvm_left_shift", 0, 31, left_shift});
  t.push_back({"conv2d", 4, 8, conv2d});
  t.push_back({"dense", 2, 8, dense});
  t.push_back({"relu", 0, 32, unary<kRelu>});
  t.push_back({"max_pool2d", 4, 32, max_pool2d});
  t.push_back({"upsampling", 4, 32, upsampling});
}

}  // namespace cvm::graph
