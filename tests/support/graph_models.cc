#include "support/graph_models.h"

#include "harness/graph/graph_build.h"

namespace cvm::testing {

graph::Model conv_relu_shift_model() {
  graph::GraphBuilder b;
  const graph::EntryRef data = b.add_variable("data", {1, 1, 2, 2}, 8);
  const graph::EntryRef w = b.add_variable("param_1", {1, 1, 1, 1}, 8);
  const uint32_t conv = b.add_op("conv2d", R"j({"channels": "1", "kernel_size": "(1, 1)", "use_bias": "False"})j",
                                 {data, w}, {{1, 1, 2, 2}}, {17});
  const uint32_t relu = b.add_op("relu", "{}", {{conv, 0, 0}}, {{1, 1, 2, 2}}, {17});
  const uint32_t shift = b.add_op("cvm_right_shift", R"({"precision": "8", "shift_bit": "1"})",
                                  {{relu, 0, 0}}, {{1, 1, 2, 2}}, {8});
  graph::Model m{b.finish({{shift, 0, 0}}), {}};
  m.inputs.data = Tensor::from_values({1, 1, 2, 2}, {1, -2, 3, 127}, 8);
  m.inputs.params = {{"param_1", Tensor::from_values({1, 1, 1, 1}, {2}, 8)}};
  return m;
}

}  // namespace cvm::testing
