#!/usr/bin/env python3
"""Unit tests of the mutant rules (python3 tools/mutate/test_catalogue.py): the rules are
regular expressions, so each kind gets a line it must mutate and a line it must leave alone."""

import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402
import operators  # noqa: E402


def edits(rule, line):
    code = catalogue.code_part(line)
    return [line[:s] + r + line[e:] for s, e, r in rule(code)]


class Rules(unittest.TestCase):
    def test_relop_flips_comparisons_but_not_templates_or_loop_conditions(self):
        self.assertEqual(edits(catalogue.rule_relop, "  if (a < b) x = 1;"), ["  if (a <= b) x = 1;"])
        self.assertEqual(edits(catalogue.rule_relop, "  std::vector<int64_t> v;"), [])
        self.assertEqual(edits(catalogue.rule_relop, "  for (int i = 0; i < n; ++i) {"), [])
        self.assertEqual(edits(catalogue.rule_relop, '  f("a < b");  // x < y'), [])

    def test_off_by_one_moves_loop_bounds_and_clamp_limits(self):
        got = edits(catalogue.rule_off_by_one, "  for (int64_t i = 0; i < n; ++i) y[i] = 0;")
        self.assertIn("  for (int64_t i = 0; i < n - 1; ++i) y[i] = 0;", got)
        self.assertIn("  for (int64_t i = (0) + 1; i < n; ++i) y[i] = 0;", got)
        self.assertEqual(edits(catalogue.rule_off_by_one, "  v = std::min(a, b);"),
                         ["  v = std::min(a, (b) - 1);"])

    def test_swap_index_needs_the_sibling_in_the_file(self):
        rule = catalogue.make_rule_swap_index({"stride_h", "stride_w"})
        self.assertEqual(edits(rule, "  x = p * stride_h;"), ["  x = p * stride_w;"])
        self.assertEqual(edits(catalogue.make_rule_swap_index({"pad_h"}), "  x = pad_h;"), [])

    def test_drop_clamp_keeps_the_value(self):
        self.assertEqual(edits(catalogue.rule_drop_clamp, "  return std::clamp(v, lo, hi);"),
                         ["  return (v);"])

    def test_narrowing_skips_loop_counters(self):
        self.assertEqual(edits(catalogue.rule_narrow_int32, "  const int64_t n = a * b;"),
                         ["  const int32_t n = a * b;"])
        self.assertEqual(edits(catalogue.rule_narrow_int32, "  for (int64_t i = 0; i < n; ++i) {"), [])

    def test_rounding_changes_arithmetic_literals_on_shift_lines(self):
        self.assertEqual(edits(catalogue.rule_rounding, "  y = (v + 1) >> 1;"),
                         ["  y = (v + 0) >> 1;", "  y = (v + 1) >> 0;"])
        self.assertEqual(edits(catalogue.rule_rounding, "  y = v == 0 ? 0 : a / b;"), [])

    def test_drop_bias(self):
        self.assertEqual(edits(catalogue.rule_drop_bias, "  b = bias != nullptr ? bias[i] : 0;"),
                         ["  b = false ? bias[i] : 0;"])
        self.assertEqual(edits(catalogue.rule_drop_bias, "  y = acc + bias[oc];"), ["  y = acc;"])

    def test_error_class_swaps_both_ways(self):
        self.assertEqual(edits(catalogue.rule_error_class, '  fail_logic("bad");'), ['  fail_runtime("bad");'])
        self.assertEqual(edits(catalogue.rule_error_class, "  throw RuntimeError(m);"), ["  throw LogicError(m);"])

    def test_wrong_rule_swaps_a_rule_id_for_another_of_the_file(self):
        rule = catalogue.make_rule_wrong_rule({"axis_duplicate", "axis_out_of_range"},
                                              {"rules::kValueRange", "rules::kInputCount"})
        line = '  if (seen) fail_rule("axis_duplicate", "axis_duplicate ", a, " twice");'
        code = catalogue.code_part(line)
        got = [line[:s] + r + line[e:] for s, e, r in rule(code, line)]
        self.assertEqual(got, ['  if (seen) fail_rule("axis_out_of_range", "axis_duplicate ", a, '
                               '" twice");'])
        line = "  fail_rule(rules::kValueRange, m);  // \"axis_duplicate\""
        code = catalogue.code_part(line)
        self.assertEqual([line[:s] + r + line[e:] for s, e, r in rule(code, line)],
                         ["  fail_rule(rules::kInputCount, m);  // \"axis_duplicate\""])

    def test_wrong_rule_is_the_only_kind_of_infer(self):
        with tempfile.TemporaryDirectory() as repo:
            os.makedirs(os.path.join(repo, "infer"))
            with open(os.path.join(repo, "infer", "reduce.cc"), "w") as f:
                f.write('void f(int a) {\n  if (a < 0) fail_rule("axis_duplicate", "x");\n'
                        '  if (a > 9) fail_rule("axis_out_of_range", "y");\n}\n')
            found = catalogue.catalogue(repo, operators.attribute,
                                        rule_names=["axis_duplicate", "axis_out_of_range"])
            self.assertEqual([m.id for m in found], ["infer/reduce.cc:2:wrong_rule:0",
                                                     "infer/reduce.cc:3:wrong_rule:0"])


class Catalogue(unittest.TestCase):
    def test_ids_are_stable_and_apply_restores_the_bytes(self):
        with tempfile.TemporaryDirectory() as repo:
            os.makedirs(os.path.join(repo, "cuda"))
            path = os.path.join(repo, "cuda", "relu.cu")
            text = "void relu_kernel(int n) {\n  if (n < 0) fail_logic(\"n\");\n}\n"
            with open(path, "w") as f:
                f.write(text)
            first = catalogue.catalogue(repo, operators.attribute)
            second = catalogue.catalogue(repo, operators.attribute)
            self.assertEqual([m.id for m in first], [m.id for m in second])
            self.assertIn("cuda/relu.cu:2:relop:0", [m.id for m in first])
            self.assertIn("cuda/relu.cu:2:error_class:0", [m.id for m in first])
            self.assertEqual(first[0].ops, ("relu",))
            original = catalogue.apply(repo, first[0])
            with open(path) as f:
                self.assertNotEqual(f.read(), text)
            catalogue.restore(repo, first[0], original)
            with open(path) as f:
                self.assertEqual(f.read(), text)

    def test_attribution_by_function_and_registration(self):
        lines = ["int64_t divide(int64_t a, int64_t b) { return a / b; }",
                 '  backend.add("broadcast_add", [](const OpContext& c) {',
                 "    return 0;"]
        self.assertEqual(operators.attribute("optimized/broadcast.cc", lines, 0)[1], ["broadcast_div"])
        self.assertEqual(operators.attribute("optimized/broadcast.cc", lines, 2)[1], ["broadcast_add"])


if __name__ == "__main__":
    unittest.main()
