#!/usr/bin/env python3
"""Unit tests of the gate's pure logic: diff parsing, revision checks, file -> operators
mapping, changed-line mutant selection and the reports' shapes (the campaign merge is
`cvmcheck merge`, tests/campaign_merge_test.cc). No build needed (the operator list comes from
core/op_list.json); runs in seconds from ci/test.sh."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import changes  # noqa: E402
import gate  # noqa: E402
import oplist  # noqa: E402
import reports  # noqa: E402

mapping = gate.load_mapping()
import mutants  # noqa: E402  (after the mapping: it shares the operator list loaded there)

FAMILIES = {}
for _op in oplist.read()["operators"]:
    FAMILIES.setdefault(_op["family"], []).append(_op["name"])
ALL = {op for ops in FAMILIES.values() for op in ops}

DIFF = """\
diff --git a/optimized/conv2d.cc b/optimized/conv2d.cc
index 1111111..2222222 100644
--- a/optimized/conv2d.cc
+++ b/optimized/conv2d.cc
@@ -10 +10 @@ void f() {
-  int a = 1;
+  int a = 2;
@@ -20,0 +21,2 @@ void g() {
+  x();
+  y();
@@ -30,2 +32,0 @@ void h() {
-  z();
-  w();
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,3 @@
+a
+b
+c
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/ops/a.cc b/ops/b.cc
similarity index 100%
rename from ops/a.cc
rename to ops/b.cc
diff --git a/golden/x.bin b/golden/x.bin
index 5555555..6666666 100644
Binary files a/golden/x.bin and b/golden/x.bin differ
"""


class DiffParsing(unittest.TestCase):
    def test_hunks_give_the_heads_added_lines_and_deletion_points(self):
        files = {f.path: f for f in changes.parse_diff(DIFF)}
        conv = files["optimized/conv2d.cc"]
        self.assertEqual(conv.added, {10, 21, 22})
        self.assertEqual(conv.touched, {10, 21, 22, 32})  # 32: where two lines went
        self.assertEqual(files["docs/new.md"].status, "A")
        self.assertEqual(files["docs/new.md"].added, {1, 2, 3})

    def test_deleted_renamed_and_binary_files(self):
        files = {f.path: f for f in changes.parse_diff(DIFF)}
        self.assertEqual(files["old.txt"].status, "D")
        self.assertEqual(files["old.txt"].added, set())
        self.assertEqual((files["ops/b.cc"].status, files["ops/b.cc"].old_path), ("R", "ops/a.cc"))
        self.assertTrue(files["golden/x.bin"].binary)

    def test_no_diff_no_files(self):
        self.assertEqual(changes.parse_diff(""), [])


def _change(path, lines=(), status="M"):
    return changes.FileChange(path=path, status=status, added=set(lines), touched=set(lines))


def _map(paths, text=None):
    files = [p if isinstance(p, changes.FileChange) else _change(p, [1]) for p in paths]
    return mapping.map_changes(files, lambda path: (text or {}).get(path, [""]))


class Mapping(unittest.TestCase):
    def test_docs_only_is_nothing_to_run(self):
        impact = _map(["docs/architecture.md", "README.md", "LICENSE"])
        self.assertTrue(impact.nothing_to_run())
        self.assertEqual(len(impact.docs), 3)

    def test_a_line_in_a_kernel_function_maps_to_that_function(self):
        text = {"optimized/elementwise.cc": ["void abs(int x) {", "  return;", "}"]}
        impact = _map([_change("optimized/elementwise.cc", [2])], text)
        self.assertEqual(impact.ops, {"abs"})
        self.assertEqual(impact.backends, {"optimized"})
        self.assertEqual(impact.where["abs"], [("optimized/elementwise.cc", 2)])

    def test_a_line_at_file_scope_maps_to_every_operator_of_the_file(self):
        text = {"optimized/elementwise.cc": ["constexpr int kChunk = 64;", "void abs() {"]}
        impact = _map([_change("optimized/elementwise.cc", [1])], text)
        self.assertEqual(impact.ops, set(FAMILIES["elementwise"]))

    def test_conv2d_and_the_shared_fused_pass(self):
        self.assertEqual(_map([_change("optimized/conv2d.cc", [3])],
                              {"optimized/conv2d.cc": ["a", "b", "  c"]}).ops, {"conv2d"})
        fused = _map([_change("optimized/fused_pass.h", [1])]).ops
        self.assertTrue(set(FAMILIES["elementwise"]) | set(FAMILIES["broadcast"]) <= fused)
        self.assertIn("reshape", fused)
        self.assertNotIn("conv2d", fused)

    def test_cuda_files_map_to_the_cuda_backends(self):
        self.assertEqual(_map(["cuda/device_runner.cu"]).backends, {"cuda"})
        self.assertEqual(_map(["cuda/map_device.h"]).backends, {"cuda-host", "cuda"})

    def test_shared_code_and_unknown_paths_map_to_everything(self):
        for path in ("core/include/cvmcheck/tensor.h", "core/npy.cc", "harness/engine/diff.cc",
                     "ops/nn.cc", "CMakeLists.txt", "tests/examples_test.cc", "fuzz/x.cc",
                     "tools/cvmcheck/main.cc", "docs/contract.md", "somewhere/new.txt"):
            impact = _map([path])
            self.assertTrue(impact.ops == ALL, path)
            self.assertEqual(impact.backends, set(mapping.BACKENDS), path)

    def test_family_paths(self):
        self.assertEqual(_map(["reference/nn.cc"]).ops, set(FAMILIES["nn"]))
        self.assertEqual(_map(["infer/reduce.cc"]).backends, {"optimized", "cuda-host", "cuda"})
        self.assertEqual(_map(["docs/ops/vision.md"]).ops, set(FAMILIES["vision"]))
        self.assertEqual(_map(["corpus/ov/abc"]).ops, set(FAMILIES["ov"]))
        self.assertEqual(_map(["golden/take/valid_1/case.json"]).ops, {"take"})
        self.assertEqual(_map(["corpus/all/abc"]).ops, ALL)

    def test_mrt_and_tooling(self):
        impact = _map(["mrt/mrt_quant.cc", "golden-mrt/x/case.json"])
        self.assertTrue(impact.mrt)
        self.assertEqual(impact.ops, set())
        tooling = _map(["ci/test.sh", ".github/workflows/pr.yml", "tools/mutate/catalogue.py",
                        "ci/slurm/night.sh", "tools/cluster/shard_plan.py"])
        self.assertEqual(len(tooling.tooling), 5)
        self.assertFalse(tooling.nothing_to_run())


class ChangedLineMutants(unittest.TestCase):
    def test_only_mutants_on_added_lines(self):
        repo = gate.REPO
        path = "optimized/reduce.cc"
        everything = mutants.catalogue.catalogue(repo, mutants.operators.attribute, [path])
        line = everything[0].line
        live, equivalent = mutants.on_changed_lines(repo, [_change(path, [line])])
        self.assertTrue(live or equivalent)
        self.assertTrue(all(m.line == line for m in live + equivalent))
        quiet = [n for n in range(1, 10) if all(m.line != n for m in everything)][0]
        self.assertEqual(mutants.on_changed_lines(repo, [_change(path, [quiet])]), ([], []))

    def test_the_cap_keeps_a_spread_sample(self):
        everything = mutants.catalogue.catalogue(gate.REPO, mutants.operators.attribute,
                                                 ["optimized/conv2d.cc"])
        self.assertEqual(len(mutants.choose(everything, 5)), 5)
        self.assertEqual(mutants.choose(everything[:3], 5), everything[:3])


class Reports(unittest.TestCase):
    def test_sarif_shape(self):
        results = [reports.Result("gate/surviving-mutant", "m survived", "optimized/a.cc", 7),
                   reports.Result("gate/campaign-finding", "f", "optimized/b.cc", 0)]
        doc = json.loads(json.dumps(reports.sarif(results)))
        self.assertEqual(doc["version"], "2.1.0")
        run = doc["runs"][0]
        rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
        first = run["results"][0]
        self.assertEqual(rules[first["ruleIndex"]], "gate/surviving-mutant")
        self.assertEqual(first["level"], "warning")
        loc = first["locations"][0]["physicalLocation"]
        self.assertEqual(loc["artifactLocation"]["uri"], "optimized/a.cc")
        self.assertEqual(loc["region"]["startLine"], 7)
        self.assertEqual(run["results"][1]["level"], "error")
        self.assertEqual(run["results"][1]["locations"][0]["physicalLocation"]["region"],
                         {"startLine": 1})  # SARIF lines start at 1

    def test_junit_counts(self):
        steps = [reports.Step("examples", "passed", 1.0, "x"),
                 reports.Step("golden", "failed", 2.0, "y", "log <tail>"),
                 reports.Step("mutants", "skipped", 0.0, "none")]
        root = ET.fromstring(reports.junit(steps, 3.0))
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")),
                         ("3", "1", "1"))
        self.assertEqual(root.find("testcase[@name='golden']/failure").text, "log <tail>")


def _git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


class Revisions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, "r")
        os.makedirs(self.repo)
        _git(self.repo, "init", "-q", "-b", "main")
        _git(self.repo, "config", "user.email", "t@example.com")
        _git(self.repo, "config", "user.name", "t")
        for i in range(3):
            with open(os.path.join(self.repo, "f.txt"), "w") as f:
                f.write(f"{i}\n")
            _git(self.repo, "add", "f.txt")
            _git(self.repo, "commit", "-qm", str(i))

    def tearDown(self):
        self.tmp.cleanup()

    def code(self, fn, *args):
        with self.assertRaises(changes.GateError) as e:
            fn(*args)
        return e.exception.code, str(e.exception)

    def test_unknown_revision(self):
        code, text = self.code(changes.check_revisions, self.repo, "nope", "HEAD")
        self.assertEqual(code, changes.EXIT_REVISION)
        self.assertIn("'nope'", text)

    def test_head_must_be_checked_out(self):
        code, _ = self.code(changes.check_revisions, self.repo, "HEAD~2", "HEAD~1")
        self.assertEqual(code, changes.EXIT_REVISION)

    def test_dirty_tree(self):
        changes.check_clean(self.repo)
        with open(os.path.join(self.repo, "new.txt"), "w") as f:
            f.write("x")
        code, text = self.code(changes.check_clean, self.repo)
        self.assertEqual(code, changes.EXIT_DIRTY)
        self.assertIn("new.txt", text)

    def test_changes_and_no_changes(self):
        base, head, _ = changes.check_revisions(self.repo, "HEAD~1", "HEAD")
        files = changes.changed_files(self.repo, base, head)
        self.assertEqual([(f.path, f.added) for f in files], [("f.txt", {1})])
        same, _, _ = changes.check_revisions(self.repo, "HEAD", "HEAD")
        self.assertEqual(changes.changed_files(self.repo, same, same), [])

    def test_shallow_clone_without_the_base(self):
        clone = os.path.join(self.tmp.name, "shallow")
        _git(self.tmp.name, "clone", "-q", "--depth", "1", "file://" + self.repo, clone)
        base = _git(self.repo, "rev-parse", "HEAD~2").stdout.strip()
        code, text = self.code(changes.check_revisions, clone, base, "HEAD")
        self.assertEqual(code, changes.EXIT_REVISION)
        self.assertIn("shallow clone", text)


class GateCommandLine(unittest.TestCase):
    def test_an_unknown_base_is_exit_3_before_anything_runs(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(gate.main(["--base", "no-such-revision-xyz", "--out", out]),
                             changes.EXIT_REVISION)
            self.assertEqual(os.listdir(out), [])


class CampaignStep(unittest.TestCase):
    def _command(self, store):
        """The campaign step's command line (no binary run: steps.run is replaced)."""
        import steps
        seen = []
        saved = steps.run
        steps.run = lambda cmd, ctx, log, timeout, env=None: (seen.append(cmd) or (1, 0.0, ""))
        try:
            with tempfile.TemporaryDirectory() as out:
                ctx = steps.Context(out, out, mapping.map_changes([], lambda p: []), FAMILIES)
                if store:
                    ctx.store = store
                step = steps.campaign(ctx, 1, 7, [])
                default = os.path.join(out, "findings.sqlite")
        finally:
            steps.run = saved
        self.assertEqual(step.status, "error")  # no campaign.json: nothing ran
        return seen[0], default

    def test_the_campaign_records_in_the_findings_store(self):
        cmd, default = self._command(None)
        self.assertEqual(cmd[cmd.index("--store") + 1], default)
        cmd, _ = self._command("/tmp/nightly.sqlite")
        self.assertEqual(cmd[cmd.index("--store") + 1], "/tmp/nightly.sqlite")


if __name__ == "__main__":
    unittest.main(verbosity=1)
