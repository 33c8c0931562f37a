// Records of the reduce family: sum, max (contract: docs/contract.md, "Reduce").
#include "schema.h"

namespace cvm::ops {

namespace {

std::vector<AttrSpec> reduce_attrs() {
  return {optional("axis", AttrKind::kTuple, "()"), optional("keepdims", AttrKind::kBool, "false"),
          optional("exclude", AttrKind::kBool, "false"),
          // Accepted and ignored, as in CVM graph files; any string.
          optional("dtype", AttrKind::kString, "int32")};
}

// Shared invalid inputs: each breaks one rule of the reduce family.
std::vector<Example> reduce_errors() {
  const ExampleTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6}, 8);
  return {
      bad("axis_too_large", R"J({"axis": "(2,)"})J", {x}),
      bad("axis_too_small", R"J({"axis": "(-3,)"})J", {x}),
      bad("axis_duplicate_after_normalisation", R"J({"axis": "(1, -1)"})J", {x}),
      bad("axis_malformed", R"J({"axis": "(1,,)"})J", {x}),
      bad("unknown_attribute", R"J({"axes": "(1,)"})J", {x}),
      bad("keepdims_malformed", R"J({"keepdims": "yes"})J", {x}),
      bad("two_inputs", "{}", {x, x}),
      bad("value_outside_precision", "{}", {T({2}, {1, 128}, 8)}),
      bad("int32_min_value", "{}", {T({1}, {INT32_MIN}, 32)}),
      bad("precision_zero", "{}", {T({1}, {0}, 0)}),
      bad("precision_33", "{}", {T({1}, {0}, 33)}),
      bad("int8_precision_above_8", "{}", {T8({1}, {1}, 9)}),
  };
}

}  // namespace

std::vector<OpInfo> reduce_ops() {
  OpInfo sum{"sum", "reduce", {}, 1, 1, reduce_attrs(), {}};
  // Formalization v1's worked example (docs/glossary.md): X = [[1,2,3],[4,5,6]] (p 8), axis 1 -> [6, 15], p 8 + bitlen(3).
  sum.examples = {
      ok("seed_example_axis_1", R"J({"axis": "(1,)"})J", {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)},
         {T({2}, {6, 15}, 10)}),
      ok("all_axes", "{}", {T({2, 3}, {1, 2, 3, 4, 5, -6}, 8)}, {T({1}, {9}, 11)}),
      ok("all_axes_keepdims", R"J({"keepdims": "True"})J", {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)},
         {T({1, 1}, {21}, 11)}),
      ok("axis_0_keepdims", R"J({"axis": "0", "keepdims": "1"})J",
         {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}, {T({1, 3}, {5, 7, 9}, 10)}),
      ok("exclude_axis_0", R"J({"axis": "(0,)", "exclude": "true"})J",
         {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}, {T({2}, {6, 15}, 10)}),
      ok("exclude_every_axis_is_identity", R"J({"axis": "(0, 1)", "exclude": "true"})J",
         {T({2, 3}, {1, 2, 3, 4, 5, 6}, 8)}, {T({2, 3}, {1, 2, 3, 4, 5, 6}, 9)}),
      ok("empty_axis_with_exclude_reduces_all", R"J({"axis": "()", "exclude": "true"})J",
         {T({2, 2}, {1, 2, 3, 4}, 8)}, {T({1}, {10}, 11)}),
      ok("int8_input", R"J({"axis": "(-1,)"})J", {T8({2, 2}, {-127, -127, 127, 1}, 8)},
         {T({2}, {-254, 128}, 10)}),
      ok("dtype_accepted_and_ignored", R"J({"axis": "(0,)", "dtype": "int64"})J",
         {T({3}, {1, 2, 3}, 4)}, {T({1}, {6}, 6)}),
  };
  for (Example& e : reduce_errors()) sum.examples.push_back(e);
  sum.examples.push_back(bad("sum_precision_above_32", R"J({"axis": "(0,)"})J",
                             {T({2}, {1, 1}, 32)}));

  OpInfo max{"max", "reduce", {}, 1, 1, reduce_attrs(), {}};
  max.examples = {
      ok("axis_1", R"J({"axis": "(1,)"})J", {T({2, 3}, {1, 7, 3, -4, -5, -6}, 8)},
         {T({2}, {7, -4}, 8)}),
      // The true maximum, also for axis=() (the original runtime returned max(0, max X)).
      ok("all_axes_negative_values", "{}", {T({2, 2}, {-5, -3, -9, -4}, 8)}, {T({1}, {-3}, 8)}),
      ok("all_axes_keepdims", R"J({"keepdims": "true"})J", {T({1, 2, 2}, {-5, -3, -9, -4}, 8)},
         {T({1, 1, 1}, {-3}, 8)}),
      ok("exclude_axis_1", R"J({"axis": "1", "exclude": "true", "keepdims": "true"})J",
         {T({2, 2}, {1, 9, 8, 2}, 5)}, {T({1, 2}, {8, 9}, 5)}),
      // Values whose sum would overflow int32: a kernel that also accumulates a sum (as the
      // CUDA element function shares its loop with sum) must do it in int64 (UBSan sees it).
      ok("precision_32_extremes", R"J({"axis": "(1,)"})J",
         {T({2, 2}, {2147483647, 2147483647, -2147483647, -2147483647}, 32)},
         {T({2}, {2147483647, -2147483647}, 32)}),
  };
  for (Example& e : reduce_errors()) max.examples.push_back(e);

  return {with_work(sum, reduce_work), with_work(max, reduce_work)};
}

}  // namespace cvm::ops
