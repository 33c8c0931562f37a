// Records of the broadcast family: broadcast_add, broadcast_sub, broadcast_mul, broadcast_div,
// broadcast_max, broadcast_greater (contract: docs/ops/broadcast.md). Every expected output
// below was worked out by hand from the contract.
#include "schema.h"

namespace cvm::ops {

namespace {

// An int8 tensor of zeros (precision 1): large operands that are cheap to store.
ExampleTensor zeros8(Shape shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return T8(std::move(shape), std::vector<int32_t>(static_cast<size_t>(count), 0), 1);
}

OpInfo broadcast_op(const std::string& name) {
  return with_work({name, "broadcast", {}, 2, 2, {}, {}}, broadcast_work);
}

// Rule-breaking inputs every broadcast operator shares; each breaks one rule.
std::vector<Example> broadcast_errors() {
  const ExampleTensor a = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  return {
      // Right-aligned, the last dims are 3 and 2: neither is 1.
      bad("trailing_dims_3_and_2_differ", "{}", {a, T({2}, {1, 2}, 8)}),
      // (2, 3) against (4, 3): the leading dims 2 and 4 differ.
      bad("leading_dims_2_and_4_differ", "{}",
          {a, T({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 8)}),
      // The same mismatch with the lower-rank operand first.
      bad("lower_rank_first_dims_differ", "{}", {T({2}, {1, 2}, 8), a}),
      // Each input is legal; the broadcast output (32768, 32769) has 2^30 + 2^15 elements.
      bad("output_over_element_limit", "{}", {zeros8({32768, 1}), zeros8({1, 32769})}),
      bad("any_attribute_is_rejected", R"J({"axis": "1"})J", {a, a}),
      bad("one_input", "{}", {a}),
      bad("three_inputs", "{}", {a, a, a}),
      bad("value_outside_precision", "{}", {a, T({1}, {8}, 4)}),
      bad("int32_min_value", "{}", {T({1}, {INT32_MIN}, 32), T({1}, {1}, 2)}),
      bad("precision_zero", "{}", {a, T({1}, {0}, 0)}),
      bad("precision_33", "{}", {T({1}, {0}, 33), a}),
      bad("int8_precision_above_8", "{}", {a, T8({1}, {1}, 9)}),
  };
}

// INT32_MIN needs precision 32, where add, sub and mul infer an output precision above 32: that
// call breaks two rules, and a negative example breaks exactly one (a backend may check either
// first, docs/contract.md "Rule ids"), so those operators leave the example out.
void append_errors(OpInfo& op, bool output_precision_grows = false) {
  for (Example& e : broadcast_errors()) {
    if (!(output_precision_grows && e.name == "int32_min_value")) op.examples.push_back(e);
  }
}

}  // namespace

std::vector<OpInfo> broadcast_ops() {
  OpInfo add = broadcast_op("broadcast_add");
  add.examples = {
      // Formalization v1's example (docs/glossary.md): x (2,3) of ones, y = [[0],[1]]; precision max(8, 8) + 1.
      ok("seed_example", "{}", {T({2, 3}, {1, 1, 1, 1, 1, 1}, 8), T({2, 1}, {0, 1}, 8)},
         {T({2, 3}, {1, 1, 1, 2, 2, 2}, 9)}),
      ok("lower_rank_second", "{}", {T({2, 3}, {1, 2, 3, 4, 5, 6}, 4), T({3}, {10, -20, 30}, 6)},
         {T({2, 3}, {11, -18, 33, 14, -15, 36}, 7)}),
      ok("lower_rank_first", "{}", {T({1}, {5}, 4), T({2, 2}, {1, -1, 2, -2}, 3)},
         {T({2, 2}, {6, 4, 7, 3}, 5)}),
      ok("both_operands_broadcast", "{}", {T({2, 1}, {1, 2}, 3), T({1, 3}, {10, 20, 30}, 6)},
         {T({2, 3}, {11, 21, 31, 12, 22, 32}, 7)}),
      ok("six_dims", "{}", {T({1, 1, 1, 1, 1, 2}, {1, 2}, 3), T({2, 1, 1, 1, 1, 1}, {10, 20}, 6)},
         {T({2, 1, 1, 1, 1, 2}, {11, 12, 21, 22}, 7)}),
      ok("int8_inputs", "{}", {T8({2}, {-127, 127}, 8), T8({1}, {-1}, 8)},
         {T({2}, {-128, 126}, 9)}),
      // max(31, 31) + 1 = 32: the largest sums still fit.
      ok("precision_31_gives_32", "{}",
         {T({2}, {1073741823, -1073741823}, 31), T({2}, {1073741823, -1073741823}, 31)},
         {T({2}, {2147483646, -2147483646}, 32)}),
      ok("precision_1_operand", "{}", {T({1}, {1073741823}, 31), T({1}, {0}, 1)},
         {T({1}, {1073741823}, 32)}),
  };
  append_errors(add, true);
  add.examples.push_back(bad("output_precision_above_32", "{}", {T({1}, {1}, 32), T({1}, {0}, 1)}));

  OpInfo sub = broadcast_op("broadcast_sub");
  sub.examples = {
      ok("lower_rank_second", "{}", {T({2, 3}, {1, 2, 3, 4, 5, 6}, 4), T({3}, {1, 1, 10}, 5)},
         {T({2, 3}, {0, 1, -7, 3, 4, -4}, 6)}),
      // The minuend may have the lower rank (formalization v2).
      ok("lower_rank_first", "{}", {T({3}, {10, 20, 30}, 6), T({2, 3}, {1, 2, 3, 4, 5, 6}, 4)},
         {T({2, 3}, {9, 18, 27, 6, 15, 24}, 7)}),
      ok("both_operands_broadcast", "{}", {T({2, 1}, {5, -5}, 4), T({1, 2}, {1, 7}, 4)},
         {T({2, 2}, {4, -2, -6, -12}, 5)}),
      ok("int8_inputs", "{}", {T8({2, 2}, {-127, 0, 127, 1}, 8), T8({2, 1}, {127, -127}, 8)},
         {T({2, 2}, {-254, -127, 254, 128}, 9)}),
      ok("precision_31_gives_32", "{}", {T({1}, {-1073741823}, 31), T({1}, {1073741823}, 31)},
         {T({1}, {-2147483646}, 32)}),
  };
  append_errors(sub, true);
  sub.examples.push_back(bad("output_precision_above_32", "{}",
                             {T({1}, {1}, 3), T({1}, {1}, 32)}));

  OpInfo mul = broadcast_op("broadcast_mul");
  mul.examples = {
      ok("lower_rank_second", "{}", {T({2, 2}, {1, 2, 3, 4}, 4), T({2}, {10, -1}, 5)},
         {T({2, 2}, {10, -2, 30, -4}, 9)}),
      ok("both_operands_broadcast", "{}", {T8({1, 3}, {-127, 5, 127}, 8), T8({2, 1}, {127, -2}, 8)},
         {T({2, 3}, {-16129, 635, 16129, 254, -10, -254}, 16)}),
      // 16 + 16 = 32: (2^15 - 1)^2 = 1073676289.
      ok("precision_16_by_16", "{}", {T({1}, {32767}, 16), T({2}, {32767, -32767}, 16)},
         {T({2}, {1073676289, -1073676289}, 32)}),
      ok("precision_2_by_30", "{}", {T({2}, {-1, 1}, 2), T({1}, {536870911}, 30)},
         {T({2}, {-536870911, 536870911}, 32)}),
      ok("precision_31_by_1", "{}", {T({1}, {1073741823}, 31), T({1}, {0}, 1)},
         {T({1}, {0}, 32)}),
  };
  append_errors(mul, true);
  mul.examples.push_back(bad("output_precision_above_32", "{}",
                             {T({1}, {1}, 16), T({1}, {1}, 17)}));

  OpInfo div = broadcast_op("broadcast_div");
  div.examples = {
      // Truncation toward zero: -7 / 2 = -3, 7 / -2 = -3.
      ok("truncates_toward_zero", "{}", {T({4}, {7, -7, 7, -7}, 4), T({4}, {2, 2, -2, -2}, 3)},
         {T({4}, {3, -3, -3, 3}, 4)}),
      // x / 0 = 0 without error.
      ok("division_by_zero_gives_zero", "{}", {T({2, 2}, {5, -5, 6, 0}, 4), T({2}, {0, 3}, 3)},
         {T({2, 2}, {0, -1, 0, 0}, 4)}),
      ok("both_operands_broadcast", "{}", {T({2, 1}, {100, -100}, 8), T({1, 3}, {3, -7, 1}, 4)},
         {T({2, 3}, {33, -14, 100, -33, 14, -100}, 8)}),
      ok("precision_32_by_minus_one", "{}", {T({2}, {2147483647, -2147483647}, 32),
                                             T({1}, {-1}, 2)},
         {T({2}, {-2147483647, 2147483647}, 32)}),
      ok("int8_inputs", "{}", {T8({3}, {-127, 127, 1}, 8), T8({3}, {2, -2, -3}, 8)},
         {T({3}, {-63, -63, 0}, 8)}),
      // The output precision is p0 even when the divisor's is larger.
      ok("precision_is_dividend_precision", "{}", {T({1}, {3}, 3), T({1}, {-1}, 32)},
         {T({1}, {-3}, 3)}),
  };
  append_errors(div);

  OpInfo max = broadcast_op("broadcast_max");
  max.examples = {
      ok("lower_rank_second", "{}", {T({2, 2}, {1, -5, 3, -7}, 4), T({2}, {0, -6}, 4)},
         {T({2, 2}, {1, -5, 3, -6}, 4)}),
      ok("precision_is_larger_one", "{}", {T({1}, {1}, 2), T({2}, {-200, 0}, 9)},
         {T({2}, {1, 1}, 9)}),
      ok("both_operands_broadcast", "{}", {T({2, 1}, {-3, -10}, 5), T({1, 2}, {-4, -12}, 5)},
         {T({2, 2}, {-3, -3, -4, -10}, 5)}),
      ok("int8_and_int32", "{}", {T8({2}, {-127, 127}, 8), T({1}, {100000}, 18)},
         {T({2}, {100000, 100000}, 18)}),
      ok("precision_32_extremes", "{}", {T({2}, {-2147483647, 2147483647}, 32), T({1}, {0}, 1)},
         {T({2}, {0, 2147483647}, 32)}),
  };
  append_errors(max);

  OpInfo greater = broadcast_op("broadcast_greater");
  greater.examples = {
      ok("elementwise_comparison", "{}", {T({4}, {1, 2, 3, -4}, 4), T({4}, {0, 2, 4, -5}, 4)},
         {T({4}, {1, 0, 0, 1}, 4)}),
      // max(p0, 2): the result needs 2 bits even when p0 is 1.
      ok("precision_1_gives_2", "{}", {T({2}, {0, 0}, 1), T({2}, {-1, 1}, 3)},
         {T({2}, {1, 0}, 2)}),
      // The second input's precision plays no part.
      ok("precision_ignores_second_input", "{}", {T({1}, {1}, 2), T({3}, {0, 1, -100000}, 20)},
         {T({3}, {1, 0, 1}, 2)}),
      ok("both_operands_broadcast", "{}", {T({2, 1}, {5, -5}, 5), T({1, 3}, {-5, 0, 5}, 5)},
         {T({2, 3}, {1, 1, 0, 0, 0, 0}, 5)}),
      ok("int8_inputs", "{}", {T8({2, 2}, {-127, 127, 0, 1}, 8), T8({2}, {-127, 0}, 8)},
         {T({2, 2}, {0, 1, 1, 1}, 8)}),
      ok("precision_32_extremes", "{}", {T({2}, {2147483647, -2147483647}, 32),
                                         T({2}, {-2147483647, 2147483647}, 32)},
         {T({2}, {1, 0}, 32)}),
  };
  append_errors(greater);

  return {add, sub, mul, div, max, greater};
}

}  // namespace cvm::ops
