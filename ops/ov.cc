// Records of the ov family: ov_strided_slice (OpenVINO StridedSlice-1; contract: docs/ops/ov.md).
// The seed's eight examples (the StridedSlice-1 spec, docs/glossary.md, with the ruling's corrections) come first; the
// ones whose inputs break the tensor limits are replaced by reduced analogues with the same masks.
#include <cstdint>

#include "schema.h"

namespace cvm::ops {

namespace {

std::vector<AttrSpec> ov_slice_attrs() {
  return {required("begin", AttrKind::kTuple),
          required("end", AttrKind::kTuple),
          // () means all ones.
          optional("stride", AttrKind::kTuple, "()"),
          optional("begin_mask", AttrKind::kTuple, "()"),
          optional("end_mask", AttrKind::kTuple, "()"),
          optional("new_axis_mask", AttrKind::kTuple, "()"),
          optional("shrink_axis_mask", AttrKind::kTuple, "()"),
          optional("ellipsis_mask", AttrKind::kTuple, "()")};
}

// 0, 1, 2, ... : every value names its own flat input position, so an expected output can be
// written as the per-axis index lists the contract selects.
std::vector<int32_t> arange(int64_t count) {
  std::vector<int32_t> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(static_cast<int32_t>(i));
  return values;
}

int64_t element_count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

// The values of arange(shape) at every combination (row-major) of the hand-written per-input-axis
// index lists. Shrunk axes (one index) and new axes (no input axis) do not change the order, so
// this is the expected output whatever the output shape written next to it.
std::vector<int32_t> arange_at(const Shape& shape, const std::vector<std::vector<int64_t>>& picks) {
  std::vector<int32_t> values = {0};
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    std::vector<int32_t> next;
    for (int32_t prefix : values) {
      for (int64_t index : picks[axis]) {
        next.push_back(static_cast<int32_t>(prefix * shape[axis] + index));
      }
    }
    values = next;
  }
  return values;
}

ExampleTensor A(const Shape& shape, int precision) {
  return T(shape, arange(element_count(shape)), precision);
}

std::vector<Example> seed_examples() {
  const Shape shape1 = {4, 4, 4, 4, 4, 4};
  const Shape shape6 = {1, 2, 3, 4, 2};
  const Shape shape7 = {5, 2, 1, 2, 1, 6};
  const Shape shape8 = {4, 2, 2, 2, 7};
  return {
      // Ex.1: array[0:4, 1:4, 0:4:2, 1:4:2, 3:0:-1, 3:0:-2]; 3:0:-1 is [3, 2, 1].
      ok("seed_example_1_strides_and_reverse",
         R"J({"begin": "(0, 1, 0, 1, 3, 3)", "end": "(4, 4, 4, 4, 0, 0)",
              "stride": "(1, 1, 2, 2, -1, -2)"})J",
         {A(shape1, 13)},
         {T({4, 3, 2, 2, 3, 2},
            arange_at(shape1, {{0, 1, 2, 3}, {1, 2, 3}, {0, 2}, {1, 3}, {3, 2, 1}, {3, 1}}), 13)}),
      // Ex.2 as written: axis 0 clamps to 2:2 and axis 1 (reverse) to 1:2, both empty.
      bad("seed_example_2_empty_is_logic_error",
          R"J({"begin": "(1234, 2)", "end": "(1234, 4321)", "stride": "(1, -1)"})J",
          {T({2, 2}, {0, 1, 2, 3}, 3)}),
      // Its intent, array[2:3, 2:1:-1], on a 3x3 input: begin 1234 clamps to n - 1 = 2 in reverse.
      ok("seed_example_2_intent_on_3x3",
         R"J({"begin": "(2, 1234)", "end": "(1234, 1)", "stride": "(1, -1)"})J", {A({3, 3}, 5)},
         {T({1, 1}, {8}, 5)}),
      // Ex.3: array[0:2, 0:2, 0:-1].
      ok("seed_example_3_negative_end",
         R"J({"begin": "(0, 0, 0)", "end": "(2, 2, -1)", "stride": "(1, 1, 1)"})J",
         {A({2, 3, 4}, 6)}, {T({2, 2, 3}, {0, 1, 2, 4, 5, 6, 12, 13, 14, 16, 17, 18}, 6)}),
      // Ex.4: array[1:, :, ::-1]; masks longer than M (new_axis_mask) are cut, shorter padded.
      ok("seed_example_4_begin_end_masks",
         R"J({"begin": "(1, 1, 123)", "end": "(0, 0, 2)", "stride": "(1, 1, -1)",
              "begin_mask": "(0, 1, 1)", "end_mask": "(1, 1, 1)",
              "new_axis_mask": "(0, 0, 0, 0, 0)", "shrink_axis_mask": "(0, 0)",
              "ellipsis_mask": "(0,)"})J",
         {A({2, 3, 4}, 6)},
         {T({1, 3, 4}, {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}, 6)}),
      // Ex.5: array[np.newaxis, 0:2, np.newaxis, 0:4]; begin/end/stride of new axes ignored.
      ok("seed_example_5_new_axis",
         R"J({"begin": "(1234, 0, -1, 0)", "end": "(1234, 2, 9876, 4)",
              "stride": "(132, 1, 241, 1)", "begin_mask": "(0, 0, 0, 0)",
              "end_mask": "(0, 0, 0, 0)", "new_axis_mask": "(1, 0, 1, 0)",
              "shrink_axis_mask": "(0, 0, 0, 0)", "ellipsis_mask": "(0, 0, 0, 0)"})J",
         {A({2, 4}, 4)}, {T({1, 2, 1, 4}, arange(8), 4)}),
      // Ex.6, array[0:1, 0, 0:384, 0:640, 0:8], reduced from (1, 2, 384, 640, 8) to
      // (1, 2, 3, 4, 2) with the same masks (the full output has 1966080 values).
      ok("seed_example_6_shrink_reduced",
         R"J({"begin": "(0, 0, 0, 0, 0)", "end": "(1, 0, 3, 4, 2)", "stride": "(1, 1, 1, 1, 1)",
              "begin_mask": "(0, 0, 0, 0, 0)", "end_mask": "(0, 0, 0, 0, 0)",
              "new_axis_mask": "(0, 0, 0, 0, 0)", "shrink_axis_mask": "(0, 1, 0, 0, 0)",
              "ellipsis_mask": "(0, 0, 0, 0, 0)"})J",
         {A(shape6, 7)}, {T({1, 3, 4, 2}, arange(24), 7)}),
      // Ex.7, array[0:4, ..., 0:5], on a 6-D input instead of the seed's 12-D one (beyond the
      // 6-dim limit): the ellipsis covers 6 - (3 - 0 - 1) = 4 axes; its stride -1 is ignored.
      ok("seed_example_7_ellipsis_on_6d",
         R"J({"begin": "(0, 0, 0)", "end": "(4, 0, 5)", "stride": "(1, -1, 1)",
              "begin_mask": "(0, 0, 0)", "end_mask": "(0, 0, 0)", "new_axis_mask": "(0, 0, 0)",
              "shrink_axis_mask": "(0, 0, 0)", "ellipsis_mask": "(0, 1, 0)"})J",
         {A(shape7, 8)},
         {T({4, 2, 1, 2, 1, 5},
            arange_at(shape7, {{0, 1, 2, 3}, {0, 1}, {0}, {0, 1}, {0}, {0, 1, 2, 3, 4}}), 8)}),
      // The same attributes on a 1-D input: two steps consume axes, the input has one.
      bad("seed_example_7_attrs_on_1d_input",
          R"J({"begin": "(0, 0, 0)", "end": "(4, 0, 5)", "stride": "(1, -1, 1)",
               "ellipsis_mask": "(0, 1, 0)"})J",
          {T({3}, {1, 2, 3}, 3)}),
      // Ex.8, array[2:, ..., np.newaxis, :10], on a 5-D input instead of a 10-D one: the ellipsis
      // covers 5 - (4 - 1 - 1) = 3 axes; masks of unequal length; begin/end masks on the
      // ellipsis and new-axis steps are ignored.
      ok("seed_example_8_ellipsis_new_axis_on_5d",
         R"J({"begin": "(2, 1, 10, 10)", "end": "(123, 1, 10, 5)", "stride": "(1, -1, 1, 1)",
              "begin_mask": "(0, 0, 1, 1)", "end_mask": "(1, 1, 0, 0)",
              "new_axis_mask": "(0, 0, 1)", "shrink_axis_mask": "(0,)",
              "ellipsis_mask": "(0, 1)"})J",
         {A(shape8, 9)},
         {T({2, 2, 2, 2, 1, 5},
            arange_at(shape8, {{2, 3}, {0, 1}, {0, 1}, {0, 1}, {0, 1, 2, 3, 4}}), 9)}),
      // The same attributes on a 6-D input give 1 + 4 + 1 + 1 = 7 output dims.
      bad("seed_example_8_attrs_on_6d_input_gives_7_dims",
          R"J({"begin": "(2, 1, 10, 10)", "end": "(123, 1, 10, 5)", "stride": "(1, -1, 1, 1)",
               "begin_mask": "(0, 0, 1, 1)", "end_mask": "(1, 1, 0, 0)",
               "new_axis_mask": "(0, 0, 1)", "ellipsis_mask": "(0, 1)"})J",
          {A({3, 1, 1, 1, 1, 6}, 6)}),
  };
}

std::vector<Example> more_worked_examples() {
  const ExampleTensor x23 = T({2, 3}, {1, -2, 3, -4, 5, -6}, 8);
  const ExampleTensor x5 = T({5}, {10, 11, 12, 13, 14}, 5);
  return {
      ok("implicit_ellipsis_after_last_step", R"J({"begin": "(1,)", "end": "(2,)"})J", {x23},
         {T({1, 3}, {-4, 5, -6}, 8)}),
      ok("no_steps_is_identity", R"J({"begin": "()", "end": "[]"})J", {x23},
         {T({2, 3}, {1, -2, 3, -4, 5, -6}, 8)}),
      ok("stride_empty_means_ones", R"J({"begin": "1", "end": "[4]", "stride": "()"})J", {x5},
         {T({3}, {11, 12, 13}, 5)}),
      ok("forward_end_beyond_axis_clamps", R"J({"begin": "(-2,)", "end": "(100,)"})J", {x5},
         {T({2}, {13, 14}, 5)}),
      ok("forward_stride_larger_than_axis", R"J({"begin": "(1,)", "end": "(5,)", "stride": "7"})J",
         {x5}, {T({1}, {11}, 5)}),
      ok("forward_masks_ignore_begin_and_end",
         R"J({"begin": "(3,)", "end": "(1,)", "stride": "(2,)", "begin_mask": "1",
              "end_mask": "[1]"})J",
         {x5}, {T({3}, {10, 12, 14}, 5)}),
      // In reverse begin_mask means n - 1 and end_mask -1: index 0 is included.
      ok("reverse_masks_stride_minus_2",
         R"J({"begin": "(0,)", "end": "(0,)", "stride": "(-2,)", "begin_mask": "(1,)",
              "end_mask": "(1,)"})J",
         {x5}, {T({3}, {14, 12, 10}, 5)}),
      ok("reverse_end_below_minus_n_clamps_to_minus_1",
         R"J({"begin": "(4,)", "end": "(-6,)", "stride": "(-1,)"})J", {x5},
         {T({5}, {14, 13, 12, 11, 10}, 5)}),
      // end -2 means index 3, not "before index 0".
      ok("reverse_negative_end_counts_from_the_back",
         R"J({"begin": "(4,)", "end": "(-2,)", "stride": "(-1,)"})J", {x5}, {T({1}, {14}, 5)}),
      ok("int64_extremes_forward_clamp",
         R"J({"begin": "(-9223372036854775808,)", "end": "(9223372036854775807,)",
              "stride": "(9223372036854775807,)"})J",
         {x5}, {T({1}, {10}, 5)}),
      ok("int64_extremes_reverse_clamp",
         R"J({"begin": "(9223372036854775807,)", "end": "(-9223372036854775808,)",
              "stride": "(-9223372036854775808,)"})J",
         {x5}, {T({1}, {14}, 5)}),
      ok("ellipsis_first_then_slice",
         R"J({"begin": "(0, 1)", "end": "(0, 2)", "ellipsis_mask": "(1, 0)"})J", {x23},
         {T({2, 1}, {-2, 5}, 8)}),
      ok("ellipsis_covering_zero_axes",
         R"J({"begin": "(0, 0, 1)", "end": "(2, 0, 3)", "ellipsis_mask": "(0, 1, 0)"})J", {x23},
         {T({2, 2}, {-2, 3, 5, -6}, 8)}),
      ok("new_axis_before_ellipsis",
         R"J({"begin": "(0, 0)", "end": "(0, 0)", "new_axis_mask": "1",
              "ellipsis_mask": "(0, 1)"})J",
         {x23}, {T({1, 2, 3}, {1, -2, 3, -4, 5, -6}, 8)}),
      ok("new_axis_after_last_axis",
         R"J({"begin": "(0, 0)", "end": "(3, 0)", "new_axis_mask": "(0, 1)"})J",
         {T({3}, {1, 2, 3}, 3)}, {T({3, 1}, {1, 2, 3}, 3)}),
      ok("new_axes_up_to_6_dims",
         R"J({"begin": "(0, 0, 0, 0, 0)", "end": "(0, 0, 0, 2, 0)",
              "new_axis_mask": "(1, 1, 1, 0, 1)"})J",
         {x23}, {T({1, 1, 1, 2, 1, 3}, {1, -2, 3, -4, 5, -6}, 8)}),
      // Mask entries beyond M = 1 are ignored, whatever they say.
      ok("mask_entries_beyond_m_ignored",
         R"J({"begin": "(0,)", "end": "(1,)", "shrink_axis_mask": "(0, 1, 1)",
              "new_axis_mask": "(0, 0, 0, 1)", "ellipsis_mask": "(0, 1)"})J",
         {x23}, {T({1, 3}, {1, -2, 3}, 8)}),
      ok("shrink_negative_index",
         R"J({"begin": "(0, -1)", "end": "(2, 0)", "shrink_axis_mask": "(0, 1)"})J", {x23},
         {T({2}, {3, -6}, 8)}),
      ok("shrink_ignores_end_and_stride",
         R"J({"begin": "(1,)", "end": "(-9223372036854775808,)",
              "stride": "(-9223372036854775808,)", "shrink_axis_mask": "(1,)"})J",
         {x23}, {T({3}, {-4, 5, -6}, 8)}),
      ok("shrink_to_one_remaining_dim_of_1",
         R"J({"begin": "(1, 2)", "end": "(0, 3)", "shrink_axis_mask": "(1, 0)"})J", {x23},
         {T({1}, {-6}, 8)}),
      ok("int8_input_reverse",
         R"J({"begin": "(1, -1)", "end": "(2, -4)", "stride": "(1, -1)"})J",
         {T8({2, 3}, {-127, 127, 0, 1, -1, 5}, 8)}, {T({1, 3}, {5, -1, 1}, 8)}),
      ok("precision_32_extremes",
         R"J({"begin": "(0,)", "end": "(0,)", "stride": "(-1,)", "begin_mask": "(1,)",
              "end_mask": "(1,)"})J",
         {T({2}, {2147483647, -2147483647}, 32)}, {T({2}, {-2147483647, 2147483647}, 32)}),
      ok("precision_1", R"J({"begin": "(1,)", "end": "(3,)"})J", {T({3}, {0, 0, 0}, 1)},
         {T({2}, {0, 0}, 1)}),
  };
}

std::vector<Example> rule_breaking_examples() {
  const ExampleTensor x = T({2, 3}, {1, -2, 3, -4, 5, -6}, 8);
  return {
      bad("begin_end_length_mismatch", R"J({"begin": "(0, 0)", "end": "(1,)"})J", {x}),
      bad("stride_length_mismatch", R"J({"begin": "(0, 0)", "end": "(1, 1)", "stride": "(1,)"})J",
          {x}),
      bad("stride_zero", R"J({"begin": "(0, 0)", "end": "(2, 3)", "stride": "(1, 0)"})J", {x}),
      // The StridedSlice-1 spec: the stride input contains no zeros, even where a step ignores it.
      bad("stride_zero_on_new_axis_step",
          R"J({"begin": "(0, 0, 0)", "end": "(2, 0, 3)", "stride": "(1, 0, 1)",
               "new_axis_mask": "(0, 1, 0)"})J",
          {x}),
      bad("begin_mask_value_2", R"J({"begin": "(0,)", "end": "(1,)", "begin_mask": "(2,)"})J",
          {x}),
      bad("end_mask_value_minus_1", R"J({"begin": "(0,)", "end": "(1,)", "end_mask": "(-1,)"})J",
          {x}),
      bad("new_axis_mask_value_2", R"J({"begin": "(0,)", "end": "(1,)", "new_axis_mask": "2"})J",
          {x}),
      bad("shrink_axis_mask_value_2",
          R"J({"begin": "(0,)", "end": "(1,)", "shrink_axis_mask": "(2,)"})J", {x}),
      bad("ellipsis_mask_value_2", R"J({"begin": "(0,)", "end": "(1,)", "ellipsis_mask": "(2,)"})J",
          {x}),
      bad("mask_value_beyond_m_not_binary",
          R"J({"begin": "(0,)", "end": "(1,)", "begin_mask": "(0, 0, 5)"})J", {x}),
      bad("two_ellipsis_bits",
          R"J({"begin": "(0, 0)", "end": "(0, 0)", "ellipsis_mask": "(1, 1)"})J", {x}),
      bad("new_axis_and_shrink_same_step",
          R"J({"begin": "(0, 0)", "end": "(1, 1)", "new_axis_mask": "(1,)",
               "shrink_axis_mask": "(1,)"})J",
          {x}),
      bad("new_axis_and_ellipsis_same_step",
          R"J({"begin": "(0,)", "end": "(0,)", "new_axis_mask": "(1,)", "ellipsis_mask": "(1,)"})J",
          {x}),
      bad("shrink_and_ellipsis_same_step",
          R"J({"begin": "(0,)", "end": "(0,)", "shrink_axis_mask": "(1,)",
               "ellipsis_mask": "(1,)"})J",
          {x}),
      bad("shrink_and_begin_mask_same_step",
          R"J({"begin": "(1,)", "end": "(2,)", "shrink_axis_mask": "(1,)", "begin_mask": "(1,)"})J",
          {x}),
      bad("shrink_and_end_mask_same_step",
          R"J({"begin": "(1,)", "end": "(2,)", "shrink_axis_mask": "(1,)", "end_mask": "(1,)"})J",
          {x}),
      bad("more_steps_than_axes", R"J({"begin": "(0, 0, 0)", "end": "(1, 1, 1)"})J", {x}),
      bad("more_steps_than_axes_with_ellipsis",
          R"J({"begin": "(0, 0, 0, 0)", "end": "(1, 1, 1, 1)", "ellipsis_mask": "(0, 1)"})J",
          {x}),
      bad("shrink_index_equal_to_n",
          R"J({"begin": "(2,)", "end": "(0,)", "shrink_axis_mask": "(1,)"})J", {x}),
      bad("shrink_index_below_minus_n",
          R"J({"begin": "(0, -4)", "end": "(1, 0)", "shrink_axis_mask": "(0, 1)"})J", {x}),
      bad("shrink_index_int64_max",
          R"J({"begin": "(9223372036854775807,)", "end": "(0,)", "shrink_axis_mask": "(1,)"})J",
          {x}),
      bad("shrink_index_int64_min",
          R"J({"begin": "(-9223372036854775808,)", "end": "(0,)", "shrink_axis_mask": "(1,)"})J",
          {x}),
      bad("empty_begin_equals_end", R"J({"begin": "(1,)", "end": "(1,)"})J", {x}),
      bad("empty_begin_after_end", R"J({"begin": "(0, 2)", "end": "(2, 1)"})J", {x}),
      bad("empty_begin_clamped_to_n", R"J({"begin": "(5,)", "end": "(9,)"})J", {x}),
      bad("empty_end_clamped_to_0", R"J({"begin": "(0,)", "end": "(-9,)"})J", {x}),
      bad("empty_masked_begin_end_0", R"J({"begin": "(1,)", "end": "(0,)", "begin_mask": "(1,)"})J",
          {x}),
      bad("empty_reverse_begin_before_end",
          R"J({"begin": "(0,)", "end": "(1,)", "stride": "(-1,)"})J", {x}),
      bad("empty_reverse_masked_begin_end_beyond",
          R"J({"begin": "(0, 0)", "end": "(2, 9)", "stride": "(1, -1)",
               "begin_mask": "(0, 1)"})J",
          {x}),
      bad("empty_int64_extremes",
          R"J({"begin": "(9223372036854775807,)", "end": "(-9223372036854775808,)"})J", {x}),
      bad("output_7_dims_from_new_axes",
          R"J({"begin": "(0, 0, 0, 0, 0)", "end": "(0, 0, 0, 0, 0)",
               "new_axis_mask": "(1, 1, 1, 1, 1)"})J",
          {x}),
      bad("output_0_dims_every_axis_shrunk",
          R"J({"begin": "(0, 1)", "end": "(0, 0)", "shrink_axis_mask": "(1, 1)"})J", {x}),
      // Shared input-side rules.
      bad("missing_begin", R"J({"end": "(1,)"})J", {x}),
      bad("missing_end", R"J({"begin": "(0,)"})J", {x}),
      bad("unknown_attribute_strides",
          R"J({"begin": "(0,)", "end": "(1,)", "strides": "(1,)"})J", {x}),
      bad("begin_malformed", R"J({"begin": "(0,,)", "end": "(1,)"})J", {x}),
      bad("mask_not_a_string", R"J({"begin": "(0,)", "end": "(1,)", "begin_mask": 1})J", {x}),
      bad("two_inputs", R"J({"begin": "(0,)", "end": "(1,)"})J", {x, x}),
      bad("value_outside_precision", R"J({"begin": "(0,)", "end": "(1,)"})J",
          {T({2}, {1, 128}, 8)}),
      bad("int8_precision_above_8", R"J({"begin": "(0,)", "end": "(1,)"})J", {T8({1}, {1}, 9)}),
  };
}

}  // namespace

std::vector<OpInfo> ov_ops() {
  OpInfo slice{"ov_strided_slice", "ov", {}, 1, 1, ov_slice_attrs(), {}};
  for (auto examples : {seed_examples, more_worked_examples, rule_breaking_examples}) {
    for (Example& e : examples()) slice.examples.push_back(std::move(e));
  }
  return {slice};
}

}  // namespace cvm::ops
