// Records of the transform_index family: strided_slice (alias slice), take, cvm_lut, slice_like,
// where, pad (contract: docs/ops/transform_index.md). Expected outputs are computed by hand from
// the contract; each bad() example breaks exactly one rule.
#include <algorithm>

#include "cvmcheck/precision.h"
#include "schema.h"

namespace cvm::ops {

namespace {

// x = [[1, 2, 3], [4, 5, 6]] at precision 8, shared by several examples.
ExampleTensor x23() { return T({2, 3}, {1, 2, 3, 4, 5, 6}, 8); }

// Input-side rules every operator shares (checked by the dispatcher and the kernel wrapper).
void add_shared_errors(OpInfo& op, const std::string& attrs, const std::vector<ExampleTensor>& in) {
  std::vector<ExampleTensor> one_too_many = in;
  one_too_many.push_back(in.back());
  op.examples.push_back(bad("one_input_too_many", attrs, one_too_many));
  // The valid attributes plus one unknown key.
  const std::string unknown = attrs == "{}" ? R"J({"no_such_attribute": "1"})J"
                                            : R"J({"no_such_attribute": "1", )J" + attrs.substr(1);
  op.examples.push_back(bad("unknown_attribute", unknown, in));
  std::vector<ExampleTensor> outside = in;
  outside.front().values.front() = static_cast<int32_t>(alpha(outside.front().precision) + 1);
  op.examples.push_back(bad("value_outside_precision", attrs, outside));
  std::vector<ExampleTensor> int8_high = in;
  int8_high.back().dtype = DType::kInt8;
  int8_high.back().precision = 9;
  for (int32_t& v : int8_high.back().values) v = std::clamp(v, -127, 127);
  op.examples.push_back(bad("int8_precision_above_8", attrs, int8_high));
}

OpInfo strided_slice_record() {
  OpInfo op{"strided_slice",
            "transform_index",
            {"slice"},
            1,
            1,
            {optional("begin", AttrKind::kTuple, "()"), optional("end", AttrKind::kTuple, "()"),
             optional("stride", AttrKind::kTuple, "()")},
            {}};
  const ExampleTensor x34 = T({3, 4}, {1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}, 8);
  const ExampleTensor v5 = T({5}, {1, 2, 3, 4, 5}, 4);
  op.examples = {
      // The original runtime's documented examples.
      ok("runtime_doc_example", R"J({"begin": "[0, 1]", "end": "[2, 4]", "stride": "[1, 1]"})J",
         {x34}, {T({2, 3}, {4, 7, 10, 5, 8, 11}, 8)}),
      ok("runtime_doc_example_default_stride", R"J({"begin": "(0, 0)", "end": "(2, 2)"})J",
         {T({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, 8)}, {T({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, 8)}),
      // Default end is the full extent (formalization v2, docs/glossary.md), so no attributes copy the input.
      ok("defaults_copy_everything", "{}", {x23()}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("omitted_trailing_entries", R"J({"begin": "(1,)"})J",
         {T({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, 8)}, {T({1, 2, 2}, {5, 6, 7, 8}, 8)}),
      ok("negative_begin_and_end", R"J({"begin": "(-3,)", "end": "(-1,)"})J",
         {T({4}, {1, 2, 3, 4}, 4)}, {T({2}, {2, 3}, 4)}),
      ok("stride_2_bare_spelling", R"J({"begin": "1", "end": "5", "stride": "2"})J", {v5},
         {T({2}, {2, 4}, 4)}),
      ok("stride_3_ceil_size", R"J({"stride": "(3,)"})J", {v5}, {T({2}, {1, 4}, 4)}),
      // b = -1 + 5 = 4; e = -6 + 5 = -1 stays -1 after clamping to [-1, 4]: the whole reverse.
      ok("full_reverse", R"J({"begin": "(-1,)", "end": "(-6,)", "stride": "(-1,)"})J", {v5},
         {T({5}, {5, 4, 3, 2, 1}, 4)}),
      ok("negative_stride_2", R"J({"begin": "(6,)", "end": "(0,)", "stride": "(-2,)"})J",
         {T({7}, {1, 2, 3, 4, 5, 6, 7}, 4)}, {T({3}, {7, 5, 3}, 4)}),
      // Out-of-range ends are clamped: b 100 -> 2, e -100 + 3 -> -1 for a negative stride.
      ok("negative_stride_clamps_both_ends",
         R"J({"begin": "(100,)", "end": "(-100,)", "stride": "(-1,)"})J", {T({3}, {7, 8, 9}, 5)},
         {T({3}, {9, 8, 7}, 5)}),
      // Begin omitted is 0 also under a negative stride: only index 0 is taken on axis 1.
      ok("negative_stride_default_begin", R"J({"end": "(2, -4)", "stride": "(1, -1)"})J", {x23()},
         {T({2, 1}, {1, 4}, 8)}),
      ok("int64_extremes_are_clamped",
         R"J({"begin": "(-9223372036854775808, 1)",
              "end": "(9223372036854775807, 9223372036854775807)"})J",
         {x23()}, {T({2, 2}, {2, 3, 5, 6}, 8)}),
      ok("int64_max_stride_takes_one", R"J({"stride": "(9223372036854775807,)"})J",
         {T({4}, {1, -2, 3, -4}, 4)}, {T({1}, {1}, 4)}),
      ok("int64_min_stride_takes_one",
         R"J({"begin": "(2,)", "end": "(-9223372036854775808,)",
              "stride": "(-9223372036854775808,)"})J",
         {T({4}, {1, -2, 3, -4}, 4)}, {T({1}, {3}, 4)}),
      ok("int8_input", R"J({"begin": "(1,)", "end": "(3,)"})J", {T8({4}, {-127, 127, 0, 5}, 8)},
         {T({2}, {127, 0}, 8)}),
      ok("precision_32_edges", R"J({"begin": "(1,)", "end": "(-3,)", "stride": "(-1,)"})J",
         {T({2}, {2147483647, -2147483647}, 32)}, {T({2}, {-2147483647, 2147483647}, 32)}),
      ok("six_dims", R"J({"begin": "(0, 0, 0, 0, 0, 1)"})J", {T({1, 1, 1, 1, 1, 2}, {1, 2}, 3)},
         {T({1, 1, 1, 1, 1, 1}, {2}, 3)}),
      bad("stride_zero", R"J({"stride": "(0,)"})J", {v5}),
      bad("stride_zero_second_axis", R"J({"stride": "(1, 0)"})J", {x23()}),
      bad("begin_longer_than_ndim", R"J({"begin": "(0, 0, 0)"})J", {x23()}),
      bad("end_longer_than_ndim", R"J({"end": "(1, 1, 1)"})J", {x23()}),
      bad("stride_longer_than_ndim", R"J({"stride": "(1, 1, 1)"})J", {x23()}),
      bad("empty_begin_equals_end", R"J({"begin": "(1,)", "end": "(1,)"})J", {v5}),
      bad("empty_begin_after_end", R"J({"begin": "(3,)", "end": "(1,)"})J", {v5}),
      bad("empty_negative_stride_begin_before_end",
          R"J({"begin": "(1,)", "end": "(3,)", "stride": "(-1,)"})J", {v5}),
      // Default end n clamps to n - 1 under a negative stride, and default begin is 0.
      bad("empty_negative_stride_with_defaults", R"J({"stride": "(-1,)"})J", {v5}),
      bad("empty_after_clamping_int64_max_begin", R"J({"begin": "(9223372036854775807,)"})J",
          {v5}),
      bad("begin_malformed", R"J({"begin": "(1,,)"})J", {v5}),
  };
  add_shared_errors(op, "{}", {x23()});
  return op;
}

OpInfo take_record() {
  OpInfo op{"take", "transform_index", {}, 2, 2, {optional("axis", AttrKind::kOptInt, "None")}, {}};
  const ExampleTensor a22 = T({2, 2}, {1, 2, 3, 4}, 4);
  // Data and indices whose take along the last axis has 2^15 * (2^15 + 1) > 2^30 elements.
  // Six dims, so that other axes or other indices mostly fail cheaply (robustness test).
  const ExampleTensor wide = T8({1, 1, 1, 1, 32768, 2}, std::vector<int32_t>(32768 * 2, 1), 2);
  const ExampleTensor many = T8({32769}, std::vector<int32_t>(32769, 1), 2);
  op.examples = {
      // The original runtime's documented examples.
      ok("runtime_doc_example_flat", "{}", {a22, T({3}, {3, 0, 2}, 3)}, {T({3}, {4, 1, 3}, 4)}),
      ok("runtime_doc_example_axis_1", R"J({"axis": "1"})J", {a22, T({2}, {1, 0}, 2)},
         {T({2, 2}, {2, 1, 4, 3}, 4)}),
      ok("flat_indices_clamp", R"J({"axis": "None"})J", {a22, T({3}, {-5, 4, 100}, 8)},
         {T({3}, {1, 4, 4}, 4)}),
      ok("flat_2d_indices", "{}", {T({3}, {7, 8, 9}, 5), T({2, 2}, {0, 2, 1, 1}, 3)},
         {T({2, 2}, {7, 9, 8, 8}, 5)}),
      ok("axis_0_2d_indices_clamp", R"J({"axis": "0"})J",
         {T({3, 2}, {1, 2, 3, 4, 5, 6}, 4), T({2, 2}, {2, 0, 1, 7}, 4)},
         {T({2, 2, 2}, {5, 6, 1, 2, 3, 4, 5, 6}, 4)}),
      // Negative indices clamp to 0 (no wrap-around).
      ok("negative_axis_negative_index", R"J({"axis": "-1"})J", {x23(), T({2}, {2, -1}, 3)},
         {T({2, 2}, {3, 1, 6, 4}, 8)}),
      ok("middle_axis", R"J({"axis": "1"})J",
         {T({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 5), T({1}, {1}, 2)},
         {T({2, 1, 2}, {3, 4, 9, 10}, 5)}),
      ok("int8_indices", "{}", {T({2}, {10, -20}, 6), T8({3}, {1, -127, 127}, 8)},
         {T({3}, {-20, 10, -20}, 6)}),
      // The output precision is the data's, whatever the indices' precision.
      ok("precision_of_data_only", "{}", {a22, T({1}, {2147483647}, 32)}, {T({1}, {4}, 4)}),
      ok("output_ndim_exactly_6", R"J({"axis": "1"})J",
         {T({1, 1, 1}, {5}, 4), T({1, 1, 1, 1}, {0}, 1)}, {T({1, 1, 1, 1, 1, 1}, {5}, 4)}),
      ok("int8_data_p1_indices", R"J({"axis": "0"})J",
         {T8({2}, {-127, 127}, 8), T({2}, {0, 0}, 1)}, {T({2}, {-127, -127}, 8)}),
      bad("axis_too_large", R"J({"axis": "2"})J", {x23(), T({1}, {0}, 2)}),
      bad("axis_too_small", R"J({"axis": "-3"})J", {x23(), T({1}, {0}, 2)}),
      bad("output_ndim_above_6", R"J({"axis": "0"})J",
          {T({1, 1, 1}, {5}, 4), T({1, 1, 1, 1, 1}, {0}, 1)}),
      bad("output_too_many_elements", R"J({"axis": "5"})J", {wide, many}),
      bad("axis_malformed", R"J({"axis": "none"})J", {x23(), T({1}, {0}, 2)}),
  };
  add_shared_errors(op, "{}", {a22, T({3}, {3, 0, 2}, 3)});
  return op;
}

OpInfo cvm_lut_record() {
  OpInfo op{"cvm_lut", "transform_index", {}, 2, 2, {required("in_dim", AttrKind::kInt)}, {}};
  const ExampleTensor table3 = T({3}, {10, 20, 30}, 6);
  op.examples = {
      ok("lookup", R"J({"in_dim": "3"})J", {T({3}, {0, 2, 1}, 3), table3},
         {T({3}, {10, 30, 20}, 6)}),
      ok("indices_clamp_2d_table", R"J({"in_dim": "4"})J",
         {T({2}, {-1, 5}, 4), T({2, 2}, {1, 2, 3, 4}, 4)}, {T({2}, {1, 4}, 4)}),
      ok("shape_of_indices", R"J({"in_dim": "4"})J",
         {T({2, 2}, {3, 0, 1, 2}, 3), T({4}, {-7, 7, 0, 1}, 4)}, {T({2, 2}, {1, -7, 7, 0}, 4)}),
      // Precision p1, the table's; the indices' precision 32 does not matter.
      ok("precision_of_table", R"J({"in_dim": "2"})J",
         {T({1}, {2147483647}, 32), T({2}, {1, -1}, 2)}, {T({1}, {-1}, 2)}),
      ok("int8_both", R"J({"in_dim": "3"})J", {T8({2}, {2, -3}, 3), T8({3}, {-127, 0, 127}, 8)},
         {T({2}, {127, -127}, 8)}),
      bad("in_dim_mismatch", R"J({"in_dim": "4"})J", {T({1}, {0}, 2), table3}),
      bad("in_dim_zero", R"J({"in_dim": "0"})J", {T({1}, {0}, 2), table3}),
      bad("in_dim_negative", R"J({"in_dim": "-3"})J", {T({1}, {0}, 2), table3}),
      // in_dim counts the table, the second input, not the indices.
      bad("in_dim_counts_indices", R"J({"in_dim": "2"})J", {T({2}, {0, 1}, 2), table3}),
      bad("in_dim_missing", "{}", {T({1}, {0}, 2), table3}),
  };
  add_shared_errors(op, R"J({"in_dim": "3"})J", {T({3}, {0, 2, 1}, 3), table3});
  return op;
}

OpInfo slice_like_record() {
  OpInfo op{"slice_like", "transform_index", {}, 2, 2, {optional("axis", AttrKind::kTuple, "()")}, {}};
  const ExampleTensor x34 = T({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 5);
  op.examples = {
      ok("every_axis", "{}", {x34, T({2, 3}, {0, 0, 0, 0, 0, 0}, 1)},
         {T({2, 3}, {1, 2, 3, 5, 6, 7}, 5)}),
      ok("axis_1", R"J({"axis": "(1,)"})J", {x34, T({1, 2}, {-3, 3}, 3)},
         {T({3, 2}, {1, 2, 5, 6, 9, 10}, 5)}),
      // Unlisted dims of shape_like may be larger than X's: they are ignored.
      ok("negative_axis_ignores_other_dims", R"J({"axis": "-1"})J",
         {x34, T({5, 2}, std::vector<int32_t>(10, 1), 2)}, {T({3, 2}, {1, 2, 5, 6, 9, 10}, 5)}),
      ok("like_has_more_dims", R"J({"axis": "(0,)"})J",
         {x34, T({2, 2, 7}, std::vector<int32_t>(28, -1), 2)},
         {T({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}, 5)}),
      ok("like_has_fewer_dims", R"J({"axis": "[0]"})J",
         {T({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 5), T({1}, {0}, 1)},
         {T({1, 3, 2}, {1, 2, 3, 4, 5, 6}, 5)}),
      ok("repeated_axis", R"J({"axis": "(1, -1)"})J",
         {x23(), T({9, 2}, std::vector<int32_t>(18, 0), 1)}, {T({2, 2}, {1, 2, 4, 5}, 8)}),
      ok("same_shape_is_identity", "{}", {x23(), x23()}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("int8_data", "{}", {T8({2, 2}, {-127, 1, 2, 127}, 8), T({1, 1}, {2147483647}, 32)},
         {T({1, 1}, {-127}, 8)}),
      bad("ndim_mismatch_without_axis", "{}", {x23(), T({2}, {0, 0}, 1)}),
      bad("like_dim_larger", "{}", {x23(), T({2, 4}, std::vector<int32_t>(8, 0), 1)}),
      bad("axis_beyond_like_ndim", R"J({"axis": "(1,)"})J", {x23(), T({2}, {0, 0}, 1)}),
      bad("axis_beyond_data_ndim", R"J({"axis": "(1,)"})J",
          {T({2}, {1, 2}, 3), T({2, 3}, std::vector<int32_t>(6, 0), 1)}),
      bad("axis_below_minus_n", R"J({"axis": "(-3,)"})J", {x23(), x23()}),
      bad("axis_int64_max", R"J({"axis": "(9223372036854775807,)"})J", {x23(), x23()}),
      bad("axis_dim_larger", R"J({"axis": "(1,)"})J",
          {x23(), T({1, 5}, std::vector<int32_t>(5, 0), 1)}),
  };
  add_shared_errors(op, "{}", {x34, T({2, 3}, {0, 0, 0, 0, 0, 0}, 1)});
  return op;
}

OpInfo where_record() {
  OpInfo op{"where", "transform_index", {}, 3, 3, {}, {}};
  const ExampleTensor x = T({2, 2}, {1, 2, 3, 4}, 4);
  const ExampleTensor y = T({2, 2}, {5, 6, 7, 8}, 5);
  op.examples = {
      // The original runtime's documented examples; precision max(p1, p2).
      ok("runtime_doc_example", "{}", {T({2, 2}, {0, 1, -1, 0}, 2), x, y},
         {T({2, 2}, {5, 2, 3, 8}, 5)}),
      ok("runtime_doc_example_rows", "{}", {T({2}, {1, 0}, 2), x, y}, {T({2, 2}, {1, 2, 7, 8}, 5)}),
      ok("rows_of_3d", "{}",
         {T({2}, {0, 3}, 3), T({2, 1, 2}, {1, 2, 3, 4}, 10), T({2, 1, 2}, {5, 6, 7, 8}, 5)},
         {T({2, 1, 2}, {5, 6, 3, 4}, 10)}),
      ok("one_dim_elementwise", "{}",
         {T({3}, {2147483647, 0, -2147483647}, 32), T({3}, {1, 2, 3}, 3), T({3}, {-1, -2, -3}, 3)},
         {T({3}, {1, -2, 3}, 3)}),
      ok("int8_inputs", "{}", {T8({2}, {0, -1}, 2), T8({2}, {127, -127}, 8), T8({2}, {-1, 1}, 2)},
         {T({2}, {-1, -127}, 8)}),
      bad("x_y_shape_mismatch", "{}",
          {T({2, 2}, {1, 0, 1, 0}, 2), x, T({2, 3}, {1, 2, 3, 4, 5, 6}, 4)}),
      bad("x_y_same_size_other_shape", "{}", {T({4}, {1, 0, 1, 0}, 2), T({4}, {1, 2, 3, 4}, 4), y}),
      bad("cond_rows_wrong_length", "{}", {T({3}, {1, 0, 1}, 2), x, y}),
      bad("cond_other_2d_shape", "{}", {T({2, 1}, {1, 0}, 2), x, y}),
      bad("cond_flat_of_x_size", "{}", {T({4}, {1, 0, 1, 0}, 2), x, y}),
  };
  add_shared_errors(op, "{}", {T({2}, {1, 0}, 2), x, y});
  return op;
}

OpInfo pad_record() {
  OpInfo op{"pad",
            "transform_index",
            {},
            1,
            1,
            {required("pad_width", AttrKind::kTuple),
             optional("constant_value", AttrKind::kInt, "0"), choice("mode", {"constant"})},
            {}};
  std::vector<int32_t> wide_values(4096, 3);
  wide_values.front() = 7;
  op.examples = {
      ok("one_dim_default_zero", R"J({"pad_width": "(1, 2)"})J", {T({3}, {1, 2, 3}, 4)},
         {T({6}, {0, 1, 2, 3, 0, 0}, 4)}),
      // q = bitlen(9) + 1 = 5 > p0 = 4.
      ok("two_dims_constant_9", R"J({"pad_width": "(1, 0, 0, 1)", "constant_value": "9"})J",
         {T({2, 2}, {1, 2, 3, 4}, 4)}, {T({3, 3}, {9, 9, 9, 1, 2, 9, 3, 4, 9}, 5)}),
      ok("constant_int32_max", R"J({"pad_width": "(0, 1)", "constant_value": "2147483647"})J",
         {T({1}, {1}, 2)}, {T({2}, {1, 2147483647}, 32)}),
      ok("constant_minus_int32_max",
         R"J({"pad_width": "[1, 0]", "constant_value": "-2147483647", "mode": "constant"})J",
         {T({1}, {-1}, 3)}, {T({2}, {-2147483647, -1}, 32)}),
      // q = bitlen(1) + 1 = 2 < p0 = 4.
      ok("constant_minus_1", R"J({"pad_width": "(1, 1)", "constant_value": "-1"})J",
         {T({1}, {5}, 4)}, {T({3}, {-1, 5, -1}, 4)}),
      ok("constant_1_raises_precision_1", R"J({"pad_width": "(0, 1)", "constant_value": "1"})J",
         {T({1}, {0}, 1)}, {T({2}, {0, 1}, 2)}),
      ok("constant_0_keeps_precision_1", R"J({"pad_width": "(2, 0)", "constant_value": "0"})J",
         {T({1}, {0}, 1)}, {T({3}, {0, 0, 0}, 1)}),
      // bitlen(8) = 4, so q = 5.
      ok("constant_minus_8", R"J({"pad_width": "(0, 1)", "constant_value": "-8"})J",
         {T({1}, {1}, 2)}, {T({2}, {1, -8}, 5)}),
      ok("zero_widths_copy", R"J({"pad_width": "(0, 0, 0, 0)"})J", {T({2, 2}, {1, -2, 3, -4}, 4)},
         {T({2, 2}, {1, -2, 3, -4}, 4)}),
      ok("three_dims", R"J({"pad_width": "(0, 0, 1, 0, 0, 1)"})J", {T({1, 1, 2}, {1, 2}, 3)},
         {T({1, 2, 3}, {0, 0, 0, 1, 2, 0}, 3)}),
      ok("width_4095", R"J({"pad_width": "(0, 4095)", "constant_value": "3"})J", {T({1}, {7}, 4)},
         {T({4096}, wide_values, 4)}),
      ok("int8_input", R"J({"pad_width": "(1, 0)", "constant_value": "100"})J",
         {T8({2}, {-127, 127}, 8)}, {T({3}, {100, -127, 127}, 8)}),
      bad("pad_width_too_short", R"J({"pad_width": "(1, 1)"})J", {x23()}),
      bad("pad_width_too_long", R"J({"pad_width": "(1, 1, 1)"})J", {T({1}, {1}, 2)}),
      bad("pad_width_empty", R"J({"pad_width": "()"})J", {T({1}, {1}, 2)}),
      bad("pad_width_negative", R"J({"pad_width": "(-1, 0)"})J", {T({1}, {1}, 2)}),
      bad("pad_width_4096", R"J({"pad_width": "(0, 4096)"})J", {T({1}, {1}, 2)}),
      bad("pad_width_int64_max", R"J({"pad_width": "(9223372036854775807, 0)"})J",
          {T({1}, {1}, 2)}),
      bad("constant_value_int32_min",
          R"J({"pad_width": "(0, 1)", "constant_value": "-2147483648"})J", {T({1}, {1}, 2)}),
      bad("mode_edge", R"J({"pad_width": "(0, 1)", "mode": "edge"})J", {T({1}, {1}, 2)}),
      // 8191^3 elements exceed 2^30.
      bad("output_too_many_elements", R"J({"pad_width": "(4095, 4095, 4095, 4095, 4095, 4095)"})J",
          {T({1, 1, 1}, {1}, 2)}),
      bad("pad_width_missing", "{}", {T({1}, {1}, 2)}),
  };
  add_shared_errors(op, R"J({"pad_width": "(1, 2)"})J", {T({3}, {1, 2, 3}, 4)});
  return op;
}

}  // namespace

std::vector<OpInfo> transform_index_ops() {
  return {strided_slice_record(), take_record(),  cvm_lut_record(),
          slice_like_record(),    where_record(), pad_record()};
}

}  // namespace cvm::ops
