// Records of the nn family: conv2d, dense, relu, max_pool2d, upsampling (docs/ops/nn.md).
// Every expected output below was worked out by hand from the contract's formulas.
#include "schema.h"

namespace cvm::ops {

namespace {

std::vector<int32_t> repeated(size_t count, int32_t value) {
  return std::vector<int32_t>(count, value);
}

std::vector<int32_t> one_to(int32_t n) {
  std::vector<int32_t> v;
  for (int32_t i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

OpInfo conv2d_record() {
  OpInfo op{"conv2d", "nn", {}, 2, 3,
            {required("channels", AttrKind::kInt), required("kernel_size", AttrKind::kTuple),
             optional("strides", AttrKind::kTuple, "(1, 1)"),
             optional("padding", AttrKind::kTuple, "(0, 0)"),
             optional("dilation", AttrKind::kTuple, "(1, 1)"),
             optional("groups", AttrKind::kInt, "1"), choice("layout", {"NCHW"}),
             choice("kernel_layout", {"OIHW"}), choice("out_layout", {"__undef__", "NCHW"}),
             choice("out_dtype", {"same", "int32"}), optional("use_bias", AttrKind::kBool, "true")},
            {}};
  // X = 1..9 as a 3x3 image; W = [[1, 2], [3, -1]]:
  // Y[p,q] = X[p,q] + 2 X[p,q+1] + 3 X[p+1,q] - X[p+1,q+1]; precision 8 + 3 + bitlen(4).
  const ExampleTensor x = T({1, 1, 3, 3}, one_to(9), 8);
  const ExampleTensor w = T({1, 1, 2, 2}, {1, 2, 3, -1}, 3);
  const std::string no_bias = R"J({"channels": "1", "kernel_size": "(2, 2)",
                                   "use_bias": "false"})J";
  op.examples = {
      ok("kernel_2x2_no_bias", no_bias, {x, w}, {T({1, 1, 2, 2}, {12, 17, 27, 32}, 14)}),
      // use_bias defaults to true; precision max(14, 5) + 1.
      ok("kernel_2x2_with_bias", R"J({"channels": "1", "kernel_size": "[2,2]"})J",
         {x, w, T({1}, {-10}, 5)}, {T({1, 1, 2, 2}, {2, 7, 17, 22}, 15)}),
      ok("every_attribute_spelled_out",
         R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "(1, 1)", "padding": "(0, 0)",
              "dilation": "(1, 1)", "groups": "1", "layout": "NCHW", "kernel_layout": "OIHW",
              "out_layout": "NCHW", "out_dtype": "int32", "use_bias": "False"})J",
         {x, w}, {T({1, 1, 2, 2}, {12, 17, 27, 32}, 14)}),
      ok("out_layout_undef_out_dtype_same",
         R"J({"channels": "1", "kernel_size": "(2, 2)", "out_layout": "__undef__",
              "out_dtype": "same", "use_bias": "0"})J",
         {x, w}, {T({1, 1, 2, 2}, {12, 17, 27, 32}, 14)}),
      // Padding 1 around [[1,2],[3,4]] with W = [[1,0,-1],[0,1,0],[1,0,0]]; precision
      // 4 + 2 + bitlen(9).
      ok("padding_1_kernel_3x3",
         R"J({"channels": "1", "kernel_size": "(3, 3)", "padding": "(1, 1)",
              "use_bias": "false"})J",
         {T({1, 1, 2, 2}, {1, 2, 3, 4}, 4), T({1, 1, 3, 3}, {1, 0, -1, 0, 1, 0, 1, 0, 0}, 2)},
         {T({1, 1, 2, 2}, {1, 5, 1, 5}, 10)}),
      // X[r,c] = 4r + c + 1; Y[p,q] = X[2p,2q] + X[2p+1,2q+1].
      ok("strides_2",
         R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "(2, 2)",
              "use_bias": "false"})J",
         {T({1, 1, 4, 4}, one_to(16), 6), T({1, 1, 2, 2}, {1, 0, 0, 1}, 2)},
         {T({1, 1, 2, 2}, {7, 11, 23, 27}, 11)}),
      // OW = (4 - 2) / 3 + 1 = 1: Y[p,0] = X[p,0] + X[p,1].
      ok("strides_1_3",
         R"J({"channels": "1", "kernel_size": "(1, 2)", "strides": "[1,3]", "use_bias": "false"})J",
         {T({1, 1, 2, 4}, one_to(8), 5), T({1, 1, 1, 2}, {1, 1}, 2)},
         {T({1, 1, 2, 1}, {3, 11}, 9)}),
      // Dilated kernel 3x2: Y[0,q] = X[0,q] + X[0,q+1] + X[2,q] - X[2,q+1].
      ok("dilation_2_1",
         R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(2, 1)",
              "use_bias": "false"})J",
         {T({1, 1, 3, 3}, one_to(9), 5), T({1, 1, 2, 2}, {1, 1, 1, -1}, 2)},
         {T({1, 1, 1, 2}, {2, 4}, 10)}),
      // Padding (1,0), strides (2,1), dilation (1,2), bias 3: OH = 3/2 + 1, OW = 1/1 + 1.
      ok("padding_strides_dilation_bias",
         R"J({"channels": "1", "kernel_size": "(2, 2)", "padding": "(1, 0)", "strides": "(2, 1)",
              "dilation": "(1, 2)"})J",
         {T({1, 1, 3, 4}, {1, 2, 3, 4, 5, 6, 7, -1, -2, -3, -4, -5}, 4),
          T({1, 1, 2, 2}, {1, -1, 2, 1}, 3), T({1}, {3}, 3)},
         {T({1, 1, 2, 2}, {8, 11, -7, -1}, 11)}),
      // Groups 2, 4 -> 4 channels: outputs 0,1 read inputs 0,1; outputs 2,3 read inputs 2,3.
      ok("groups_2_with_bias",
         R"J({"channels": "4", "kernel_size": "(1, 1)", "groups": "2"})J",
         {T({1, 4, 1, 1}, {1, 2, 3, 4}, 4), T({4, 2, 1, 1}, {1, 2, 3, -1, -2, 1, 0, 3}, 3),
          T({4}, {1, -1, 1, -1}, 2)},
         {T({1, 4, 1, 1}, {6, 0, -1, 11}, 10)}),
      // Groups 2, 4 -> 2 channels: output 0 reads inputs 0,1, output 1 reads inputs 2,3.
      ok("groups_2_fewer_output_channels",
         R"J({"channels": "2", "kernel_size": "(1, 1)", "groups": "2", "use_bias": "false"})J",
         {T({1, 4, 1, 1}, {1, 2, 3, 4}, 4), T({2, 2, 1, 1}, {1, 1, 1, -1}, 2)},
         {T({1, 2, 1, 1}, {3, -1}, 8)}),
      // Depthwise: groups = C = OC = 2, each channel with its own 1x2 kernel.
      ok("depthwise",
         R"J({"channels": "2", "kernel_size": "(1, 2)", "groups": "2", "use_bias": "false"})J",
         {T({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, 5), T({2, 1, 1, 2}, {1, 1, 1, -1}, 2)},
         {T({1, 2, 2, 1}, {3, 7, -1, -1}, 9)}),
      ok("kernel_1x1_batch_2_three_channels",
         R"J({"channels": "3", "kernel_size": "(1, 1)", "use_bias": "false"})J",
         {T({2, 2, 1, 1}, {1, 2, 3, -4}, 4), T({3, 2, 1, 1}, {1, 1, 1, -1, 2, 0}, 3)},
         {T({2, 3, 1, 1}, {3, -1, 2, -1, 7, 6}, 9)}),
      // 127*127 + 127*127; precision 8 + 8 + bitlen(2).
      ok("int8_inputs_at_precision_edge",
         R"J({"channels": "1", "kernel_size": "(1, 2)", "use_bias": "false"})J",
         {T8({1, 1, 1, 2}, {127, -127}, 8), T8({1, 1, 1, 2}, {127, -127}, 8)},
         {T({1, 1, 1, 1}, {32258}, 18)}),
      // Bias at alpha(31): precision max(18, 31) + 1 = 32.
      ok("bias_precision_31",
         R"J({"channels": "1", "kernel_size": "(1, 2)"})J",
         {T8({1, 1, 1, 2}, {127, -127}, 8), T8({1, 1, 1, 2}, {127, -127}, 8),
          T({1}, {1073741823}, 31)},
         {T({1, 1, 1, 1}, {1073774081}, 32)}),
      ok("precision_1_inputs", R"J({"channels": "1", "kernel_size": "(1, 1)"})J",
         {T({1, 1, 1, 1}, {0}, 1), T({1, 1, 1, 1}, {0}, 1), T({1}, {0}, 1)},
         {T({1, 1, 1, 1}, {0}, 4)}),
      // Rows read at p*4095 - 4095: only the middle output row sees the image. (One axis at a
      // time keeps the output small when another test swaps the strides for (1, 1).)
      ok("padding_and_strides_4095_height",
         R"J({"channels": "1", "kernel_size": "(1, 1)", "padding": "(4095, 0)",
              "strides": "(4095, 1)", "use_bias": "false"})J",
         {T({1, 1, 1, 2}, {5, -6}, 4), T({1, 1, 1, 1}, {1}, 2)},
         {T({1, 1, 3, 2}, {0, 0, 5, -6, 0, 0}, 7)}),
      ok("padding_and_strides_4095_width",
         R"J({"channels": "1", "kernel_size": "(1, 1)", "padding": "(0, 4095)",
              "strides": "(1, 4095)", "use_bias": "false"})J",
         {T({1, 1, 2, 1}, {5, -6}, 4), T({1, 1, 1, 1}, {-1}, 2)},
         {T({1, 1, 2, 3}, {0, -5, 0, 0, 6, 0}, 7)}),
      // Dilated kernel height 4096 <= 1 + 2*4095; OH = 4095/4095 + 1. Output row 0 sees the
      // image through W[1], row 1 through W[0].
      ok("dilation_4095",
         R"J({"channels": "1", "kernel_size": "(2, 1)", "padding": "(4095, 0)",
              "strides": "(4095, 1)", "dilation": "(4095, 1)", "use_bias": "false"})J",
         {T({1, 1, 1, 1}, {3}, 4), T({1, 1, 2, 1}, {1, -1}, 2)},
         {T({1, 1, 2, 1}, {-3, 3}, 8)}),
  };
  const ExampleTensor b = T({1}, {1}, 2);
  op.examples.insert(op.examples.end(), {
      bad("use_bias_true_with_two_inputs", R"J({"channels": "1",
                                                "kernel_size": "(2, 2)"})J", {x, w}),
      bad("use_bias_false_with_three_inputs", no_bias, {x, w, b}),
      bad("channels_zero", R"J({"channels": "0", "kernel_size": "(2, 2)", "use_bias": "false"})J",
          {x, w}),
      bad("weight_out_channels_mismatch",
          R"J({"channels": "2", "kernel_size": "(2, 2)", "use_bias": "false"})J", {x, w}),
      bad("weight_in_channels_mismatch", no_bias, {x, T({1, 2, 2, 2}, repeated(8, 1), 2)}),
      bad("weight_kernel_shape_mismatch",
          R"J({"channels": "1", "kernel_size": "(3, 3)", "use_bias": "false"})J", {x, w}),
      bad("weight_not_4d", no_bias, {x, T({1, 1, 4}, {1, 2, 3, -1}, 3)}),
      bad("data_not_4d", no_bias, {T({1, 3, 3}, one_to(9), 8), w}),
      bad("bias_shape_mismatch", R"J({"channels": "1", "kernel_size": "(2, 2)"})J",
          {x, w, T({2}, {1, 1}, 2)}),
      bad("bias_not_1d", R"J({"channels": "1", "kernel_size": "(2, 2)"})J",
          {x, w, T({1, 1}, {1}, 2)}),
      bad("groups_zero",
          R"J({"channels": "1", "kernel_size": "(2, 2)", "groups": "0", "use_bias": "false"})J",
          {x, w}),
      bad("groups_negative",
          R"J({"channels": "1", "kernel_size": "(2, 2)", "groups": "-1", "use_bias": "false"})J",
          {x, w}),
      // C = 3 with groups 2 (W is shaped with C/groups = 1).
      bad("in_channels_not_divisible_by_groups",
          R"J({"channels": "2", "kernel_size": "(1, 1)", "groups": "2", "use_bias": "false"})J",
          {T({1, 3, 1, 1}, {1, 2, 3}, 4), T({2, 1, 1, 1}, {1, 1}, 2)}),
      bad("channels_not_divisible_by_groups",
          R"J({"channels": "3", "kernel_size": "(1, 1)", "groups": "2", "use_bias": "false"})J",
          {T({1, 2, 1, 1}, {1, 2}, 4), T({3, 1, 1, 1}, {1, 1, 1}, 2)}),
      bad("kernel_size_one_entry",
          R"J({"channels": "1", "kernel_size": "(2,)", "use_bias": "false"})J", {x, w}),
      bad("kernel_size_three_entries",
          R"J({"channels": "1", "kernel_size": "(2, 2, 1)", "use_bias": "false"})J", {x, w}),
      bad("kernel_size_zero",
          R"J({"channels": "1", "kernel_size": "(0, 2)", "use_bias": "false"})J", {x, w}),
      bad("kernel_size_int64_min",
          R"J({"channels": "1", "kernel_size": "(2, -9223372036854775808)", "use_bias": "false"})J",
          {x, w}),
      bad("strides_zero", R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "(0, 1)",
                               "use_bias": "false"})J", {x, w}),
      bad("strides_negative", R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "(1, -1)",
                                   "use_bias": "false"})J", {x, w}),
      bad("strides_4096", R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "(4096, 1)",
                               "use_bias": "false"})J", {x, w}),
      bad("strides_one_entry", R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "1",
                                    "use_bias": "false"})J", {x, w}),
      bad("strides_empty", R"J({"channels": "1", "kernel_size": "(2, 2)", "strides": "()",
                                "use_bias": "false"})J", {x, w}),
      bad("padding_negative", R"J({"channels": "1", "kernel_size": "(2, 2)", "padding": "(-1, 0)",
                                   "use_bias": "false"})J", {x, w}),
      bad("padding_4096", R"J({"channels": "1", "kernel_size": "(2, 2)", "padding": "(0, 4096)",
                               "use_bias": "false"})J", {x, w}),
      bad("padding_three_entries", R"J({"channels": "1", "kernel_size": "(2, 2)",
                                        "padding": "(0, 0, 0)", "use_bias": "false"})J", {x, w}),
      bad("dilation_zero", R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(1, 0)",
                                "use_bias": "false"})J", {x, w}),
      bad("dilation_4096", R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(4096, 1)",
                                "use_bias": "false"})J", {x, w}),
      bad("dilation_int64_min",
          R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(-9223372036854775808, 1)",
               "use_bias": "false"})J", {x, w}),
      bad("dilation_one_entry", R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(1,)",
                                     "use_bias": "false"})J", {x, w}),
      // Dilated kernel height 2*(2-1)+1... with dilation 3: 4 > 3.
      bad("kernel_exceeds_input_height",
          R"J({"channels": "1", "kernel_size": "(2, 2)", "dilation": "(3, 1)",
               "use_bias": "false"})J",
          {x, w}),
      bad("kernel_exceeds_input_width",
          R"J({"channels": "1", "kernel_size": "(1, 4)", "use_bias": "false"})J",
          {x, T({1, 1, 1, 4}, {1, 1, 1, 1}, 2)}),
      bad("data_precision_9", no_bias, {T({1, 1, 3, 3}, one_to(9), 9), w}),
      bad("weight_precision_9", no_bias, {x, T({1, 1, 2, 2}, {1, 2, 3, -1}, 9)}),
      // max(14, 32) + 1 = 33.
      bad("output_precision_33", R"J({"channels": "1", "kernel_size": "(2, 2)"})J",
          {x, w, T({1}, {1}, 32)}),
      bad("layout_nhwc", R"J({"channels": "1", "kernel_size": "(2, 2)", "layout": "NHWC",
                              "use_bias": "false"})J", {x, w}),
      bad("kernel_layout_hwio", R"J({"channels": "1", "kernel_size": "(2, 2)",
                                     "kernel_layout": "HWIO", "use_bias": "false"})J", {x, w}),
      bad("out_layout_nhwc", R"J({"channels": "1", "kernel_size": "(2, 2)", "out_layout": "NHWC",
                                  "use_bias": "false"})J", {x, w}),
      bad("out_dtype_int8", R"J({"channels": "1", "kernel_size": "(2, 2)", "out_dtype": "int8",
                                 "use_bias": "false"})J", {x, w}),
      bad("missing_channels", R"J({"kernel_size": "(2, 2)", "use_bias": "false"})J", {x, w}),
      bad("value_outside_precision", no_bias, {x, T({1, 1, 2, 2}, {1, 2, 4, -1}, 3)}),
  });
  return op;
}

OpInfo dense_record() {
  OpInfo op{"dense", "nn", {}, 2, 3,
            {required("units", AttrKind::kInt), optional("use_bias", AttrKind::kBool, "true")}, {}};
  // Rows of X . rows of W: [1,2,3].[1,0,-1] = -2, [1,2,3].[2,1,1] = 7, [4,5,6] -> -2, 19.
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 4);
  const ExampleTensor w = T({2, 3}, {1, 0, -1, 2, 1, 1}, 3);
  const ExampleTensor b = T({2}, {10, -10}, 5);
  const std::string no_bias = R"J({"units": "2", "use_bias": "false"})J";
  op.examples = {
      // Precision 4 + 3 + bitlen(3) = 9, with bias max(9, 5) + 1.
      ok("with_bias", R"J({"units": "2"})J", {x, w, b}, {T({2, 2}, {8, -3, 8, 9}, 10)}),
      ok("without_bias", no_bias, {x, w}, {T({2, 2}, {-2, 7, -2, 19}, 9)}),
      ok("int8_inputs_at_precision_edge", R"J({"units": "3", "use_bias": "False"})J",
         {T8({1, 2}, {127, -127}, 8), T8({3, 2}, {127, 127, 127, -127, -127, -127}, 8)},
         {T({1, 3}, {0, 32258, 0}, 18)}),
      ok("units_1_k_1", R"J({"units": "1", "use_bias": "true"})J",
         {T({3, 1}, {1, -1, 0}, 2), T({1, 1}, {1}, 2), T({1}, {1}, 2)},
         {T({3, 1}, {2, 0, 1}, 6)}),
      ok("precision_1_inputs", R"J({"units": "1", "use_bias": "0"})J",
         {T({1, 1}, {0}, 1), T({1, 1}, {0}, 1)}, {T({1, 1}, {0}, 3)}),
      // Bias at alpha(31): 1 + 1073741823, precision max(5, 31) + 1 = 32.
      ok("bias_precision_31", R"J({"units": "1", "use_bias": "True"})J",
         {T({1, 1}, {1}, 2), T({1, 1}, {1}, 2), T({1}, {1073741823}, 31)},
         {T({1, 1}, {1073741824}, 32)}),
      bad("use_bias_true_with_two_inputs", R"J({"units": "2"})J", {x, w}),
      bad("use_bias_false_with_three_inputs", no_bias, {x, w, b}),
      bad("units_zero", R"J({"units": "0", "use_bias": "false"})J", {x, w}),
      bad("units_negative", R"J({"units": "-2", "use_bias": "false"})J", {x, w}),
      bad("units_mismatch", R"J({"units": "3", "use_bias": "false"})J", {x, w}),
      bad("weight_k_mismatch", no_bias, {x, T({2, 4}, repeated(8, 1), 3)}),
      bad("weight_not_2d", no_bias, {x, T({2, 3, 1}, {1, 0, -1, 2, 1, 1}, 3)}),
      bad("data_not_2d", no_bias, {T({1, 2, 3}, {1, 2, 3, 4, 5, 6}, 4), w}),
      bad("bias_shape_mismatch", R"J({"units": "2"})J", {x, w, T({3}, {1, 1, 1}, 5)}),
      bad("bias_not_1d", R"J({"units": "2"})J", {x, w, T({2, 1}, {1, 1}, 5)}),
      bad("data_precision_9", no_bias, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 9), w}),
      bad("weight_precision_9", no_bias, {x, T({2, 3}, {1, 0, -1, 2, 1, 1}, 9)}),
      // max(9, 32) + 1 = 33.
      bad("output_precision_33", R"J({"units": "2"})J", {x, w, T({2}, {10, -10}, 32)}),
      bad("missing_units", R"J({"use_bias": "false"})J", {x, w}),
      bad("value_outside_precision", no_bias, {T({2, 3}, {1, 2, 3, 4, 5, 8}, 4), w}),
  };
  return op;
}

OpInfo relu_record() {
  OpInfo op{"relu", "nn", {}, 1, 1, {}, {}};
  op.examples = {
      ok("mixed_signs", "{}", {T({2, 3}, {-3, -1, 0, 1, 2, 5}, 4)},
         {T({2, 3}, {0, 0, 0, 1, 2, 5}, 4)}),
      ok("int8_input", "{}", {T8({4}, {-127, 127, 0, -1}, 8)}, {T({4}, {0, 127, 0, 0}, 8)}),
      ok("precision_32_edges", "{}", {T({2}, {2147483647, -2147483647}, 32)},
         {T({2}, {2147483647, 0}, 32)}),
      ok("six_dims", "{}", {T({1, 1, 1, 1, 1, 2}, {-1, 1}, 2)}, {T({1, 1, 1, 1, 1, 2}, {0, 1}, 2)}),
      ok("all_negative", "{}", {T({3}, {-1, -2, -3}, 3)}, {T({3}, {0, 0, 0}, 3)}),
      bad("two_inputs", "{}", {T({1}, {1}, 2), T({1}, {1}, 2)}),
      bad("any_attribute", R"J({"alpha": "1"})J", {T({1}, {1}, 2)}),
      bad("value_outside_precision", "{}", {T({2}, {1, 2}, 2)}),
      bad("precision_33", "{}", {T({1}, {0}, 33)}),
      bad("int8_precision_above_8", "{}", {T8({1}, {1}, 9)}),
  };
  return op;
}

OpInfo max_pool2d_record() {
  OpInfo op{"max_pool2d", "nn", {}, 1, 1,
            {required("pool_size", AttrKind::kTuple),
             optional("strides", AttrKind::kTuple, "(1, 1)"),
             optional("padding", AttrKind::kTuple, "(0, 0)"), choice("layout", {"NCHW"}),
             optional("ceil_mode", AttrKind::kBool, "false")},
            {}};
  const ExampleTensor x33 = T({1, 1, 3, 3}, one_to(9), 5);
  const ExampleTensor neg22 = T({1, 1, 2, 2}, {-1, -2, -3, -4}, 4);
  // Padding never wins: each window's maximum over its in-image elements only.
  const ExampleTensor neg_padded = T({1, 1, 3, 3}, {-1, -1, -2, -1, -1, -2, -3, -3, -4}, 4);
  const ExampleTensor x22 = T({1, 1, 2, 2}, {1, 2, 3, 4}, 4);
  op.examples = {
      ok("pool_2_strides_2", R"J({"pool_size": "(2, 2)", "strides": "(2, 2)"})J",
         {T({1, 1, 4, 4}, {1, 3, 2, 4, 5, -6, 7, 0, -1, -2, -3, -4, 9, 8, -7, 6}, 5)},
         {T({1, 1, 2, 2}, {5, 7, 9, 6}, 5)}),
      ok("default_strides", R"J({"pool_size": "(2, 2)"})J",
         {T({1, 1, 2, 3}, {1, -5, 2, -3, 0, -6}, 4)},
         {T({1, 1, 1, 2}, {1, 2}, 4)}),
      ok("padding_never_wins", R"J({"pool_size": "(2, 2)", "padding": "(1, 1)"})J", {neg22},
         {neg_padded}),
      ok("padding_one_entry", R"J({"pool_size": "(2, 2)", "padding": "(1,)"})J", {neg22},
         {neg_padded}),
      ok("padding_bare_int", R"J({"pool_size": "[2,2]", "padding": "1", "ceil_mode": "False"})J",
         {neg22}, {neg_padded}),
      // (3 - 2) / 2 rounds down to 0 (one output) or up to 1 (two outputs).
      ok("floor_mode", R"J({"pool_size": "(2, 2)", "strides": "(2, 2)"})J", {x33},
         {T({1, 1, 1, 1}, {5}, 5)}),
      ok("ceil_mode", R"J({"pool_size": "(2, 2)", "strides": "(2, 2)",
                           "ceil_mode": "true"})J", {x33},
         {T({1, 1, 2, 2}, {5, 6, 8, 9}, 5)}),
      // 4x4 image 1..16, pool 3, padding 1, stride 2, ceil: windows start at -1, 1, 3; the last
      // window (rows 3..5) starts inside the image.
      ok("ceil_mode_with_padding",
         R"J({"pool_size": "(3, 3)", "padding": "(1, 1)", "strides": "(2, 2)", "ceil_mode": "1"})J",
         {T({1, 1, 4, 4}, one_to(16), 6)},
         {T({1, 1, 3, 3}, {6, 8, 8, 14, 16, 16, 14, 16, 16}, 6)}),
      ok("ceil_mode_exact_division",
         R"J({"pool_size": "(2, 2)", "padding": "(1, 1)", "strides": "(2, 2)",
              "ceil_mode": "True"})J",
         {x22}, {T({1, 1, 2, 2}, {1, 2, 3, 4}, 4)}),
      // Two channels; padding only on the width; windows at columns {-1,0} and {1,2}.
      ok("asymmetric_padding_two_channels",
         R"J({"pool_size": "(2, 2)", "padding": "(0, 1)", "strides": "(1, 2)", "layout": "NCHW"})J",
         {T({1, 2, 2, 3}, {1, 5, -2, 3, 0, 4, -8, -7, -6, -5, -9, -1}, 5)},
         {T({1, 2, 1, 2}, {3, 5, -5, -1}, 5)}),
      ok("int8_batch_2", R"J({"pool_size": "(1, 2)"})J",
         {T8({2, 1, 1, 3}, {-127, 127, 0, -1, -2, -3}, 8)},
         {T({2, 1, 1, 2}, {127, 127, -1, -2}, 8)}),
      // The pool covers the whole padded input: PSH = H + 2 PH.
      ok("pool_covers_padded_input", R"J({"pool_size": "(3, 3)", "padding": "(1, 1)"})J",
         {T({1, 1, 1, 1}, {-7}, 4)}, {T({1, 1, 1, 1}, {-7}, 4)}),
      ok("strides_4095", R"J({"pool_size": "(1, 1)", "strides": "(4095, 4095)"})J", {x22},
         {T({1, 1, 1, 1}, {1}, 4)}),
      ok("precision_32_edges", R"J({"pool_size": "(1, 2)"})J",
         {T({1, 1, 1, 2}, {-2147483647, -2147483646}, 32)}, {T({1, 1, 1, 1}, {-2147483646}, 32)}),
      bad("data_not_4d", R"J({"pool_size": "(2, 2)"})J", {T({1, 3, 3}, one_to(9), 5)}),
      bad("pool_size_one_entry", R"J({"pool_size": "(2,)"})J", {x33}),
      bad("pool_size_three_entries", R"J({"pool_size": "(2, 2, 1)"})J", {x33}),
      bad("pool_size_zero", R"J({"pool_size": "(0, 2)"})J", {x33}),
      bad("pool_size_negative", R"J({"pool_size": "(2, -1)"})J", {x33}),
      bad("pool_size_exceeds_padded_input", R"J({"pool_size": "(4, 2)"})J", {x33}),
      bad("pool_size_int64_max", R"J({"pool_size": "(9223372036854775807, 1)"})J", {x33}),
      bad("padding_height_not_below_pool_size", R"J({"pool_size": "(2, 2)", "padding": "(2, 0)"})J",
          {x22}),
      bad("padding_width_not_below_pool_size", R"J({"pool_size": "(2, 2)", "padding": "(0, 2)"})J",
          {x22}),
      bad("padding_empty", R"J({"pool_size": "(2, 2)", "padding": "()"})J", {x33}),
      bad("padding_three_entries", R"J({"pool_size": "(2, 2)", "padding": "(0, 0, 0)"})J", {x33}),
      bad("padding_negative", R"J({"pool_size": "(2, 2)", "padding": "(-1, 0)"})J", {x33}),
      // Pool 4097 <= 2 + 2*4096 and 4096 < 4097: only the padding range is broken.
      bad("padding_4096", R"J({"pool_size": "(4097, 1)", "padding": "(4096, 0)"})J", {x22}),
      bad("strides_zero", R"J({"pool_size": "(2, 2)", "strides": "(0, 1)"})J", {x33}),
      bad("strides_negative", R"J({"pool_size": "(2, 2)", "strides": "(1, -2)"})J", {x33}),
      bad("strides_4096", R"J({"pool_size": "(2, 2)", "strides": "(1, 4096)"})J", {x33}),
      bad("strides_one_entry", R"J({"pool_size": "(2, 2)", "strides": "(1,)"})J", {x33}),
      // (2 + 2 - 2) / 3 rounds up to 1: the second window starts at 3 - 1 = 2, outside H = 2.
      bad("ceil_mode_last_window_outside_height",
          R"J({"pool_size": "(2, 2)", "padding": "(1, 1)", "strides": "(3, 1)",
               "ceil_mode": "true"})J",
          {x22}),
      bad("ceil_mode_last_window_outside_width",
          R"J({"pool_size": "(2, 2)", "padding": "(1, 1)", "strides": "(1, 3)",
               "ceil_mode": "true"})J",
          {x22}),
      bad("layout_nhwc", R"J({"pool_size": "(2, 2)", "layout": "NHWC"})J", {x33}),
      bad("missing_pool_size", "{}", {x33}),
      bad("value_outside_precision", R"J({"pool_size": "(2, 2)"})J",
          {T({1, 1, 2, 2}, {1, 2, 3, 8}, 4)}),
  };
  return op;
}

OpInfo upsampling_record() {
  OpInfo op{"upsampling", "nn", {}, 1, 1,
            {required("scale", AttrKind::kInt), choice("layout", {"NCHW"}),
             choice("method", {"NEAREST_NEIGHBOR"})},
            {}};
  const ExampleTensor x22 = T({1, 1, 2, 2}, {1, 2, 3, 4}, 4);
  std::vector<int32_t> fives_then_minus_sixes = repeated(9, 5);
  for (int i = 0; i < 9; ++i) fives_then_minus_sixes.push_back(-6);
  op.examples = {
      ok("scale_2", R"J({"scale": "2"})J", {x22},
         {T({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 4)}),
      ok("scale_1_is_identity", R"J({"scale": "1", "layout": "NCHW"})J",
         {T({1, 2, 1, 2}, {-1, 2, 3, -4}, 4)}, {T({1, 2, 1, 2}, {-1, 2, 3, -4}, 4)}),
      ok("scale_3_two_channels", R"J({"scale": "3", "method": "NEAREST_NEIGHBOR"})J",
         {T({1, 2, 1, 1}, {5, -6}, 4)}, {T({1, 2, 3, 3}, fives_then_minus_sixes, 4)}),
      ok("int8_batch_2", R"J({"scale": "2"})J", {T8({2, 1, 1, 2}, {127, -127, 0, 1}, 8)},
         {T({2, 1, 2, 4}, {127, 127, -127, -127, 127, 127, -127, -127, 0, 0, 1, 1, 0, 0, 1, 1},
            8)}),
      ok("precision_32_edges", R"J({"scale": "2"})J",
         {T({1, 1, 1, 1}, {-2147483647}, 32)}, {T({1, 1, 2, 2}, repeated(4, -2147483647), 32)}),
      bad("data_not_4d", R"J({"scale": "2"})J", {T({2, 2}, {1, 2, 3, 4}, 4)}),
      bad("scale_zero", R"J({"scale": "0"})J", {x22}),
      bad("scale_negative", R"J({"scale": "-2"})J", {x22}),
      bad("scale_4096", R"J({"scale": "4096"})J", {x22}),
      bad("scale_int32_max", R"J({"scale": "2147483647"})J", {x22}),
      // 72 * 4095^2 > 2^30 elements.
      bad("output_over_2_30_elements", R"J({"scale": "4095"})J",
          {T({1, 1, 8, 9}, repeated(72, 1), 2)}),
      bad("layout_nhwc", R"J({"scale": "2", "layout": "NHWC"})J", {x22}),
      bad("method_bilinear", R"J({"scale": "2", "method": "BILINEAR"})J", {x22}),
      bad("missing_scale", "{}", {x22}),
      bad("two_inputs", R"J({"scale": "2"})J", {x22, x22}),
  };
  return op;
}

}  // namespace

std::vector<OpInfo> nn_ops() {
  return {with_work(conv2d_record(), conv2d_work), with_work(dense_record(), dense_work),
          relu_record(), with_work(max_pool2d_record(), max_pool2d_work),
          with_work(upsampling_record(), upsampling_work)};
}

}  // namespace cvm::ops
