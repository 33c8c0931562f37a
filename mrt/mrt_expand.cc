// The expansions of the MRT formalization (docs/glossary.md), step by step as it writes them, each step one registered
// operator called through the registry on the chosen backend. Constants written "C" in the seed
// are parameters folded at rewrite time (they depend only on weights and zero points), so they
// are computed here and enter the graph as constant tensors.
#include <cstdlib>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "mrt/mrt_identity.h"

namespace cvm::mrt {
namespace {

using nlohmann::json;

std::string tuple_text(const std::vector<int64_t>& entries) {
  std::string text = "(";
  for (size_t i = 0; i < entries.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(entries[i]);
  }
  return text + (entries.size() == 1 ? ",)" : ")");
}

class Graph {
 public:
  explicit Graph(const ExpansionRun& run) : run_(run) {}

  Tensor call(const std::string& op, const json& attrs, const std::vector<Tensor>& inputs,
              const std::string& label) {
    ++steps_;
    const Outcome outcome = run_op_outcome(run_.registry, run_.backend, op, attrs, inputs);
    if (outcome.kind != OutcomeKind::kOk || outcome.outputs.size() != 1) {
      fail_runtime("mrt expansion step ", steps_, " (", label, "): ", op, " on ", run_.backend,
                   " gave ", outcome_name(outcome.kind), ": ", outcome.message);
    }
    if (run_.trace != nullptr) {
      run_.trace->push_back({op, attrs, inputs, outcome.outputs[0], label});
    }
    return outcome.outputs[0];
  }

  bool bug(PlantedBug b) const { return run_.bug == b; }

 private:
  const ExpansionRun& run_;
  int steps_ = 0;
};

Tensor scalar(int64_t v) { return constant_tensor({1}, {v}); }

Tensor ones(const Shape& shape) {
  return constant_tensor(shape, std::vector<int64_t>(static_cast<size_t>(shape_size(shape)), 1));
}

std::string idx(const char* name, int64_t i) { return std::string(name) + std::to_string(i); }

// Channel lazy split: slice i of axis 1 (begin (0, i), end (n0, i + 1); later axes whole).
Tensor slice_channel(Graph& g, const Tensor& x, int64_t i, const std::string& label) {
  const json attrs = {{"begin", tuple_text({0, i})}, {"end", tuple_text({x.dim(0), i + 1})}};
  return g.call("strided_slice", attrs, {x}, label);
}

// Channel lazy merge by broadcast_add: Ye = sum_i m_i * Yei.
Tensor merge_by_add(Graph& g, const std::vector<Tensor>& parts, const std::vector<int64_t>& m) {
  Tensor merged;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor scaled =
        g.bug(PlantedBug::kMergeDropMultiplier)
            ? parts[i]
            : g.call("broadcast_mul", json::object(), {parts[i], scalar(m[i])},
                     idx("m_i * Yei, i=", static_cast<int64_t>(i)));
    merged = i == 0 ? scaled
                    : g.call("broadcast_add", json::object(), {merged, scaled},
                             idx("Ye += m_i * Yei, i=", static_cast<int64_t>(i)));
  }
  return merged;
}

// Channel lazy merge by concat along the channel axis: Ye = concat([m_i * Yei], axis=1).
Tensor merge_by_concat(Graph& g, const std::vector<Tensor>& parts,
                       const std::vector<int64_t>& m) {
  std::vector<Tensor> scaled;
  for (size_t i = 0; i < parts.size(); ++i) {
    scaled.push_back(g.bug(PlantedBug::kMergeDropMultiplier)
                         ? parts[i]
                         : g.call("broadcast_mul", json::object(), {parts[i], scalar(m[i])},
                                  idx("m_i * Yei, i=", static_cast<int64_t>(i))));
  }
  return g.call("concatenate", {{"axis", "1"}}, scaled, "Ye = concat([m_i * Yei], axis=1)");
}

json conv_attrs(int64_t channels, const Tensor& w, const IdentityCase& c) {
  return {{"channels", std::to_string(channels)},
          {"kernel_size", tuple_text({w.dim(2), w.dim(3)})},
          {"strides", tuple_text({c.strides[0], c.strides[1]})},
          {"dilation", tuple_text({c.dilation[0], c.dilation[1]})},
          {"use_bias", "false"}};
}

// Convolution(Xq, Wq) [+ C1 * Convolution(Xq, W1)] [+ C2] for one layer or one channel.
Tensor conv_terms(Graph& g, const IdentityCase& c, const Tensor& x, const Tensor& w,
                  int64_t zx, int64_t zw) {
  const int64_t out_ch = w.dim(0), in_ch = w.dim(1), kh = w.dim(2), kw = w.dim(3);
  Tensor y = g.call("conv2d", conv_attrs(out_ch, w, c), {x, w}, "Convolution(Xq, Wq)");
  if (c.scheme.w_zero_point) {
    const Tensor w1 = ones({1, in_ch, kh, kw});
    Tensor t = g.call("conv2d", conv_attrs(1, w1, c), {x, w1}, "Convolution(Xq, W1)");
    t = g.call("broadcast_mul", json::object(), {t, scalar(zw)}, "C1 * Convolution(Xq, W1)");
    y = g.call("broadcast_add", json::object(), {y, t}, "+ C1 * Convolution(Xq, W1)");
  }
  if (c.scheme.x_zero_point) {
    // C2[o] = zx * sum Wq[o] (+ C*KH*KW*zx*zw with a zero-point W)
    std::vector<int64_t> c2;
    const int64_t per_out = w.size() / out_ch;
    for (int64_t o = 0; o < out_ch; ++o) {
      int64_t sum_w = 0;
      for (int64_t k = 0; k < per_out; ++k) sum_w += w.get(o * per_out + k);
      int64_t v = zx * sum_w;
      if (c.scheme.w_zero_point && !g.bug(PlantedBug::kConvDropZpProduct)) {
        v += in_ch * kh * kw * zx * zw;
      }
      c2.push_back(v);
    }
    y = g.call("broadcast_add", json::object(), {y, constant_tensor({1, out_ch, 1, 1}, c2)},
               "+ C2");
  }
  return y;
}

// FullyConnected(Xq, Wq) [+ C1 * sum(Xq, axis=1, keep_dims=True)] [+ C2].
Tensor dense_terms(Graph& g, const IdentityCase& c, const Tensor& x, const Tensor& w,
                   int64_t zx, int64_t zw) {
  const int64_t units = w.dim(0), depth = w.dim(1);
  Tensor y = g.call("dense", {{"units", std::to_string(units)}, {"use_bias", "false"}}, {x, w},
                    "FullyConnected(Xq, Wq)");
  if (c.scheme.w_zero_point && !g.bug(PlantedBug::kDenseDropXSum)) {
    Tensor s = g.call("sum", {{"axis", "(1,)"}, {"keepdims", "true"}}, {x},
                      "sum(Xq, axis=1, keep_dims=True)");
    s = g.call("broadcast_mul", json::object(), {s, scalar(zw)}, "C1 * sum(Xq)");
    y = g.call("broadcast_add", json::object(), {y, s}, "+ C1 * sum(Xq)");
  }
  if (c.scheme.x_zero_point) {
    std::vector<int64_t> c2;
    for (int64_t m = 0; m < units; ++m) {
      int64_t sum_w = 0;
      for (int64_t k = 0; k < depth; ++k) sum_w += w.get(m * depth + k);
      c2.push_back(zx * sum_w + (c.scheme.w_zero_point ? depth * zx * zw : 0));
    }
    y = g.call("broadcast_add", json::object(), {y, constant_tensor({1, units}, c2)}, "+ C2");
  }
  return y;
}

json pad_attrs(const IdentityCase& c, int64_t constant) {
  const auto [ph1, ph2, pw1, pw2] = c.padding;
  return {{"pad_width", tuple_text({0, 0, 0, 0, ph1, ph2, pw1, pw2})},
          {"constant_value", std::to_string(constant)},
          {"mode", "constant"}};
}

Tensor add_offset(Graph& g, const Tensor& x, int64_t z, const std::string& label) {
  return g.call("broadcast_add", json::object(), {x, scalar(z)}, label);
}

// pad(Xq [+ C], constant_value=round(PV * sc_x)) for one layer or one channel.
Tensor pad_terms(Graph& g, const IdentityCase& c, const Tensor& x, int64_t zx, int64_t constant) {
  if (!c.scheme.x_zero_point) return g.call("pad", pad_attrs(c, constant), {x}, "pad(Xq)");
  if (g.bug(PlantedBug::kPadZpAfterPad)) {
    const Tensor padded = g.call("pad", pad_attrs(c, constant), {x}, "pad(Xq)");
    return add_offset(g, padded, zx, "pad(Xq) + C");
  }
  const Tensor shifted = add_offset(g, x, zx, "Xq + C");
  return g.call("pad", pad_attrs(c, constant), {shifted}, "pad(Xq + C)");
}

Tensor relu_terms(Graph& g, const IdentityCase& c, const Tensor& x, int64_t zx) {
  if (!c.scheme.x_zero_point) return g.call("relu", json::object(), {x}, "relu(Xq)");
  if (g.bug(PlantedBug::kReluZpAfterRelu)) {
    return add_offset(g, g.call("relu", json::object(), {x}, "relu(Xq)"), zx, "relu(Xq) + C");
  }
  return g.call("relu", json::object(), {add_offset(g, x, zx, "Xq + C")}, "relu(Xq + C)");
}

// [pad beforehand with the lowest value] Pooling(Xq) [C + ...]
Tensor pool_terms(Graph& g, const IdentityCase& c, const Tensor& x, int64_t zx) {
  Tensor input = x;
  if (c.padding != std::array<int64_t, 4>{0, 0, 0, 0}) {
    // The seed pads with INT_MIN, which no tensor may hold; the lowest value of the input's
    // precision never wins either (decision P1).
    const int64_t lowest = g.bug(PlantedBug::kPoolPadWithZero) ? 0 : -alpha(x.precision());
    input = g.call("pad", pad_attrs(c, lowest), {x}, "pad(Xq, constant_value=lowest)");
  }
  const json attrs = {{"pool_size", tuple_text({c.pool[0], c.pool[1]})},
                      {"strides", tuple_text({c.strides[0], c.strides[1]})}};
  Tensor y = g.call("max_pool2d", attrs, {input}, "Pooling(Xq)");
  if (c.scheme.x_zero_point) {
    y = g.call("broadcast_add", json::object(), {scalar(zx), y}, "C + Pooling(Xq)");
  }
  return y;
}

}  // namespace

Tensor constant_tensor(const Shape& shape, const std::vector<int64_t>& values) {
  int64_t max_abs = 0;
  for (int64_t v : values) max_abs = std::max(max_abs, std::abs(v));
  check(max_abs <= alpha(32), "mrt: constant ", max_abs, " does not fit int32");
  std::vector<int32_t> narrow(values.begin(), values.end());
  return Tensor::from_values(shape, narrow, bitlen(static_cast<uint64_t>(max_abs)) + 1);
}

Tensor expand(const IdentityCase& c, const ExpansionRun& run) {
  Graph g(run);
  const Family f = c.scheme.family;
  if (c.scheme.granularity == Granularity::kLayer) {
    const int64_t zx = c.zx.empty() ? 0 : c.zx[0], zw = c.zw.empty() ? 0 : c.zw[0];
    switch (f) {
      case Family::kConv2d: return conv_terms(g, c, c.xq, c.wq, zx, zw);
      case Family::kDense: return dense_terms(g, c, c.xq, c.wq, zx, zw);
      case Family::kPad: return pad_terms(g, c, c.xq, zx, c.pad_constants[0]);
      case Family::kRelu: return relu_terms(g, c, c.xq, zx);
      case Family::kMaxPool2d: return pool_terms(g, c, c.xq, zx);
    }
  }
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < c.channels(); ++i) {
    const size_t k = static_cast<size_t>(i);
    const Tensor xi = slice_channel(g, c.xq, i, idx("Xqi = slice(Xq), i=", i));
    const int64_t zx = c.zx.empty() ? 0 : c.zx[k], zw = c.zw.empty() ? 0 : c.zw[k];
    switch (f) {
      case Family::kConv2d:
      case Family::kDense: {
        const Tensor wi = slice_channel(g, c.wq, i, idx("Wqi = slice(Wq), i=", i));
        parts.push_back(f == Family::kConv2d ? conv_terms(g, c, xi, wi, zx, zw)
                                             : dense_terms(g, c, xi, wi, zx, zw));
        break;
      }
      case Family::kPad: parts.push_back(pad_terms(g, c, xi, zx, c.pad_constants[k])); break;
      case Family::kRelu: parts.push_back(relu_terms(g, c, xi, zx)); break;
      case Family::kMaxPool2d: parts.push_back(pool_terms(g, c, xi, zx)); break;
    }
  }
  return has_weights(f) ? merge_by_add(g, parts, c.multipliers)
                        : merge_by_concat(g, parts, c.multipliers);
}

}  // namespace cvm::mrt
