#!/usr/bin/env python3
"""Unit tests of the mutant rules (python3 tools/mutate/test_catalogue.py): the rules are
regular expressions, so each kind gets a line it must mutate and a line it must leave alone."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402
import modes  # noqa: E402
import more_rules  # noqa: E402
import operators  # noqa: E402
import random_mutants  # noqa: E402
import random_report  # noqa: E402
import scratch  # noqa: E402
import sets  # noqa: E402
import variants_gain  # noqa: E402


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


def line_edits(rule, line):
    """The random draw's rules take the line too (they copy text from it)."""
    code = catalogue.code_part(line)
    return [line[:s] + r + line[e:] for s, e, r in rule(code, line)]


class MoreRules(unittest.TestCase):
    def test_delete_stmt_removes_assignments_calls_and_increments_only(self):
        rule = more_rules.rule_delete_stmt
        self.assertEqual(line_edits(rule, "  acc += a[i] * b[i];"), ["  {}"])
        self.assertEqual(line_edits(rule, "  out[i * 2] = v;  // why"), ["  {}  // why"])
        self.assertEqual(line_edits(rule, "  std::fill(y, y + n, 0);"), ["  {}"])
        self.assertEqual(line_edits(rule, "  ++i;"), ["  {}"])
        for kept in ("  int64_t x = 1;", "  return f(x);", "  a = 1; b = 2;", "  x = f(a,",
                     "  if (a) b = 1;", "  const auto& t = ctx.inputs[0];", "  y == 1;"):
            self.assertEqual(line_edits(rule, kept), [], kept)

    def test_const_pm1_moves_decimal_literals_both_ways(self):
        self.assertEqual(line_edits(more_rules.rule_const_pm1, "  y = x + 0x10 + 3 * 1.5 + 7u;"),
                         ["  y = x + 0x10 + 4 * 1.5 + 7u;", "  y = x + 0x10 + 2 * 1.5 + 7u;",
                          "  y = x + 0x10 + 3 * 1.5 + 8u;", "  y = x + 0x10 + 3 * 1.5 + 6u;"])
        self.assertEqual(line_edits(more_rules.rule_const_pm1, "  v = 0;"), ["  v = 1;"])
        self.assertEqual(line_edits(more_rules.rule_const_pm1, '  f("a1", x2);  // 3'), [])

    def test_swap_branch_swaps_arms_and_negates_one_line_ifs(self):
        rule = more_rules.rule_swap_branch
        self.assertEqual(line_edits(rule, "  return a < b ? a : b;"), ["  return a < b ? b : a;"])
        self.assertEqual(line_edits(rule, "  f(c ? x : y, z);"), ["  f(c ? y : x, z);"])
        self.assertEqual(line_edits(rule, '  f(c ? "yes" : "no");'), ['  f(c ? "no" : "yes");'])
        self.assertEqual(line_edits(rule, '  } else if (op == "sum") {'),
                         ['  } else if (!(op == "sum")) {'])
        self.assertEqual(line_edits(rule, "  v = a ? b ? 1 : 2 : 3;"), [])
        self.assertEqual(line_edits(rule, "  v = a ? std::min(x, y) :"), [])

    def test_lane_stride_moves_lane_counts_strides_and_loop_steps(self):
        rule = more_rules.rule_lane_stride
        self.assertEqual(line_edits(rule, "constexpr int kLanes = 8;"),
                         ["constexpr int kLanes = (8) + 1;", "constexpr int kLanes = (8) - 1;"])
        self.assertEqual(line_edits(rule, "  for (int64_t i = 0; i < n; i += kLanes) {"),
                         ["  for (int64_t i = 0; i < n; i += (kLanes) + 1) {",
                          "  for (int64_t i = 0; i < n; i += (kLanes) - 1) {"])
        self.assertEqual(line_edits(rule, "  for (int i = 0; i < n; ++i) {"),
                         ["  for (int i = 0; i < n; i += 2) {"])
        self.assertEqual(line_edits(rule, "  for (; u < n; u += 1) {"), ["  for (; u < n; u += (1) + 1) {"])
        for kept in ("  int64_t planes_per_group = 0;", "  if (step == 0) x;",
                     "  const std::vector<int64_t> strides = strides_of(s);"):
            self.assertEqual(line_edits(rule, kept), [], kept)

    def test_minmax_swap_swaps_calls_and_simd_intrinsics(self):
        rule = more_rules.rule_minmax_swap
        self.assertEqual(line_edits(rule, "  v = std::min<int64_t>(a, hi);"),
                         ["  v = std::max<int64_t>(a, hi);"])
        self.assertEqual(line_edits(rule, "  v = _mm256_max_epi32(a, b);"), ["  v = _mm256_min_epi32(a, b);"])
        self.assertEqual(line_edits(rule, "  v = std::numeric_limits<int>::max();"), [])
        self.assertEqual(line_edits(rule, "int64_t min(int64_t a, int64_t b) {"), [])

    def test_logic_swap_swaps_binary_logical_operators_only(self):
        self.assertEqual(line_edits(more_rules.rule_logic_swap, "  if (a && (b || !c)) x;"),
                         ["  if (a || (b || !c)) x;", "  if (a && (b && !c)) x;"])
        self.assertEqual(line_edits(more_rules.rule_logic_swap, "  void f(T&& x, U &&y);"), [])

    def test_extra_kinds_stay_out_of_the_default_catalogue(self):
        with tempfile.TemporaryDirectory() as repo:
            os.makedirs(os.path.join(repo, "infer"))
            with open(os.path.join(repo, "infer", "reduce.cc"), "w") as f:
                f.write('void f(int a) {\n  if (a < 0 && a > 9) fail_rule("axis_duplicate", "x");\n}\n')
            default = catalogue.catalogue(repo, operators.attribute, rule_names=["axis_duplicate"])
            self.assertEqual({m.kind for m in default}, set())
            every = catalogue.catalogue(repo, operators.attribute, rule_names=["axis_duplicate"],
                                        kinds=catalogue.ALL_KINDS, anywhere=True)
            self.assertTrue({"relop", "logic_swap", "swap_branch", "const_pm1"}
                            <= {m.kind for m in every})


class RandomDraw(unittest.TestCase):
    @staticmethod
    def mutants(counts):
        return [catalogue.Mutant("optimized/x.cc", i + 1, kind, 0, "a", "b")
                for kind, n in counts.items() for i in range(n)]

    def test_rule_first_then_site_deterministic_and_without_repeats(self):
        pool = self.mutants({"const_pm1": 1000, "logic_swap": 2, "relop": 50})
        first = random_mutants.draw(list(pool), 40, seed=7)
        self.assertEqual([m.id for m in first], [m.id for m in random_mutants.draw(list(pool), 40, 7)])
        self.assertNotEqual([m.id for m in first], [m.id for m in random_mutants.draw(list(pool), 40, 8)])
        self.assertEqual(len({m.id for m in first}), 40)
        kinds = [m.kind for m in first]
        self.assertEqual(kinds.count("logic_swap"), 2)  # drawn out, then no longer a choice
        self.assertGreater(kinds.count("relop"), 10)  # a rare rule is not drowned

    def test_the_pool_leaves_the_device_runner_out(self):
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        files = random_mutants.pool_files(repo)
        self.assertNotIn("cuda/device_runner.cu", files)
        self.assertIn("cuda/host_runner.cc", files)
        self.assertTrue(any(f.startswith("infer/") for f in files))

    def test_scores_leave_out_equivalent_and_unbuilt_mutants(self):
        results = [{"status": s} for s in ("killed-campaign", "killed-campaign", "killed-tests",
                                           "survived", "build-failed", "equivalent")]
        self.assertEqual(random_report.scores(results), (2, 3, 4))


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

    def test_a_restored_file_is_newer_than_the_mutants_object(self):
        # A killed run leaves its mutant in the scratch tree; the next sync restores the
        # checkout's bytes with a time newer than anything built from the mutant.
        with tempfile.TemporaryDirectory() as repo, tempfile.TemporaryDirectory() as tree:
            subprocess.run(["git", "init", "-q", repo], check=True)
            os.makedirs(os.path.join(repo, "optimized"))
            src = os.path.join(repo, "optimized", "relu.cc")
            with open(src, "w") as f:
                f.write("int relu(int x) { return x < 0 ? 0 : x; }\n")
            os.utime(src, (1000, 1000))
            self.assertEqual(scratch.sync_tree(repo, tree), 1)
            dst = os.path.join(tree, "optimized", "relu.cc")
            with open(dst, "w") as f:
                f.write("int relu(int x) { return x <= 0 ? 0 : x; }\n")
            built = os.path.getmtime(dst) + 1  # an object file built from the mutant
            os.utime(dst, (built - 1, built - 1))
            self.assertEqual(scratch.sync_tree(repo, tree), 1)
            with open(dst) as f:
                self.assertIn("x < 0", f.read())
            self.assertGreaterEqual(os.path.getmtime(dst), built - 1)
            self.assertGreater(os.path.getmtime(dst), os.path.getmtime(src))

    def test_attribution_by_function_and_registration(self):
        lines = ["int64_t divide(int64_t a, int64_t b) { return a / b; }",
                 '  backend.add("broadcast_add", [](const OpContext& c) {',
                 "    return 0;"]
        self.assertEqual(operators.attribute("optimized/broadcast.cc", lines, 0)[1], ["broadcast_div"])
        self.assertEqual(operators.attribute("optimized/broadcast.cc", lines, 2)[1], ["broadcast_add"])


class Sets(unittest.TestCase):
    SOURCE = ("void avx2_pass(int n) {\n  if (n < 0) fail_logic(\"n\");\n}\n"
              "void base_pass(int n) {\n  if (n > 9) fail_logic(\"m\");\n"
              "  if (n == 3) fail_logic(\"k\");\n}\n")

    def catalogue_of(self, repo):
        os.makedirs(os.path.join(repo, "optimized"))
        with open(os.path.join(repo, "optimized", "passes.cc"), "w") as f:
            f.write(self.SOURCE)
        return catalogue.catalogue(repo, operators.attribute)

    def test_entries_cover_a_file_a_function_or_lines(self):
        with tempfile.TemporaryDirectory() as repo:
            found = self.catalogue_of(repo)
            ids = lambda text: {m.id for m in sets.select(found, sets.parse(text))}
            self.assertEqual(ids("optimized/passes.cc"), {m.id for m in found})
            self.assertEqual(ids("optimized/passes.cc@avx2_pass  # the AVX2 one"),
                             {"optimized/passes.cc:2:relop:0", "optimized/passes.cc:2:error_class:0"})
            self.assertEqual(ids("# a comment\noptimized/passes.cc:6 | n == 3"),
                             {"optimized/passes.cc:6:relop:0", "optimized/passes.cc:6:error_class:0"})
            self.assertEqual(ids("optimized/passes.cc:5-6"),
                             {m.id for m in found if m.line in (5, 6)})
            self.assertEqual(ids("optimized/other.cc"), set())

    def test_a_stale_anchor_or_a_missing_file_is_an_error(self):
        with tempfile.TemporaryDirectory() as repo:
            self.catalogue_of(repo)
            self.assertEqual(sets.check_anchors(repo, sets.parse("optimized/passes.cc:6 | n == 3")), [])
            self.assertEqual(len(sets.check_anchors(repo, sets.parse("optimized/passes.cc:5 | n == 3"))), 1)
            self.assertEqual(len(sets.check_anchors(repo, sets.parse("optimized/gone.cc"))), 1)
        with self.assertRaises(ValueError):
            sets.parse_entry("optimized/passes.cc:9-3")

    def test_the_isa_paths_set_matches_the_tree(self):
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        entries = sets.load("isa_paths")
        self.assertEqual(sets.check_anchors(repo, entries), [])
        found = sets.select(catalogue.catalogue(repo, operators.attribute, sets.files(entries)),
                            entries)
        self.assertTrue(found)
        self.assertIn("optimized/nn_isa_avx2.cc", {m.path for m in found})


class Modes(unittest.TestCase):
    def test_campaign_modes_with_and_without_the_dispatch_variants(self):
        self.assertIn("campaign-base", modes.MODES)
        self.assertIn("properties-base", modes.MODES)
        for mode in ("campaign", "campaign-base", "properties-base"):
            self.assertTrue(hasattr(modes.Harness, "_" + mode.replace("-", "_")))
        if any(b.get("variant_of") == "optimized" for b in operators.BACKENDS):
            self.assertNotIn("optimized", modes.variants_of("optimized"))
            self.assertTrue(all(v.startswith("optimized") for v in modes.variants_of("optimized")))

    def test_the_unit_mode_runs_the_path_mark_oracle_of_the_mutants_backend(self):
        # A wrong path mark changes no output: only these suites see it (the CUDA GEMM's K-tail
        # and border marks survived a random-mutant run without them).
        cuda = modes.unit_filter(["tile"], "cuda-host").split(":")
        self.assertIn("PathMarksCudaHost.*", cuda)
        self.assertIn("PathMarks.*", cuda)
        self.assertNotIn("PathMarksOptimized.*", cuda)
        self.assertIn("PathMarksOptimized.*", modes.unit_filter(["relu"]).split(":"))
        self.assertNotIn("PathMarks.*", modes.unit_filter(["relu"], "reference").split(":"))

    def test_the_ci_sample_names_mutants_of_the_tree_path_marks_included(self):
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with open(os.path.join(repo, "tools", "mutate", "ci-sample.txt")) as f:
            ids = [l.split()[0] for l in f if l.strip() and not l.startswith("#")]
        files = sorted({i.split(":")[0] for i in ids})
        known = {m.id for m in catalogue.catalogue(repo, operators.attribute, files,
                                                   operators.RULE_NAMES,
                                                   kinds=catalogue.ALL_KINDS, anywhere=True)}
        self.assertEqual([i for i in ids if i not in known], [])
        self.assertIn("cuda/gemm_device.h:236:relop:0", ids)  # the K-tail mark inverted
        self.assertIn("cuda/gemm_device.h:242:swap_branch:0", ids)  # the border mark inverted


class VariantsGain(unittest.TestCase):
    def test_before_counts_only_the_modes_without_the_variants(self):
        results = [
            {"id": "a", "status": "killed", "killed_by": ["unit"]},
            {"id": "b", "status": "killed", "killed_by": ["campaign-base"]},
            {"id": "c", "status": "killed", "killed_by": ["campaign"]},
            {"id": "d", "status": "survived", "killed_by": []},
            {"id": "e", "status": "build-failed", "killed_by": []},
            {"id": "f", "status": "survived", "killed_by": []},
        ]
        rows, counts = variants_gain.verdicts(results, {"f": "why"})
        self.assertEqual([r[1:3] for r in rows],
                         [("killed", "killed"), ("killed", "killed"), ("survived", "killed"),
                          ("survived", "survived"), ("build-failed", "build-failed"),
                          ("equivalent", "equivalent")])
        self.assertEqual(variants_gain.score(counts["before"])[:2], (2, 4))
        self.assertEqual(variants_gain.score(counts["after"])[:2], (3, 4))

    def test_all_modes_runs_read_every_mode(self):
        results = [{"id": "a", "status": "killed", "killed_by": ["properties", "campaign"]},
                   {"id": "b", "status": "killed", "killed_by": ["campaign-base", "campaign"]}]
        rows, _ = variants_gain.verdicts(results, {}, all_modes=True)
        self.assertEqual([r[1:3] for r in rows], [("survived", "killed"), ("killed", "killed")])


if __name__ == "__main__":
    unittest.main()
