// conv2d and dense: the optimized backend against oneDNN (end to end and primitive alone) and the
// reference, side by side, on 1 and 2 threads. Inputs are int32 tensors of precision 8 (values
// in [-127, 127]), no bias; "ours_p7" times ours on data of precision 7 ([-63, 63]). "ours" times the optimized kernel end to end: inference, packing,
// compute and the int32 NCHW output. Before timing, the oneDNN output is compared with ours bit
// for bit; where it differs (oneDNN's int8 paths without VNNI, docs/conformance/onednn.md) it is
// timed anyway and labelled "inexact on this CPU" with the first differing element, and the
// same job with restricted weights, which those paths compute exactly (onednn_exact_*), is
// timed too. Names: <op>/<shape>/<impl>/t<threads>.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <utility>
#include <vector>

#include "registry/registry.h"
#include "cvmcheck/registry.h"
#include "onednn_peer.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "summary.h"

namespace cvm::bench {
namespace {

const std::vector<ConvShape>& conv_shapes() {
  static const std::vector<ConvShape> shapes = {
      {"C64_56x56_OC64_k3_p1", 1, 64, 56, 56, 64, 3, 1, 1, 1},
      {"C3_224x224_OC64_k7_s2_p3", 1, 3, 224, 224, 64, 7, 2, 3, 1},
      {"C256_14x14_OC256_k3_p1", 1, 256, 14, 14, 256, 3, 1, 1, 1},
      {"C128_56x56_k3_g128_depthwise", 1, 128, 56, 56, 128, 3, 1, 1, 128},
  };
  return shapes;
}

const std::vector<DenseShape>& dense_shapes() {
  static const std::vector<DenseShape> shapes = {
      {"1x4096x4096", 1, 4096, 4096},
      {"64x1024x1024", 64, 1024, 1024},
      {"256x256x256", 256, 256, 256},
  };
  return shapes;
}

// Values uniform in [-alpha(p), alpha(p)], precision p (8: [-127, 127]).
Tensor random_tensor(const Shape& shape, uint32_t seed, int p = 8) {
  std::mt19937 gen(seed);
  const auto a = static_cast<int32_t>((1 << (p - 1)) - 1);
  std::uniform_int_distribution<int32_t> dist(-a, a);
  std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
  for (int32_t& e : v) e = dist(gen);
  return Tensor::from_values(shape, v, p);
}

// One call of one backend's kernel, with the attributes parsed once.
struct Call {
  const OpInfo& op;
  Attrs attrs;
  std::vector<Tensor> inputs;
  Kernel kernel;

  Call(const std::string& name, const nlohmann::json& json, std::vector<Tensor> in,
       const std::string& backend)
      : op(registry().op(name)),
        attrs(parse_attrs(op.attrs, json)),
        inputs(std::move(in)),
        kernel(registry().find_backend(backend)->kernels.at(name)) {}

  std::vector<Tensor> run() const { return kernel(OpContext{op, attrs, inputs}); }
};

// "(v, v)", built by appending (GCC 12 warns, falsely, on "(" + std::string temporaries).
std::string pair_text(int64_t v) {
  std::string text = "(";
  text += std::to_string(v);
  text += ", ";
  text += std::to_string(v);
  text += ")";
  return text;
}

Call conv_call(const ConvShape& s, const std::string& backend, int p_data = 8) {
  const nlohmann::json attrs = {
      {"channels", std::to_string(s.oc)},   {"kernel_size", pair_text(s.k)},
      {"strides", pair_text(s.stride)},     {"padding", pair_text(s.pad)},
      {"groups", std::to_string(s.groups)}, {"use_bias", "false"}};
  return Call(
      "conv2d", attrs,
      {random_tensor({s.n, s.c, s.h, s.w}, 1, p_data),
       random_tensor({s.oc, s.c / s.groups, s.k, s.k}, 2)},
      backend);
}

Call dense_call(const DenseShape& s, const std::string& backend, int p_data = 8) {
  const nlohmann::json attrs = {{"units", std::to_string(s.units)}, {"use_bias", "false"}};
  return Call("dense", attrs,
              {random_tensor({s.m, s.k}, 3, p_data), random_tensor({s.units, s.k}, 4)}, backend);
}

// The weights oneDNN's int8 paths without VNNI compute exactly (docs/conformance/onednn.md):
// conv2d halves each weight with rounding to nearest even and doubles the sum, exact for even
// weights; dense sums u8 x s8 pairs into 16 bits with saturation, exact for |w| <= 64.
const char* restricted_weights(const std::string& op) {
  return op == "conv2d" ? "even weights (w - w % 2)" : "weights within [-64, 64] (w / 2)";
}
void restrict_weights(const std::string& op, Tensor& w) {
  for (int64_t i = 0; i < w.size(); ++i) {
    const int32_t v = w.i32()[i];
    w.i32()[i] = op == "conv2d" ? v - v % 2 : v / 2;
  }
}

// Every benchmark sets its thread count first: ours, and OpenMP's for oneDNN.
void set_threads(int threads) {
  opt::set_threads(threads);
  omp_set_num_threads(threads);
}

template <typename Shape>
Call make_call(const Shape& s, const std::string& backend, int p_data = 8) {
  if constexpr (std::is_same_v<Shape, ConvShape>) {
    return conv_call(s, backend, p_data);
  } else {
    return dense_call(s, backend, p_data);
  }
}

// p_data 7 ("ours_p7"): data of precision 7, which AVX2 multiplies with vpmaddubsw (exact there).
template <typename Shape>
void bench_ours(benchmark::State& state, Shape s, const std::string& backend, int threads,
                int p_data = 8) {
  set_threads(threads);
  const Call call = make_call(s, backend, p_data);
  for (auto _ : state) {
    std::vector<Tensor> y = call.run();
    benchmark::DoNotOptimize(y[0].i32());
  }
  state.counters["GMAC/s"] = benchmark::Counter(static_cast<double>(s.macs()) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Ours with the AVX-VNNI kernels forced (a CPU whose CPUID pick is another ISA), natively: an
// emulated twin is never timed.
template <typename Shape>
void bench_ours_avxvnni(benchmark::State& state, Shape s, int threads) {
  opt::set_isa_cap(opt::Isa::kAvxVnni);
  bench_ours(state, s, std::string("optimized"), threads);
  opt::clear_isa_cap();
}

// The first element where oneDNN's output differs from ours, as a label; empty when equal.
std::string first_difference(const std::vector<int32_t>& y, const Tensor& expected,
                             const Call& reference) {
  size_t i = 0;
  while (i < y.size() && y[i] == expected.i32()[i]) ++i;
  if (i == y.size()) return "";
  const bool ours_ok = reference.run()[0].identical(expected);
  return "inexact on this CPU: first difference at element " + std::to_string(i) + ": oneDNN " +
         std::to_string(y[i]) + ", ours " + std::to_string(expected.i32()[i]) +
         (ours_ok ? " (equal to the reference)" : " (NOT equal to the reference either)");
}

// impl "onednn_e2e"/"onednn_prim": the benchmark's inputs; "onednn_exact_e2e"/"_prim": the same
// with restricted weights, run only where the unrestricted job is inexact.
template <typename Shape>
void bench_onednn(benchmark::State& state, Shape s, bool end_to_end, bool restricted,
                  int threads) {
  set_threads(threads);
  Call call = make_call(s, "optimized");
  Call reference = make_call(s, "reference");
  const std::string op = call.op.name;
  std::vector<int32_t> y(static_cast<size_t>(call.run()[0].size()));
  if (restricted) {
    {
      OneDnnPeer plain(s, call.inputs[0].i32(), call.inputs[1].i32(), y.data());
      if (first_difference(y, call.run()[0], reference).empty()) {
        state.SkipWithError("not run: oneDNN is exact on this CPU with unrestricted weights");
        return;
      }
    }
    restrict_weights(op, call.inputs[1]);
    restrict_weights(op, reference.inputs[1]);
  }
  const Tensor expected = call.run()[0];
  OneDnnPeer peer(s, call.inputs[0].i32(), call.inputs[1].i32(), y.data());
  const std::string difference = first_difference(y, expected, reference);
  for (auto _ : state) {
    if (end_to_end) {
      peer.run_end_to_end();
    } else {
      peer.run_primitive();
    }
  }
  state.counters["GMAC/s"] = benchmark::Counter(static_cast<double>(s.macs()) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
  std::string label = peer.implementation();
  if (restricted) label += "; " + std::string(restricted_weights(op));
  if (!difference.empty()) label = difference + "; " + label;
  state.SetLabel(label);
}

// The fastest repetition: on a shared machine noise only adds time, and a neighbour can switch
// the same call between two speeds for seconds at a time (docs/performance.md), so a median over
// repetitions lands in either mode and a ratio of two medians can compare different modes.
double min_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

// register_case with the "min" aggregate the summary prefers.
template <typename... Args>
void register_timed(const std::string& name, Args&&... args) {
  register_case(name, std::forward<Args>(args)...)->ComputeStatistics("min", min_of);
}

template <typename Shape>
void register_shape(const std::string& op, const Shape& s) {
  const std::string base = op + "/" + s.name + "/";
  for (int t : {1, 2}) {
    const std::string suffix = "/t" + std::to_string(t);
    register_timed(base + "ours" + suffix, bench_ours<Shape>, s, std::string("optimized"), t, 8);
    register_timed(base + "ours_p7" + suffix, bench_ours<Shape>, s, std::string("optimized"), t,
                   7);
    // The AVX-VNNI column, where the CPU has it and picks another ISA ("ours" is it otherwise).
    if (opt::isa_supported(opt::Isa::kAvxVnni) && opt::detected_isa() != opt::Isa::kAvxVnni) {
      register_timed(base + "ours_avxvnni" + suffix, bench_ours_avxvnni<Shape>, s, t);
    }
    for (const bool restricted : {false, true}) {
      const std::string impl = restricted ? "onednn_exact_" : "onednn_";
      register_timed(base + impl + "e2e" + suffix, bench_onednn<Shape>, s, true, restricted, t);
      register_timed(base + impl + "prim" + suffix, bench_onednn<Shape>, s, false, restricted, t);
    }
  }
  // The naive oracle: one run is enough to show the scale.
  register_case(base + "reference/t1", bench_ours<Shape>, s, std::string("reference"), 1, 8)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
}

const bool registered = [] {
  for (const ConvShape& s : conv_shapes()) register_shape("conv2d", s);
  for (const DenseShape& s : dense_shapes()) register_shape("dense", s);
  return true;
}();

}  // namespace
}  // namespace cvm::bench
