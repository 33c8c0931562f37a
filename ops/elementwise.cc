// Records of the elementwise family: abs, cvm_precision, elemwise_add, elemwise_sub, negative,
// clip, cvm_clip, cvm_right_shift, cvm_left_shift (contract: docs/ops/elementwise.md). Every
// expected output below was worked out by hand from the contract.
#include "schema.h"

namespace cvm::ops {

namespace {

OpInfo elementwise_op(const std::string& name, int inputs, std::vector<AttrSpec> attrs) {
  return {name, "elementwise", {}, inputs, inputs, std::move(attrs), {}};
}

// Input-side rule breakers shared by every operator of the family; `attrs` is a valid
// attribute object for the operator and `x` a valid input. INT32_MIN needs precision 32, which
// breaks a second rule where the output precision grows with the input's (elemwise_add/sub, a
// left shift): those operators leave that example out (a negative example breaks one rule).
std::vector<Example> input_errors(const std::string& attrs, const ExampleTensor& x, int inputs,
                                  bool output_precision_grows = false) {
  std::vector<ExampleTensor> one_too_many(static_cast<size_t>(inputs) + 1, x);
  std::vector<ExampleTensor> one_too_few(static_cast<size_t>(inputs) - 1, x);
  auto with_first = [&](const ExampleTensor& first) {
    std::vector<ExampleTensor> all(static_cast<size_t>(inputs), x);
    all[0] = first;
    return all;
  };
  std::vector<Example> examples = {
      bad("one_input_too_many", attrs, one_too_many),
      bad("one_input_too_few", attrs, one_too_few),
      bad("value_outside_precision", attrs, with_first(T({2}, {1, 8}, 4))),
      bad("precision_zero", attrs, with_first(T({2}, {0, 0}, 0))),
      bad("precision_33", attrs, with_first(T({2}, {0, 0}, 33))),
      bad("int8_precision_above_8", attrs, with_first(T8({2}, {1, -1}, 9))),
  };
  if (!output_precision_grows) {
    examples.insert(examples.begin() + 3,
                    bad("int32_min_value", attrs, with_first(T({2}, {INT32_MIN, 0}, 32))));
  }
  return examples;
}

void append(OpInfo& op, std::vector<Example> examples) {
  for (Example& e : examples) op.examples.push_back(std::move(e));
}

// A valid operand of shape (2,), precision 4.
ExampleTensor pair() { return T({2}, {3, -3}, 4); }

// The attribute schema of cvm_right_shift and cvm_left_shift (original field names).
std::vector<AttrSpec> shift_attrs() {
  return {required("precision", AttrKind::kInt), required("shift_bit", AttrKind::kInt),
          optional("is_sign", AttrKind::kBool, "true")};
}

}  // namespace

std::vector<OpInfo> elementwise_ops() {
  OpInfo abs = elementwise_op("abs", 1, {});
  abs.examples = {
      ok("mixed_signs", "{}", {T({2, 3}, {-3, 0, 3, -7, 7, 1}, 4)},
         {T({2, 3}, {3, 0, 3, 7, 7, 1}, 4)}),
      ok("precision_32_extremes", "{}", {T({2}, {-2147483647, 2147483647}, 32)},
         {T({2}, {2147483647, 2147483647}, 32)}),
      ok("int8_input", "{}", {T8({3}, {-127, 0, 127}, 8)}, {T({3}, {127, 0, 127}, 8)}),
      ok("precision_1", "{}", {T({1}, {0}, 1)}, {T({1}, {0}, 1)}),
      ok("six_dims", "{}", {T({1, 1, 1, 1, 1, 2}, {-1, 1}, 2)}, {T({1, 1, 1, 1, 1, 2}, {1, 1}, 2)}),
  };
  abs.examples.push_back(bad("any_attribute_is_rejected", R"J({"axis": "0"})J", {pair()}));
  append(abs, input_errors("{}", pair(), 1));

  OpInfo negative = elementwise_op("negative", 1, {});
  negative.examples = {
      ok("mixed_signs", "{}", {T({2, 3}, {-3, 0, 3, -7, 7, 1}, 4)},
         {T({2, 3}, {3, 0, -3, 7, -7, -1}, 4)}),
      ok("precision_32_extremes", "{}", {T({2}, {-2147483647, 2147483647}, 32)},
         {T({2}, {2147483647, -2147483647}, 32)}),
      ok("int8_input", "{}", {T8({3}, {-127, 0, 127}, 8)}, {T({3}, {127, 0, -127}, 8)}),
      ok("precision_1", "{}", {T({2}, {0, 0}, 1)}, {T({2}, {0, 0}, 1)}),
  };
  negative.examples.push_back(bad("any_attribute_is_rejected", R"J({"a_min": "0"})J", {pair()}));
  append(negative, input_errors("{}", pair(), 1));

  OpInfo precision = elementwise_op("cvm_precision", 1, {});
  precision.examples = {
      // Formalization v2 (docs/glossary.md): 0 takes 1 bit, 1 takes 1, 2 and 3 take 2, ...; negatives by magnitude.
      ok("bits_of_small_values", "{}", {T({9}, {0, 1, 2, 3, 4, 7, 8, -1, -8}, 5)},
         {T({9}, {1, 1, 2, 2, 3, 3, 4, 1, 4}, 6)}),
      ok("precision_32_extremes", "{}",
         {T({4}, {2147483647, -2147483647, 1073741824, 1073741823}, 32)},
         {T({4}, {31, 31, 31, 30}, 6)}),
      ok("int8_input", "{}", {T8({3}, {-127, 64, 63}, 8)}, {T({3}, {7, 7, 6}, 6)}),
      // Output precision is 6 whatever the input's, also below 6.
      ok("precision_1_input", "{}", {T({2}, {0, 0}, 1)}, {T({2}, {1, 1}, 6)}),
      ok("precision_2_input", "{}", {T({2, 1}, {1, -1}, 2)}, {T({2, 1}, {1, 1}, 6)}),
  };
  precision.examples.push_back(bad("any_attribute_is_rejected", R"J({"precision": "8"})J",
                                   {pair()}));
  append(precision, input_errors("{}", pair(), 1));

  OpInfo add = elementwise_op("elemwise_add", 2, {});
  add.examples = {
      ok("same_shape", "{}", {T({2, 2}, {1, 2, 3, 4}, 4), T({2, 2}, {10, -20, 30, -40}, 7)},
         {T({2, 2}, {11, -18, 33, -36}, 8)}),
      ok("precision_31_gives_32", "{}",
         {T({2}, {1073741823, -1073741823}, 31), T({2}, {1073741823, -1073741823}, 31)},
         {T({2}, {2147483646, -2147483646}, 32)}),
      ok("int8_and_int32", "{}", {T8({3}, {-127, 0, 127}, 8), T({3}, {-1, 5, 1}, 4)},
         {T({3}, {-128, 5, 128}, 9)}),
      ok("precision_1_operand", "{}", {T({1}, {5}, 31), T({1}, {0}, 1)}, {T({1}, {5}, 32)}),
      ok("six_dims", "{}", {T({1, 2, 1, 1, 1, 1}, {1, 2}, 3), T({1, 2, 1, 1, 1, 1}, {3, -4}, 4)},
         {T({1, 2, 1, 1, 1, 1}, {4, -2}, 5)}),
  };

  OpInfo sub = elementwise_op("elemwise_sub", 2, {});
  sub.examples = {
      ok("same_shape", "{}", {T({2, 2}, {1, 2, 3, 4}, 4), T({2, 2}, {10, -20, 30, -40}, 7)},
         {T({2, 2}, {-9, 22, -27, 44}, 8)}),
      ok("precision_31_gives_32", "{}",
         {T({2}, {-1073741823, 1073741823}, 31), T({2}, {1073741823, -1073741823}, 31)},
         {T({2}, {-2147483646, 2147483646}, 32)}),
      ok("int8_inputs", "{}", {T8({3}, {-127, 0, 127}, 8), T8({3}, {127, -127, -127}, 8)},
         {T({3}, {-254, 127, 254}, 9)}),
      ok("precision_1_operand", "{}", {T({1}, {0}, 1), T({1}, {-5}, 31)}, {T({1}, {5}, 32)}),
  };
  for (OpInfo* op : {&add, &sub}) {
    const ExampleTensor x23 = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
    append(*op, {
                    bad("transposed_shapes", "{}", {x23, T({3, 2}, {1, 2, 3, 4, 5, 6}, 8)}),
                    // Broadcastable, as broadcast_add would accept, but not identical.
                    bad("broadcastable_shapes", "{}", {x23, T({1, 3}, {1, 2, 3}, 8)}),
                    bad("different_ndim_same_size", "{}",
                        {T({3}, {1, 2, 3}, 8), T({1, 3}, {1, 2, 3}, 8)}),
                    bad("output_precision_above_32", "{}", {T({1}, {1}, 32), T({1}, {0}, 1)}),
                    bad("any_attribute_is_rejected", R"J({"axis": "0"})J", {pair(), pair()}),
                });
    append(*op, input_errors("{}", pair(), 2, true));
  }

  OpInfo clip = elementwise_op("clip", 1, {required("a_min", AttrKind::kInt),
                                           required("a_max", AttrKind::kInt)});
  // Precision: bitlen(max(|a_min|, |a_max|) + 1) + 1.
  clip.examples = {
      // The original runtime's documented example; bitlen(8 + 1) + 1 = 5.
      ok("original_example", R"J({"a_min": "1", "a_max": "8"})J",
         {T({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5)},
         {T({10}, {1, 1, 2, 3, 4, 5, 6, 7, 8, 8}, 5)}),
      ok("negative_range", R"J({"a_min": "-3", "a_max": "2"})J",
         {T({2, 3}, {-7, -3, -2, 0, 2, 7}, 4)}, {T({2, 3}, {-3, -3, -2, 0, 2, 2}, 4)}),
      // The output precision comes from the bounds alone: here below the input's ...
      ok("precision_below_input", R"J({"a_min": "0", "a_max": "1"})J",
         {T({3}, {2147483647, -2147483647, 5}, 32)}, {T({3}, {1, 0, 1}, 3)}),
      // ... and here above it.
      ok("precision_above_input", R"J({"a_min": "-1000", "a_max": "1000"})J",
         {T({3}, {1, -1, 0}, 2)}, {T({3}, {1, -1, 0}, 11)}),
      ok("widest_valid_bounds", R"J({"a_min": "-2147483646", "a_max": "2147483646"})J",
         {T({3}, {2147483647, -2147483647, 0}, 32)},
         {T({3}, {2147483646, -2147483646, 0}, 32)}),
      // max = 2^30: bitlen(2^30 + 1) + 1 = 32.
      ok("narrow_range_of_large_bounds", R"J({"a_min": "1073741823", "a_max": "1073741824"})J",
         {T({2}, {0, 2147483647}, 32)}, {T({2}, {1073741823, 1073741824}, 32)}),
      ok("adjacent_bounds", R"J({"a_min": "-1", "a_max": "0"})J", {T({3}, {5, -5, 0}, 4)},
         {T({3}, {0, -1, 0}, 3)}),
      ok("int8_input", R"J({"a_min": "-100", "a_max": "100"})J", {T8({3}, {-127, 50, 127}, 8)},
         {T({3}, {-100, 50, 100}, 8)}),
      ok("whitespace_and_plus_sign", R"J({"a_min": " -2 ", "a_max": "+2"})J",
         {T({3}, {-3, 1, 3}, 3)}, {T({3}, {-2, 1, 2}, 3)}),
  };
  const ExampleTensor small = T({2}, {3, -3}, 4);
  append(clip, {
      bad("a_min_equals_a_max", R"J({"a_min": "3", "a_max": "3"})J", {small}),
      bad("a_min_above_a_max", R"J({"a_min": "5", "a_max": "-5"})J", {small}),
      // max(|a_min|, |a_max|) = 2^31 - 1: bitlen(2^31) + 1 = 33.
      bad("output_precision_above_32_from_a_max", R"J({"a_min": "0", "a_max": "2147483647"})J",
          {small}),
      bad("output_precision_above_32_from_a_min", R"J({"a_min": "-2147483647", "a_max": "0"})J",
          {small}),
      // -2^31 parses as an int but is outside [-(2^31-1), 2^31-1] (and so also gives 33 bits).
      bad("a_min_int32_min", R"J({"a_min": "-2147483648", "a_max": "0"})J", {small}),
      bad("a_max_int32_min", R"J({"a_min": "0", "a_max": "-2147483648"})J", {small}),
      bad("a_max_not_int32", R"J({"a_min": "0", "a_max": "2147483648"})J", {small}),
      bad("a_min_missing", R"J({"a_max": "1"})J", {small}),
      bad("a_max_missing", R"J({"a_min": "1"})J", {small}),
      bad("a_min_malformed", R"J({"a_min": "1.5", "a_max": "3"})J", {small}),
      bad("a_max_not_a_string", R"J({"a_min": "1", "a_max": 3})J", {small}),
      bad("unknown_attribute", R"J({"a_min": "1", "a_max": "3", "precision": "8"})J", {small}),
  });
  append(clip, input_errors(R"J({"a_min": "-1", "a_max": "1"})J", small, 1));

  OpInfo cvm_clip = elementwise_op("cvm_clip", 1, {required("precision", AttrKind::kInt),
                                                   optional("is_sign", AttrKind::kBool, "true")});
  cvm_clip.examples = {
      // The original runtime's documented example, precision 8: alpha = 127.
      ok("original_example", R"J({"precision": "8"})J", {T({5}, {275, 157, -23, -168, -275}, 10)},
         {T({5}, {127, 127, -23, -127, -127}, 8)}),
      // is_sign is accepted and ignored: still the signed clip.
      ok("is_sign_false_is_ignored", R"J({"precision": "8", "is_sign": "false"})J",
         {T({5}, {275, 157, -23, -168, -275}, 10)}, {T({5}, {127, 127, -23, -127, -127}, 8)}),
      ok("precision_1_gives_zeros", R"J({"precision": "1", "is_sign": "True"})J",
         {T({3}, {3, -3, 0}, 3)}, {T({3}, {0, 0, 0}, 1)}),
      ok("precision_32", R"J({"precision": "32"})J", {T({2}, {2147483647, -2147483647}, 32)},
         {T({2}, {2147483647, -2147483647}, 32)}),
      ok("precision_above_input", R"J({"precision": "20"})J", {T({2}, {5, -5}, 4)},
         {T({2}, {5, -5}, 20)}),
      ok("int8_input", R"J({"precision": "3"})J", {T8({3}, {-127, 127, 3}, 8)},
         {T({3}, {-3, 3, 3}, 3)}),
  };
  append(cvm_clip, {
      bad("precision_attr_0", R"J({"precision": "0"})J", {small}),
      bad("precision_attr_negative", R"J({"precision": "-8"})J", {small}),
      bad("precision_attr_33", R"J({"precision": "33"})J", {small}),
      bad("precision_attr_missing", R"J({"is_sign": "true"})J", {small}),
      bad("is_sign_malformed", R"J({"precision": "8", "is_sign": "yes"})J", {small}),
      bad("unknown_attribute", R"J({"precision": "8", "shift_bit": "1"})J", {small}),
  });
  append(cvm_clip, input_errors(R"J({"precision": "8"})J", small, 1));

  OpInfo right = elementwise_op("cvm_right_shift", 1, shift_attrs());
  // T = floor((floor(x / 2^(s-1)) + 1) / 2): x / 2^s rounded, ties toward +infinity.
  right.examples = {
      // 2.5 -> 3, -1.5 -> -1, -2.5 -> -2, -0.5 -> 0.
      ok("shift_1_rounding", R"J({"precision": "8", "shift_bit": "1"})J",
         {T({8}, {5, -3, -5, 4, -4, 1, -1, 0}, 4)}, {T({8}, {3, -1, -2, 2, -2, 1, 0, 0}, 8)}),
      ok("shift_2_rounding", R"J({"precision": "8", "shift_bit": "2"})J",
         {T({8}, {6, -6, 5, -5, 7, -7, 2, -2}, 4)}, {T({8}, {2, -1, 1, -1, 2, -2, 1, 0}, 8)}),
      // 1000 / 4 = 250, then clipped to +-127.
      ok("clipped_to_precision", R"J({"precision": "8", "shift_bit": "2"})J",
         {T({2}, {1000, -1000}, 11)}, {T({2}, {127, -127}, 8)}),
      // Exact in wide arithmetic: (2^31 - 1) / 2 rounds to 2^30.
      ok("shift_1_on_int32_max", R"J({"precision": "32", "shift_bit": "1"})J",
         {T({2}, {2147483647, -2147483647}, 32)}, {T({2}, {1073741824, -1073741823}, 32)}),
      ok("shift_31", R"J({"precision": "2", "shift_bit": "31"})J",
         {T({3}, {1073741824, -1073741824, 2147483647}, 32)}, {T({3}, {1, 0, 1}, 2)}),
      ok("shift_32", R"J({"precision": "32", "shift_bit": "32"})J",
         {T({3}, {2147483647, -2147483647, 1}, 32)}, {T({3}, {0, 0, 0}, 32)}),
      ok("int8_input", R"J({"precision": "8", "shift_bit": "3", "is_sign": "false"})J",
         {T8({3}, {-127, 127, 64}, 8)}, {T({3}, {-16, 16, 8}, 8)}),
      ok("precision_1_gives_zeros", R"J({"precision": "1", "shift_bit": "1"})J",
         {T({2}, {100, -100}, 8)}, {T({2}, {0, 0}, 1)}),
  };
  append(right, {
      bad("shift_bit_0", R"J({"precision": "8", "shift_bit": "0"})J", {small}),
      bad("shift_bit_negative", R"J({"precision": "8", "shift_bit": "-1"})J", {small}),
      bad("shift_bit_33", R"J({"precision": "8", "shift_bit": "33"})J", {small}),
      bad("shift_bit_int32_max", R"J({"precision": "8", "shift_bit": "2147483647"})J", {small}),
      bad("precision_attr_0", R"J({"precision": "0", "shift_bit": "1"})J", {small}),
      bad("precision_attr_33", R"J({"precision": "33", "shift_bit": "1"})J", {small}),
      bad("shift_bit_missing", R"J({"precision": "8"})J", {small}),
      bad("precision_attr_missing", R"J({"shift_bit": "1"})J", {small}),
      bad("unknown_attribute", R"J({"precision": "8", "shift_bit": "1", "axis": "0"})J", {small}),
  });
  append(right, input_errors(R"J({"precision": "8", "shift_bit": "1"})J", small, 1));

  OpInfo left = elementwise_op("cvm_left_shift", 1, shift_attrs());
  left.examples = {
      ok("shift_2", R"J({"precision": "8", "shift_bit": "2"})J", {T({4}, {1, -1, 3, 0}, 3)},
         {T({4}, {4, -4, 12, 0}, 8)}),
      ok("clipped_to_precision", R"J({"precision": "8", "shift_bit": "2"})J",
         {T({3}, {100, -100, 1}, 8)}, {T({3}, {127, -127, 4}, 8)}),
      // p0 + shift_bit = 32 is the largest allowed.
      ok("precision_31_shift_1", R"J({"precision": "32", "shift_bit": "1"})J",
         {T({2}, {1073741823, -1073741823}, 31)}, {T({2}, {2147483646, -2147483646}, 32)}),
      ok("precision_2_shift_30", R"J({"precision": "32", "shift_bit": "30"})J",
         {T({2}, {1, -1}, 2)}, {T({2}, {1073741824, -1073741824}, 32)}),
      ok("precision_2_shift_30_clipped", R"J({"precision": "31", "shift_bit": "30"})J",
         {T({2}, {1, -1}, 2)}, {T({2}, {1073741823, -1073741823}, 31)}),
      ok("int8_input_shift_24", R"J({"precision": "32", "shift_bit": "24", "is_sign": "0"})J",
         {T8({2}, {-127, 127}, 8)}, {T({2}, {-2130706432, 2130706432}, 32)}),
      ok("precision_1_gives_zeros", R"J({"precision": "1", "shift_bit": "1"})J",
         {T({2}, {3, -3}, 3)}, {T({2}, {0, 0}, 1)}),
  };
  append(left, {
      bad("shift_past_32_bits", R"J({"precision": "32", "shift_bit": "2"})J",
          {T({1}, {1}, 31)}),
      bad("shift_past_32_bits_int8", R"J({"precision": "8", "shift_bit": "25"})J",
          {T8({1}, {1}, 8)}),
      bad("shift_past_32_bits_precision_32", R"J({"precision": "8", "shift_bit": "1"})J",
          {T({1}, {0}, 32)}),
      bad("shift_bit_0", R"J({"precision": "8", "shift_bit": "0"})J", {small}),
      bad("shift_bit_negative", R"J({"precision": "8", "shift_bit": "-2147483648"})J", {small}),
      bad("precision_attr_0", R"J({"precision": "0", "shift_bit": "1"})J", {small}),
      bad("precision_attr_33", R"J({"precision": "33", "shift_bit": "1"})J", {small}),
      bad("shift_bit_missing", R"J({"precision": "8"})J", {small}),
      bad("precision_attr_missing", R"J({"shift_bit": "1"})J", {small}),
      bad("unknown_attribute", R"J({"precision": "8", "shift_bit": "1", "a_min": "0"})J",
          {small}),
  });
  append(left, input_errors(R"J({"precision": "8", "shift_bit": "1"})J", small, 1, true));

  return {abs, precision, add, sub, negative, clip, cvm_clip, right, left};
}

}  // namespace cvm::ops
