#include "harness/golden/golden_graph_chains.h"

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "harness/graph/graph_build.h"
#include "harness/graph/graph_infer.h"
#include "harness/graph/graph_rng.h"

namespace cvm {
namespace {

using graph::EntryRef;

// A model built node by node: variables with drawn values, operators with their outputs'
// shapes and precisions inferred.
class ChainBuilder {
 public:
  ChainBuilder(const Registry& registry, uint64_t seed) : registry_(registry), rng_(seed) {}

  EntryRef data(const Shape& shape, int precision) {
    const EntryRef e = variable(graph::kDataName, shape, precision);
    inputs_.data = values(shape, precision);
    return e;
  }
  EntryRef param(const Shape& shape, int precision) {
    const std::string name = "param_" + std::to_string(inputs_.params.size() + 1);
    const EntryRef e = variable(name, shape, precision);
    inputs_.params.emplace_back(name, values(shape, precision));
    return e;
  }
  // The operator's outputs (get_valid_counts has two).
  std::vector<EntryRef> op(const std::string& name, const nlohmann::ordered_json& attrs,
                           const std::vector<EntryRef>& in) {
    std::vector<graph::EntrySpec> specs;
    for (const EntryRef& e : in) specs.push_back(spec_.at({e.node, e.index}));
    const std::vector<graph::EntrySpec> out =
        graph::infer_node(registry_, name, nlohmann::json::parse(attrs.dump()), specs);
    std::vector<Shape> shapes;
    std::vector<int> precisions;
    for (const graph::EntrySpec& o : out) {
      shapes.push_back(o.shape);
      precisions.push_back(o.precision);
    }
    const uint32_t node = builder_.add_op(name, attrs.dump(), in, shapes, precisions);
    std::vector<EntryRef> refs;
    for (uint32_t j = 0; j < out.size(); ++j) {
      refs.push_back({node, j, 0});
      spec_[{node, j}] = out[j];
    }
    return refs;
  }
  int precision(const EntryRef& e) const { return spec_.at({e.node, e.index}).precision; }
  // A right shift to 8 bits, as MRT requantizes.
  EntryRef requantize(const EntryRef& e) {
    const int shift = std::max(1, precision(e) - 8);
    return op("cvm_right_shift", {{"precision", "8"}, {"shift_bit", std::to_string(shift)}}, {e})[0];
  }
  GoldenChain finish(std::string name, std::string note, const std::vector<EntryRef>& heads,
                     graph::StoragePlan plan) {
    return {std::move(name), std::move(note), builder_.finish(heads, plan), inputs_, plan};
  }

 private:
  EntryRef variable(const std::string& name, const Shape& shape, int precision) {
    const EntryRef e = builder_.add_variable(name, shape, precision);
    spec_[{e.node, e.index}] = {shape, precision};
    return e;
  }
  // Uniform within the precision, its extremes one time in eight each.
  Tensor values(const Shape& shape, int precision) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const int64_t a = alpha(precision);
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& x : v) {
      const uint64_t r = rng_.below(8);
      x = static_cast<int32_t>(r == 0 ? a : r == 1 ? -a : rng_.range(-a, a));
    }
    return Tensor::from_values(shape, v, precision);
  }

  const Registry& registry_;
  graph::Rng rng_;
  graph::GraphBuilder builder_;
  graph::ModelInputs inputs_;
  std::map<std::pair<uint32_t, uint32_t>, graph::EntrySpec> spec_;
};

GoldenChain conv_block(const Registry& registry, uint64_t seed) {
  ChainBuilder b(registry, seed);
  const EntryRef x = b.data({1, 3, 8, 8}, 8);
  const EntryRef conv = b.op("conv2d",
                             {{"channels", "4"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"},
                              {"strides", "(1, 1)"}, {"use_bias", "False"}},
                             {x, b.param({4, 3, 3, 3}, 8)})[0];
  const EntryRef bias = b.op("broadcast_add", nlohmann::ordered_json::object(), {conv, b.param({4, 1, 1}, 16)})[0];
  const EntryRef relu = b.op("relu", nlohmann::ordered_json::object(), {b.requantize(bias)})[0];
  const EntryRef pool = b.op("max_pool2d", {{"pool_size", "(2, 2)"}, {"strides", "(2, 2)"}}, {relu})[0];
  return b.finish("chain_conv_bias_requant_relu_pool", "conv2d, bias, requantization, relu, max_pool2d",
                  {pool}, graph::StoragePlan::kLiveness);
}

GoldenChain dense_head(const Registry& registry, uint64_t seed) {
  ChainBuilder b(registry, seed);
  const EntryRef x = b.data({2, 3, 4, 4}, 8);
  const EntryRef relu = b.op("relu", nlohmann::ordered_json::object(), {x})[0];
  const EntryRef flat = b.op("flatten", nlohmann::ordered_json::object(), {relu})[0];
  const EntryRef dense = b.op("dense", {{"units", "10"}, {"use_bias", "True"}},
                              {flat, b.param({10, 48}, 8), b.param({10}, 16)})[0];
  const EntryRef clip = b.op("cvm_clip", {{"precision", "8"}}, {b.requantize(dense)})[0];
  return b.finish("chain_relu_flatten_dense_requant", "relu, flatten, dense with bias, requantization, cvm_clip",
                  {clip}, graph::StoragePlan::kInPlace);
}

GoldenChain detection(const Registry& registry, uint64_t seed) {
  ChainBuilder b(registry, seed);
  const EntryRef x = b.data({1, 8, 6}, 8);
  const std::vector<EntryRef> counts = b.op("get_valid_counts", {{"score_threshold", "0"}}, {x});
  const EntryRef nms = b.op("non_max_suppression",
                            {{"iou_threshold", "50"}, {"max_output_size", "-1"}, {"top_k", "-1"},
                             {"force_suppress", "False"}},
                            {counts[1], counts[0]})[0];
  return b.finish("chain_get_valid_counts_nms", "get_valid_counts then non_max_suppression on its outputs",
                  {nms}, graph::StoragePlan::kOnePerEntry);
}

}  // namespace

std::vector<GoldenChain> golden_chains(const Registry& registry, uint64_t seed) {
  return {conv_block(registry, seed), dense_head(registry, seed + 1), detection(registry, seed + 2)};
}

}  // namespace cvm
