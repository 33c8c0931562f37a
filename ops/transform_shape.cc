// Records of the transform_shape family: repeat, tile, flatten, concatenate, expand_dims,
// reshape, squeeze, transpose (contract: docs/ops/transform_shape.md). Expected outputs are
// worked out by hand from the contract's index formulas.
#include "cvmcheck/precision.h"
#include "schema.h"

namespace cvm::ops {

namespace {

// (2, 3, 4) holding 1..24 row-major: shape-only operators return these values unchanged.
const std::vector<int32_t> kOneTo24 = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};

// A record of this family: one or more inputs (exactly one unless max_inputs says otherwise).
OpInfo record(std::string name, int max_inputs, std::vector<AttrSpec> attrs) {
  return OpInfo{std::move(name), "transform_shape", {}, 1, max_inputs, std::move(attrs), {}};
}

ExampleTensor x234() { return T({2, 3, 4}, kOneTo24, 6); }

// `attrs` (a JSON object) with one more key.
std::string with_unknown_key(const std::string& attrs) {
  const std::string head = attrs.substr(0, attrs.rfind('}'));
  return head + (attrs == "{}" ? "" : ", ") + R"J("no_such_attribute": "1"})J";
}

// Rule-breaking inputs every operator of the family shares (the input side of the contract),
// each made from `x`, a valid input under `attrs`.
void add_input_errors(OpInfo& op, const std::string& attrs, const ExampleTensor& x) {
  ExampleTensor outside = x;
  outside.values[0] = static_cast<int32_t>(alpha(x.precision) + 1);
  op.examples.push_back(bad("value_outside_precision", attrs, {outside}));
  ExampleTensor int8_p9 = x;
  int8_p9.dtype = DType::kInt8;
  int8_p9.precision = 9;
  op.examples.push_back(bad("int8_precision_above_8", attrs, {int8_p9}));
  op.examples.push_back(bad("unknown_attribute", with_unknown_key(attrs), {x}));
  if (op.max_inputs != OpInfo::kUnbounded) op.examples.push_back(bad("two_inputs", attrs, {x, x}));
}

OpInfo repeat_op() {
  OpInfo op = record("repeat", 1,
                     {required("repeats", AttrKind::kInt), optional("axis", AttrKind::kInt, "0")});
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  op.examples = {
      // Default axis 0: each row repeated right after itself.
      ok("default_axis_0", R"J({"repeats": "2"})J", {T({2, 2}, {1, 2, 3, 4}, 8)},
         {T({4, 2}, {1, 2, 1, 2, 3, 4, 3, 4}, 8)}),
      ok("axis_1", R"J({"repeats": "2", "axis": "1"})J", {x},
         {T({2, 6}, {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}, 8)}),
      ok("negative_axis_last", R"J({"repeats": "3", "axis": "-1"})J",
         {T({2, 1, 2}, {1, -2, 3, -4}, 4)},
         {T({2, 1, 6}, {1, 1, 1, -2, -2, -2, 3, 3, 3, -4, -4, -4}, 4)}),
      ok("negative_axis_middle", R"J({"repeats": "2", "axis": "-2"})J",
         {T({2, 1, 2}, {1, -2, 3, -4}, 4)}, {T({2, 2, 2}, {1, -2, 1, -2, 3, -4, 3, -4}, 4)}),
      ok("negative_axis_first", R"J({"repeats": "2", "axis": "-3"})J",
         {T({2, 1, 2}, {1, -2, 3, -4}, 4)}, {T({4, 1, 2}, {1, -2, 1, -2, 3, -4, 3, -4}, 4)}),
      ok("repeats_1_is_identity", R"J({"repeats": "1"})J", {T({3}, {5, -6, 7}, 4)},
         {T({3}, {5, -6, 7}, 4)}),
      ok("int8_input", R"J({"repeats": "2", "axis": "0"})J", {T8({3}, {-127, 0, 127}, 8)},
         {T({6}, {-127, -127, 0, 0, 127, 127}, 8)}),
      ok("precision_32_values", R"J({"repeats": "2"})J", {T({2}, {2147483647, -2147483647}, 32)},
         {T({4}, {2147483647, 2147483647, -2147483647, -2147483647}, 32)}),
      ok("precision_1_zeros", R"J({"repeats": "3"})J", {T({1}, {0}, 1)}, {T({3}, {0, 0, 0}, 1)}),
      // repeats has no max_attr bound, only the output limits.
      ok("repeats_above_4096", R"J({"repeats": "5000"})J", {T({1}, {3}, 3)},
         {T({5000}, std::vector<int32_t>(5000, 3), 3)}),
      bad("repeats_zero", R"J({"repeats": "0"})J", {x}),
      bad("repeats_negative", R"J({"repeats": "-2"})J", {x}),
      bad("repeats_int32_min", R"J({"repeats": "-2147483648"})J", {x}),
      bad("axis_too_large", R"J({"repeats": "2", "axis": "2"})J", {x}),
      bad("axis_too_small", R"J({"repeats": "2", "axis": "-3"})J", {x}),
      bad("axis_int32_max", R"J({"repeats": "2", "axis": "2147483647"})J", {x}),
      // 4097 * 4096 > 2^24. (Inputs and repeats are chosen so that the robustness test's
      // substitute inputs and edge attribute values never make a valid but huge output.)
      bad("output_dim_over_limit", R"J({"repeats": "4096"})J",
          {T({4097}, std::vector<int32_t>(4097, 1), 2)}),
      bad("output_dim_over_limit_int32_max", R"J({"repeats": "2147483647"})J", {T({1}, {1}, 2)}),
      // (128, 1, 1, 1, 1, 4 * 2097153): every dim within 2^24; 512 * 2097153 > 2^30 elements.
      bad("output_elements_over_limit", R"J({"repeats": "2097153", "axis": "5"})J",
          {T({128, 1, 1, 1, 1, 4}, std::vector<int32_t>(512, 1), 2)}),
      bad("missing_repeats", R"J({"axis": "0"})J", {x}),
      bad("repeats_malformed", R"J({"repeats": "2.0"})J", {x}),
  };
  add_input_errors(op, R"J({"repeats": "2"})J", x);
  return op;
}

OpInfo tile_op() {
  OpInfo op = record("tile", 1, {required("reps", AttrKind::kTuple)});
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  op.examples = {
      // reps shorter than N: padded to (1, 2).
      ok("reps_shorter_than_ndim", R"J({"reps": "(2,)"})J", {x},
         {T({2, 6}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}, 8)}),
      // reps longer than N: the input is padded to (1, 2).
      ok("reps_longer_than_ndim", R"J({"reps": "(2, 3)"})J", {T({2}, {1, -2}, 3)},
         {T({2, 6}, {1, -2, 1, -2, 1, -2, 1, -2, 1, -2, 1, -2}, 3)}),
      ok("reps_axis_0", R"J({"reps": "[2,1]"})J", {T({2, 2}, {1, 2, 3, 4}, 4)},
         {T({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4}, 4)}),
      ok("reps_axis_1", R"J({"reps": "(1, 2)"})J", {T({2, 2}, {1, 2, 3, 4}, 4)},
         {T({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}, 4)}),
      // Both axes wrap, the last one included (the seeds' [K-N, K-1) range is a typo).
      ok("every_axis_wraps", R"J({"reps": "(2, 2)"})J", {T({2, 2}, {1, 2, 3, 4}, 4)},
         {T({4, 4}, {1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4}, 4)}),
      ok("bare_reps", R"J({"reps": "3"})J", {T({2}, {1, 2}, 3)}, {T({6}, {1, 2, 1, 2, 1, 2}, 3)}),
      ok("reps_ones_is_identity", R"J({"reps": "(1, 1)"})J", {x}, {x}),
      ok("reps_4095", R"J({"reps": "(4095,)"})J", {T({1}, {7}, 4)},
         {T({4095}, std::vector<int32_t>(4095, 7), 4)}),
      ok("output_ndim_6", R"J({"reps": "(1, 1, 1, 1, 2, 1)"})J", {T({1, 2}, {1, -1}, 2)},
         {T({1, 1, 1, 1, 2, 2}, {1, -1, 1, -1}, 2)}),
      ok("int8_input", R"J({"reps": "(2,)"})J", {T8({2}, {-127, 5}, 8)},
         {T({4}, {-127, 5, -127, 5}, 8)}),
      bad("reps_empty", R"J({"reps": "()"})J", {x}),
      bad("reps_zero", R"J({"reps": "(2, 0)"})J", {x}),
      bad("reps_negative", R"J({"reps": "(-1,)"})J", {x}),
      bad("reps_int64_min", R"J({"reps": "(-9223372036854775808,)"})J", {x}),
      bad("reps_4096", R"J({"reps": "(4096,)"})J", {x}),
      bad("reps_int64_max", R"J({"reps": "(9223372036854775807, 1)"})J", {x}),
      bad("output_ndim_7", R"J({"reps": "(1, 1, 1, 1, 1, 1, 1)"})J", {T({2}, {1, 2}, 3)}),
      // 4098 * 4095 > 2^24.
      bad("output_dim_over_limit", R"J({"reps": "(4095,)"})J",
          {T({4098}, std::vector<int32_t>(4098, 1), 2)}),
      // Each dim 4095 is fine; 4095^3 > 2^30 elements.
      bad("output_elements_over_limit", R"J({"reps": "(4095, 4095, 4095)"})J",
          {T({1, 1, 1}, {1}, 2)}),
      bad("missing_reps", "{}", {x}),
  };
  add_input_errors(op, R"J({"reps": "(2,)"})J", x);
  return op;
}

OpInfo flatten_op() {
  OpInfo op = record("flatten", 1, {});
  op.examples = {
      ok("two_dims_unchanged", "{}", {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)},
         {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("three_dims", "{}", {T({2, 2, 2}, {1, -2, 3, -4, 5, -6, 7, -8}, 5)},
         {T({2, 4}, {1, -2, 3, -4, 5, -6, 7, -8}, 5)}),
      ok("one_dim_gives_column", "{}", {T({3}, {1, 2, 3}, 3)}, {T({3, 1}, {1, 2, 3}, 3)}),
      ok("six_dims", "{}", {T({1, 2, 1, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, 5)},
         {T({1, 8}, {1, 2, 3, 4, 5, 6, 7, 8}, 5)}),
      ok("leading_dim_kept", "{}", {x234()}, {T({2, 12}, kOneTo24, 6)}),
      ok("int8_input", "{}", {T8({2, 1, 2}, {-127, 127, 0, -1}, 8)},
         {T({2, 2}, {-127, 127, 0, -1}, 8)}),
      ok("precision_32_values", "{}", {T({1, 2}, {-2147483647, 2147483647}, 32)},
         {T({1, 2}, {-2147483647, 2147483647}, 32)}),
      bad("any_attribute", R"J({"axis": "1"})J", {T({2, 2}, {1, 2, 3, 4}, 4)}),
  };
  add_input_errors(op, "{}", T({2, 2}, {1, 2, 3, 4}, 4));
  return op;
}

OpInfo concatenate_op() {
  OpInfo op = record("concatenate", OpInfo::kUnbounded, {optional("axis", AttrKind::kInt, "1")});
  const ExampleTensor a = T({2, 1}, {1, 2}, 4);
  const ExampleTensor b = T({2, 2}, {3, 4, 5, 6}, 8);
  op.examples = {
      ok("default_axis_1", "{}", {a, b}, {T({2, 3}, {1, 3, 4, 2, 5, 6}, 8)}),
      ok("axis_0", R"J({"axis": "0"})J", {T({1, 2}, {1, 2}, 4), b},
         {T({3, 2}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("negative_axis_three_inputs", R"J({"axis": "-1"})J",
         {a, T({2, 1}, {3, 4}, 4), T({2, 2}, {5, 6, 7, 8}, 5)},
         {T({2, 4}, {1, 3, 5, 6, 2, 4, 7, 8}, 5)}),
      ok("negative_axis_first", R"J({"axis": "-2"})J", {T({1, 2}, {1, 2}, 4), b},
         {T({3, 2}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("single_input", "{}", {b}, {b}),
      ok("one_dim_axis_0", R"J({"axis": "0"})J", {T({2}, {1, 2}, 3), T({3}, {3, -4, 5}, 4)},
         {T({5}, {1, 2, 3, -4, 5}, 4)}),
      ok("three_dims_axis_1", R"J({"axis": "1"})J",
         {T({2, 1, 2}, {1, 2, 3, 4}, 5), T({2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12}, 5)},
         {T({2, 3, 2}, {1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12}, 5)}),
      // Precision is the maximum over inputs, whatever their order and storage.
      ok("int8_and_int32_precision_max", "{}", {T8({1, 2}, {-127, 127}, 8), T({1, 1}, {1000}, 11)},
         {T({1, 3}, {-127, 127, 1000}, 11)}),
      ok("four_inputs_precision_max", R"J({"axis": "-1"})J",
         {T({1}, {0}, 1), T({1}, {100}, 8), T8({1}, {1}, 2), T({1}, {-3}, 3)},
         {T({4}, {0, 100, 1, -3}, 8)}),
      ok("precision_32", R"J({"axis": "0"})J", {T({1}, {2147483647}, 32), T({1}, {-1}, 2)},
         {T({2}, {2147483647, -1}, 32)}),
      // The default axis 1 does not exist for 1-D inputs.
      bad("default_axis_on_one_dim", "{}", {T({2}, {1, 2}, 3), T({2}, {3, 4}, 4)}),
      bad("axis_too_large", R"J({"axis": "2"})J", {a, b}),
      bad("axis_too_small", R"J({"axis": "-3"})J", {a, b}),
      bad("axis_int32_min", R"J({"axis": "-2147483648"})J", {a, b}),
      bad("ndim_mismatch", R"J({"axis": "0"})J", {a, T({2}, {3, 4}, 4)}),
      bad("other_dim_mismatch", R"J({"axis": "1"})J", {a, T({3, 1}, {3, 4, 5}, 4)}),
      bad("other_dim_mismatch_later_input", R"J({"axis": "0"})J",
          {T({1, 2}, {1, 2}, 4), b, T({1, 3}, {5, 6, 7}, 4)}),
      bad("no_inputs", "{}", {}),
      bad("axis_malformed", R"J({"axis": "(1,)"})J", {a, b}),
  };
  add_input_errors(op, "{}", a);
  return op;
}

OpInfo expand_dims_op() {
  OpInfo op =
      record("expand_dims", 1,
             {required("axis", AttrKind::kInt), optional("num_newaxis", AttrKind::kInt, "1")});
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  op.examples = {
      ok("axis_0", R"J({"axis": "0"})J", {T({2}, {1, 2}, 3)}, {T({1, 2}, {1, 2}, 3)}),
      ok("axis_n_appends", R"J({"axis": "1"})J", {T({2}, {1, 2}, 3)}, {T({2, 1}, {1, 2}, 3)}),
      // Negative axes count N + 1 positions: -1 appends, -N-1 prepends.
      ok("axis_minus_1_appends", R"J({"axis": "-1"})J", {x}, {T({2, 3, 1}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("axis_minus_n_minus_1_prepends", R"J({"axis": "-3"})J", {x},
         {T({1, 2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("axis_middle", R"J({"axis": "1"})J", {x}, {T({2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("negative_axis_middle", R"J({"axis": "-2", "num_newaxis": "1"})J", {x},
         {T({2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("num_newaxis_2", R"J({"axis": "1", "num_newaxis": "2"})J", {x},
         {T({2, 1, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("up_to_ndim_6", R"J({"axis": "2", "num_newaxis": "4"})J", {x},
         {T({2, 3, 1, 1, 1, 1}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("one_dim_to_ndim_6", R"J({"axis": "-2", "num_newaxis": "5"})J", {T({2}, {-1, 1}, 2)},
         {T({1, 1, 1, 1, 1, 2}, {-1, 1}, 2)}),
      ok("int8_input", R"J({"axis": "0"})J", {T8({2}, {-127, 127}, 8)},
         {T({1, 2}, {-127, 127}, 8)}),
      bad("axis_too_large", R"J({"axis": "3"})J", {x}),
      bad("axis_too_small", R"J({"axis": "-4"})J", {x}),
      bad("axis_int32_min", R"J({"axis": "-2147483648"})J", {x}),
      bad("num_newaxis_zero", R"J({"axis": "0", "num_newaxis": "0"})J", {x}),
      bad("num_newaxis_negative", R"J({"axis": "0", "num_newaxis": "-1"})J", {x}),
      bad("output_ndim_7", R"J({"axis": "0", "num_newaxis": "5"})J", {x}),
      // Also beyond the ndim limit: every num_newaxis >= 4096 is.
      bad("num_newaxis_4096", R"J({"axis": "0", "num_newaxis": "4096"})J", {x}),
      bad("missing_axis", R"J({"num_newaxis": "1"})J", {x}),
  };
  add_input_errors(op, R"J({"axis": "0"})J", x);
  return op;
}

OpInfo reshape_op() {
  OpInfo op = record("reshape", 1, {required("shape", AttrKind::kTuple)});
  const ExampleTensor x = x234();
  auto same_values = [](Shape shape) { return T(std::move(shape), kOneTo24, 6); };
  op.examples = {
      ok("literals", R"J({"shape": "(6, 4)"})J", {x}, {same_values({6, 4})}),
      // A literal consumes an input dim too, so the 0 copies dim 1.
      ok("zero_copies_after_literal", R"J({"shape": "(4, 0, 2)"})J", {x}, {same_values({4, 3, 2})}),
      ok("zeros_copy", R"J({"shape": "(0, 0, 0)"})J", {x}, {same_values({2, 3, 4})}),
      ok("inferred_last", R"J({"shape": "(6, 1, -1)"})J", {x}, {same_values({6, 1, 4})}),
      ok("inferred_alone", R"J({"shape": "-1"})J", {x}, {same_values({24})}),
      // -1 also consumes an input dim: the 0 copies dim 1 (3).
      ok("zero_after_inferred", R"J({"shape": "(-1, 0)"})J", {x}, {same_values({8, 3})}),
      ok("copy_rest_after_literal", R"J({"shape": "(2, -2)"})J", {x}, {same_values({2, 3, 4})}),
      ok("copy_rest_then_ones", R"J({"shape": "[-2,1,1,1]"})J", {x},
         {same_values({2, 3, 4, 1, 1, 1})}),
      ok("merge_first_two", R"J({"shape": "(-3, 4)"})J", {x}, {same_values({6, 4})}),
      ok("merge_after_literal", R"J({"shape": "(2, -3)"})J", {x}, {same_values({2, 12})}),
      ok("merge_then_copy_rest", R"J({"shape": "(-3, -2)"})J", {x}, {same_values({6, 4})}),
      ok("split_then_copy_rest", R"J({"shape": "(-4, 1, 2, -2)"})J", {x},
         {same_values({1, 2, 3, 4})}),
      ok("split_with_inferred_left", R"J({"shape": "(2, -4, -1, 3, 4)"})J", {x},
         {same_values({2, 1, 3, 4})}),
      ok("split_with_inferred_right", R"J({"shape": "(0, -4, 3, -1, 0)"})J", {x},
         {same_values({2, 3, 1, 4})}),
      // The -1 takes its place in the output, also after -2/-4 (the original wrote it at the
      // code's index in the list).
      ok("inferred_after_copy_rest", R"J({"shape": "(-2, -1)"})J", {x},
         {same_values({2, 3, 4, 1})}),
      ok("inferred_after_split", R"J({"shape": "(-4, 1, 2, -1)"})J", {x},
         {same_values({1, 2, 12})}),
      // A -1 inside a -4 is resolved from the split dim; it is not the inferred -1.
      ok("inferred_and_split_inferred", R"J({"shape": "(-4, -1, 1, -1)"})J", {x},
         {same_values({2, 1, 12})}),
      // -2 with no input dim left copies none.
      ok("copy_rest_when_none_left", R"J({"shape": "(2, 3, -2)"})J",
         {T({6}, {1, 2, 3, 4, 5, 6}, 4)}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 4)}),
      ok("int8_input", R"J({"shape": "(-1,)"})J", {T8({2, 2}, {-127, 1, 0, 127}, 8)},
         {T({4}, {-127, 1, 0, 127}, 8)}),
      bad("shape_empty", R"J({"shape": "()"})J", {x}),
      bad("code_below_minus_4", R"J({"shape": "(-5, 24)"})J", {x}),
      bad("code_int64_min", R"J({"shape": "(24, -9223372036854775808)"})J", {x}),
      bad("two_inferred", R"J({"shape": "(-1, 2, -1)"})J", {x}),
      bad("product_mismatch", R"J({"shape": "(2, 3, 5)"})J", {x}),
      // Below the input size without a -1: the other side of the same rule (a wrong_rule
      // mutant of infer/'s final product check survived every test without it).
      bad("product_below_input_size", R"J({"shape": "(2, 3)"})J", {x}),
      bad("inferred_does_not_divide", R"J({"shape": "(5, -1)"})J", {x}),
      // Each literal is within the dim limit; their product would overflow int64.
      bad("product_overflow", R"J({"shape": "(16777216, 16777216, 16777216, 16777216)"})J", {x}),
      bad("literal_over_dim_limit", R"J({"shape": "(9223372036854775807,)"})J", {x}),
      bad("zero_past_input_dims", R"J({"shape": "(-2, 0)"})J", {x}),
      bad("merge_past_input_dims", R"J({"shape": "(2, 3, -3)"})J", {x}),
      bad("split_past_input_dims", R"J({"shape": "(-2, -4, 1, 1)"})J", {x}),
      bad("split_missing_entries", R"J({"shape": "(0, 0, -4, 2)"})J", {x}),
      bad("split_zero", R"J({"shape": "(-4, 0, 2, -2)"})J", {x}),
      bad("split_both_inferred", R"J({"shape": "(-4, -1, -1, -2)"})J", {x}),
      bad("split_not_dividing", R"J({"shape": "(-4, 3, -1, -2)"})J", {x}),
      bad("split_product_mismatch", R"J({"shape": "(-4, 2, 2, -2)"})J", {x}),
      bad("split_entry_below_minus_1", R"J({"shape": "(-4, -2, -1, -2)"})J", {x}),
      bad("output_ndim_7", R"J({"shape": "(-2, 1, 1, 1, 1)"})J", {x}),
      bad("missing_shape", "{}", {x}),
  };
  add_input_errors(op, R"J({"shape": "(-1,)"})J", x);
  return op;
}

OpInfo squeeze_op() {
  OpInfo op = record("squeeze", 1, {optional("axis", AttrKind::kTuple, "()")});
  const ExampleTensor x = T({1, 2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8);
  op.examples = {
      ok("default_every_size_1", "{}", {x}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("empty_axis_every_size_1", R"J({"axis": "[]"})J", {x}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("axis_0", R"J({"axis": "(0,)"})J", {x}, {T({2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("negative_axis", R"J({"axis": "(-2,)"})J", {x}, {T({1, 2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("bare_axis", R"J({"axis": "2"})J", {x}, {T({1, 2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("both_listed", R"J({"axis": "(2, 0)"})J", {x}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      // -4 and 0 name the same axis: duplicates are allowed.
      ok("duplicate_axis", R"J({"axis": "(0, -4)"})J", {x}, {T({2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)}),
      ok("all_ones_gives_1", "{}", {T({1, 1, 1}, {-5}, 4)}, {T({1}, {-5}, 4)}),
      ok("all_listed_gives_1", R"J({"axis": "(0, 1)"})J", {T({1, 1}, {7}, 4)}, {T({1}, {7}, 4)}),
      ok("no_size_1_dims", "{}", {T({2, 2}, {1, 2, 3, 4}, 4)}, {T({2, 2}, {1, 2, 3, 4}, 4)}),
      ok("int8_input", "{}", {T8({2, 1}, {-127, 127}, 8)}, {T({2}, {-127, 127}, 8)}),
      bad("axis_not_size_1", R"J({"axis": "(1,)"})J", {x}),
      bad("one_listed_axis_not_size_1", R"J({"axis": "(0, 3)"})J", {x}),
      bad("axis_too_large", R"J({"axis": "(4,)"})J", {x}),
      bad("axis_too_small", R"J({"axis": "(-5,)"})J", {x}),
      bad("axis_int64_min", R"J({"axis": "(-9223372036854775808,)"})J", {x}),
  };
  add_input_errors(op, "{}", x);
  return op;
}

OpInfo transpose_op() {
  OpInfo op = record("transpose", 1, {optional("axes", AttrKind::kTuple, "()")});
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  // X[a, b, c] = 1 + 6a + 3b + c.
  const ExampleTensor x3 = T({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 5);
  op.examples = {
      ok("default_reverses", "{}", {x}, {T({3, 2}, {1, 4, 2, 5, 3, 6}, 8)}),
      ok("explicit_swap", R"J({"axes": "(1, 0)"})J", {x}, {T({3, 2}, {1, 4, 2, 5, 3, 6}, 8)}),
      ok("identity", R"J({"axes": "[0,1]"})J", {x}, {x}),
      // Y[i, j, k] = X[k, i, j].
      ok("rotate_three_dims", R"J({"axes": "(1, 2, 0)"})J", {x3},
         {T({2, 3, 2}, {1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12}, 5)}),
      // (-1, 0, -2) is (2, 0, 1): Y[i, j, k] = X[j, k, i].
      ok("negative_axes", R"J({"axes": "(-1, 0, -2)"})J", {x3},
         {T({3, 2, 2}, {1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}, 5)}),
      // Y[i, j, k] = X[k, j, i].
      ok("default_reverses_three_dims", R"J({"axes": "()"})J", {x3},
         {T({3, 2, 2}, {1, 7, 4, 10, 2, 8, 5, 11, 3, 9, 6, 12}, 5)}),
      ok("one_dim", "{}", {T({3}, {1, -2, 3}, 3)}, {T({3}, {1, -2, 3}, 3)}),
      ok("bare_axes_one_dim", R"J({"axes": "0"})J", {T({3}, {1, -2, 3}, 3)},
         {T({3}, {1, -2, 3}, 3)}),
      ok("int8_input", "{}", {T8({2, 2}, {-127, 1, 2, 127}, 8)}, {T({2, 2}, {-127, 2, 1, 127}, 8)}),
      bad("axes_too_short", R"J({"axes": "(0,)"})J", {x}),
      bad("axes_too_long", R"J({"axes": "(0, 1, 2)"})J", {x}),
      bad("axes_too_large", R"J({"axes": "(0, 2)"})J", {x}),
      bad("axes_too_small", R"J({"axes": "(-3, 0)"})J", {x}),
      bad("axes_int64_max", R"J({"axes": "(9223372036854775807, 0)"})J", {x}),
      bad("axes_duplicate", R"J({"axes": "(0, 0)"})J", {x}),
      bad("axes_duplicate_after_normalisation", R"J({"axes": "(1, -1)"})J", {x}),
  };
  add_input_errors(op, "{}", x);
  return op;
}

}  // namespace

std::vector<OpInfo> transform_shape_ops() {
  return {with_work(repeat_op(), repeat_work), with_work(tile_op(), tile_work),
          flatten_op(),     concatenate_op(),
          expand_dims_op(), reshape_op(),
          squeeze_op(),     transpose_op()};
}

}  // namespace cvm::ops
