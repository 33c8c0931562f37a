#!/usr/bin/env python3
"""cvmcheck bisect on a synthetic history (synthetic_repo.py): commit K plants a bug in the
optimized max kernel, commit J does not build, commit DIFFERENT fails another way, commit FIX
fixes it. The bisect must name K and FIX, skip J and DIFFERENT and say why, never build a
revision twice (also across a killed and resumed bisect), attribute a flaky repro to K with
--repeat 5 and report the flake, and say plainly when a bug is as old as its operator.
Seconds; no real build."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bisect_finding  # noqa: E402
import synthetic_repo as syn  # noqa: E402

TOOL = os.path.join(HERE, "cvm_bisect.py")


class Bisect(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="bisect-test-")
        cls.repo = os.path.join(cls.root, "repo")
        cls.commits = syn.make(cls.repo)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=self.root)
        self.log = os.path.join(self.dir, "builds.log")

    def bisect(self, *extra, env=None, repo=None, finding=syn.DESCRIPTOR):
        command = [sys.executable, TOOL, finding, "--repo", repo or self.repo,
                   "--build-cmd", syn.BUILD_CMD, "--json",
                   "--workdir", os.path.join(self.dir, "work"),
                   "--cache", os.path.join(self.dir, "cache"),
                   "--promote-into", os.path.join(self.dir, "corpus"), *extra]
        environment = dict(os.environ, FAKE_BUILD_LOG=self.log, **(env or {}))
        done = subprocess.run(command, capture_output=True, text=True, env=environment)
        result = json.loads(done.stdout) if done.returncode == 0 else None
        return done, result

    def built(self):
        with open(self.log) as f:
            return f.read().split()

    def verdicts(self, result):
        return {r["commit"]: r for r in result["revisions"]}

    def test_names_k_and_the_fix_skips_j_and_never_builds_twice(self):
        c = self.commits
        done, result = self.bisect("--bad", c[21])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        self.assertEqual(result["introduced"]["subject"], "optimized max: a faster clamp")
        self.assertEqual(result["introduced"]["files"], [{"path": "impl.sh", "status": "M"}])
        self.assertEqual(result["fixed"]["commit"], c[syn.FIX])
        self.assertEqual(result["osv"]["affected"][0]["ranges"][0]["events"],
                         [{"introduced": c[syn.K]}, {"fixed": c[syn.FIX]}])
        rows = self.verdicts(result)
        self.assertIn("does not build", rows[c[syn.J]]["why"])
        self.assertEqual(rows[c[syn.J]]["verdict"], "skip")
        self.assertEqual([r["commit"] for r in result["different_failures"]], [c[syn.DIFFERENT]])
        self.assertIn("max|optimized|shape|output 0", rows[c[syn.DIFFERENT]]["why"])
        self.assertIn("git bisect start", result["bisect_log"]["introduced"])
        self.assertIn(f"first fixed commit: [{c[syn.FIX]}]", result["bisect_log"]["fixed"])
        self.assertTrue(os.path.exists(result["regression_input"]))
        builds = self.built()
        self.assertEqual(len(builds), len(set(builds)), "a revision was built twice")
        self.assertEqual(result["stats"]["builds"], len(builds))
        # Run again: every verdict and binary comes from the state and the cache.
        done, again = self.bisect("--bad", c[21])
        self.assertEqual(again["introduced"]["commit"], c[syn.K])
        self.assertEqual(again["stats"]["builds"], 0)
        self.assertEqual(len(self.built()), len(builds))

    def test_good_and_bad_given(self):
        c = self.commits
        done, result = self.bisect("--good", c[5], "--bad", c[21], "--no-fixed")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        self.assertIsNone(result["fixed"])
        self.assertLessEqual(result["stats"]["builds"], 8)

    def test_flaky_repro_is_attributed_to_k_with_repeat_5(self):
        c = self.commits
        flake = {"FAKE_FLAKE": os.path.join(self.dir, "flake-counter")}
        done, result = self.bisect("--bad", c[21], "--repeat", "5", env=flake)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        self.assertEqual(result["fixed"]["commit"], c[syn.FIX])
        self.assertTrue(result["flaky"], "the flake is not reported")
        for row in result["flaky"]:
            self.assertEqual(row["replays"], 5)
            self.assertTrue(0 < row["failed"] < 5, row)
        self.assertIn(c[syn.K], [r["commit"] for r in result["flaky"]])

    def test_present_since_the_operator_was_added(self):
        repo = os.path.join(self.dir, "since-added")
        commits = syn.make(repo, syn.SINCE_ADDED)
        done, result = self.bisect(repo=repo)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], commits[3])
        self.assertIn("operator max does not exist", result["present_since_operator_added"])
        self.assertIn("present since the operator was added", result["introduced_note"])
        text = subprocess.run([sys.executable, TOOL, syn.DESCRIPTOR, "--repo", repo,
                               "--workdir", os.path.join(self.dir, "work"),
                               "--cache", os.path.join(self.dir, "cache")],
                              capture_output=True, text=True).stdout
        self.assertIn("present since the operator was added", text)

    def test_a_killed_bisect_continues_without_rebuilding(self):
        c = self.commits
        command = [sys.executable, TOOL, syn.DESCRIPTOR, "--repo", self.repo, "--bad", c[21],
                   "--build-cmd", syn.BUILD_CMD, "--workdir", os.path.join(self.dir, "work"),
                   "--cache", os.path.join(self.dir, "cache"), "--no-promote"]
        env = dict(os.environ, FAKE_BUILD_LOG=self.log, FAKE_BUILD_DELAY="0.2")
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not os.path.exists(self.log)
                                               or len(self.built()) < 4):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with open(os.path.join(self.dir, "cache", "builds.json")) as f:
            finished = set(json.load(f))
        self.assertGreaterEqual(len(finished), 2)
        before = len(self.built())
        done, result = self.bisect("--bad", c[21], "--no-promote")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        rebuilt = set(self.built()[before:]) & finished
        self.assertFalse(rebuilt, "a revision built before the kill was built again")

    def test_prebuilt_binaries(self):
        c = self.commits
        binaries = os.path.join(self.dir, "binaries")
        for i, commit in enumerate(c):
            if i == syn.J:
                continue  # no binary: skipped like a revision that does not build
            os.makedirs(os.path.join(binaries, commit[:12]))
            path = os.path.join(binaries, commit[:12], "cvmcheck")
            with open(path, "w") as f:
                f.write(subprocess.run(["git", "-C", self.repo, "show", f"{commit}:impl.sh"],
                                       capture_output=True, text=True, check=True).stdout)
            os.chmod(path, 0o755)
        done, result = self.bisect("--bad", c[21], "--binaries", binaries)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        self.assertEqual(result["stats"]["builds"], 0)
        self.assertIn("no prebuilt binary", self.verdicts(result)[c[syn.J]]["why"])

    def test_a_store_finding_starts_from_its_last_sighting(self):
        c = self.commits
        fake = os.path.join(self.dir, "store-cvmcheck")
        record = {"signature": syn.SIGNATURE, "op": "max", "backend": "optimized",
                  "descriptor": syn.DESCRIPTOR, "repro_dir": "", "first_commit": c[20][:7],
                  "last_commit": c[21][:7]}
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(record)}\nEOF\n")
        os.chmod(fake, 0o755)
        done, result = self.bisect("--cvmcheck", fake, finding="max|optimized")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(result["bad"], c[21])
        self.assertEqual(result["signature"], syn.SIGNATURE)
        self.assertEqual(result["introduced"]["commit"], c[syn.K])
        self.assertEqual(result["fixed"]["commit"], c[syn.FIX])

    def test_nightly_bisects_new_findings_and_records_the_culprit(self):
        c = self.commits
        record = {"signature": syn.SIGNATURE, "op": "max", "backend": "optimized",
                  "status": "new", "culprit": None, "descriptor": syn.DESCRIPTOR,
                  "repro_dir": "", "first_commit": c[21][:7], "last_commit": c[21][:7]}
        old = dict(record, signature="sum|optimized|value|output 0", culprit={"introduced": "x"})
        gone = dict(record, signature="max|optimized|precision|output 0", last_commit=c[5][:7])
        recorded = os.path.join(self.dir, "recorded")
        store = os.path.join(self.dir, "store-cvmcheck")
        with open(store, "w") as f:
            f.write("#!/bin/sh\ncase $2 in\n"
                    f"list) echo '{json.dumps([record, old, gone])}' ;;\n"
                    f"show) case $3 in *precision*) echo '{json.dumps(gone)}' ;;\n"
                    f"      *) echo '{json.dumps(record)}' ;; esac ;;\n"
                    f"culprit) echo \"$@\" >> {recorded} ;;\nesac\n")
        os.chmod(store, 0o755)
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "nightly.py"), "--store", "s.sqlite",
             "--cvmcheck", store, "--repo", self.repo, "--budget", "120", "--",
             "--build-cmd", syn.BUILD_CMD, "--cache", os.path.join(self.dir, "cache"),
             "--no-promote"],
            capture_output=True, text=True, env=dict(os.environ, FAKE_BUILD_LOG=self.log))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("2 of 2 findings bisected", done.stdout)
        with open(recorded) as f:
            lines = f.read()
        self.assertIn(f"culprit {syn.SIGNATURE} --introduced {c[syn.K]} --fixed {c[syn.FIX]}",
                      lines)
        # One that does not reproduce at its last commit is noted, not tried every night.
        self.assertIn("culprit max|optimized|precision|output 0 --note the finding does not "
                      "reproduce", lines)

    def test_a_finding_that_does_not_reproduce_at_bad(self):
        done, _ = self.bisect("--bad", self.commits[5])
        self.assertEqual(done.returncode, 1)
        self.assertIn("does not reproduce", done.stderr)


class Replays(unittest.TestCase):
    finding = bisect_finding.Finding(op="max", backend="optimized")

    def judge(self, status, report):
        return bisect_finding.judge_replay(self.finding, status, json.dumps(report), "", False)

    def test_signatures_from_binaries_without_the_field(self):
        derive = lambda text: bisect_finding.derive_signature(  # noqa: E731
            "max", "optimized", {"difference": text})
        self.assertEqual(derive("output 1 precision: optimized 8 vs reference 9"),
                         "max|optimized|precision|output 1")
        self.assertEqual(derive("outcome: optimized runtime_error vs reference ok"),
                         "max|optimized|class|ok->runtime_error")
        self.assertEqual(derive("rule: optimized max.a vs reference max.b"),
                         "max|optimized|rule|max.b->max.a")
        self.assertEqual(derive("output count: optimized 2 vs reference 1"),
                         "max|optimized|output_count")

    def test_the_printed_signature_wins(self):
        run = self.judge(1, {"matches": False, "signature": "max|optimized|dtype|output 0",
                             "difference": "output 0 value at index 0"})
        self.assertEqual(run["signature"], "max|optimized|dtype|output 0")

    def test_what_cannot_run(self):
        self.assertEqual(self.judge(1, {"skipped": "not implemented"})["outcome"], "cannot")
        self.assertEqual(bisect_finding.judge_replay(self.finding, 2, "", "usage", False)
                         ["outcome"], "cannot")
        self.assertEqual(self.judge(0, {"matches": True})["outcome"], "pass")
        crashed = bisect_finding.judge_replay(self.finding, -11, "", "", False)
        self.assertEqual((crashed["outcome"], crashed["signature"]),
                         ("fail", "max|optimized|signal 11"))

    def test_ops_listing(self):
        text = ("max                    1    reference,optimized,cuda(unavailable: no CUDA "
                "device (x)),optimized@3\n"
                "strided_slice          1    reference,optimized alias:slice\n")
        ops = bisect_finding.parse_ops_listing(text)
        self.assertEqual(ops["max"], ["reference", "optimized", "cuda", "optimized@3"])
        self.assertEqual(ops["slice"], ["reference", "optimized"])
        self.assertIn("does not exist", bisect_finding.absence(
            ops, bisect_finding.Finding(op="sum", backend="optimized")))
        self.assertIn("does not implement", bisect_finding.absence(
            {"max": ["reference"], "sum": ["reference", "optimized"]}, self.finding))
        self.assertEqual(bisect_finding.absence(
            ops, bisect_finding.Finding(op="max", backend="exec:x")), "")


if __name__ == "__main__":
    unittest.main()
