#!/usr/bin/env python3
"""What cvmcheck bisect needs from the real cvmcheck, checked on a planted bug: `run` prints the
finding's signature exactly as the campaign and the findings store name it (for a descriptor and
for a repro directory), `corpus --from-call` writes an input that decodes to the same call, and
`cvmcheck bisect` runs the Python program. Then one bisect end to end over prebuilt "binaries"
that are the real cvmcheck with and without the planted backend.

Usage: test_cli.py [CVMCHECK]  (default $CVMCHECK_BINARY, else build/bin/cvmcheck)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CVMCHECK = os.path.abspath(os.environ.get("CVMCHECK_BINARY")
                           or os.path.join(ROOT, "build", "bin", "cvmcheck"))
PLANTED = "planted-max-clamps-at-zero"
ENV = dict(os.environ, CVMCHECK_PLANTED=PLANTED)


def cvmcheck(*args, env=ENV):
    return subprocess.run([CVMCHECK, *args], capture_output=True, text=True, env=env)


class RealBinary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="bisect-cli-")
        cls.store = os.path.join(cls.dir, "findings.sqlite")
        done = cvmcheck("campaign", "--ops", "max", "--backends", PLANTED, "--max-cases", "300",
                        "--seed", "7", "--shrink-seconds", "0.5", "--quiet", "--jobs", "1",
                        "--report", os.path.join(cls.dir, "report"), "--store", cls.store)
        assert done.returncode == 1, done.stdout + done.stderr  # the planted bug is found
        shown = cvmcheck("findings", "show", "max|" + PLANTED, "--json", "--store", cls.store)
        assert shown.returncode == 0, shown.stderr
        cls.finding = json.loads(shown.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def replay(self, *args):
        done = cvmcheck("run", *args)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        return json.loads(done.stdout.strip().splitlines()[-1])

    def test_run_prints_the_stores_signature(self):
        self.assertEqual(self.finding["signature"], f"max|{PLANTED}|value|output 0")
        by_call = self.replay("--call", self.finding["descriptor"])
        self.assertEqual(by_call["signature"], self.finding["signature"])
        by_case = self.replay(self.finding["repro_dir"], "--backend", PLANTED)
        self.assertEqual(by_case["signature"], self.finding["signature"])

    def test_a_corpus_input_holds_the_call(self):
        out = os.path.join(self.dir, "corpus")
        done = cvmcheck("corpus", "--target", "all", "--out", out, "--from-call",
                        self.finding["descriptor"])
        self.assertEqual(done.returncode, 0, done.stderr)
        path = done.stdout.strip()
        self.assertTrue(os.path.isfile(path))
        case = os.path.join(self.dir, "decoded")
        done = cvmcheck("repro", path, "--target", "all", "--out", case)
        self.assertTrue(os.path.isfile(os.path.join(case, "case.json")), done.stderr)
        self.assertEqual(self.replay(case, "--backend", PLANTED)["signature"],
                         self.finding["signature"])

    def test_bisect_subcommand_runs_the_program(self):
        done = cvmcheck("bisect", "--help")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("--repeat", done.stdout)

    def test_bisect_end_to_end_over_prebuilt_binaries(self):
        """Commits 0-2 "build" the real cvmcheck without the planted backend (a replay on it
        runs on the reference instead), commits 3-5 with it."""
        repo = os.path.join(self.dir, "repo")
        os.makedirs(repo)
        git = lambda *a: subprocess.run(["git", "-C", repo, *a], check=True,  # noqa: E731
                                        capture_output=True, text=True).stdout.strip()
        git("init", "-q")
        binaries = os.path.join(self.dir, "binaries")
        commits = []
        for i in range(6):
            with open(os.path.join(repo, "f"), "w") as f:
                f.write(str(i))
            git("add", "f")
            git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"commit {i}")
            commits.append(git("rev-parse", "HEAD"))
            os.makedirs(os.path.join(binaries, commits[-1]))
            wrapper = os.path.join(binaries, commits[-1], "cvmcheck")
            with open(wrapper, "w") as f:
                f.write(wrapper_script(planted=i >= 3))
            os.chmod(wrapper, 0o755)
        env = dict(os.environ, CVMCHECK_BINARY=CVMCHECK)
        done = subprocess.run(
            [CVMCHECK, "bisect", "max|" + PLANTED, "--store", self.store, "--repo", repo,
             "--bad", commits[5], "--binaries", binaries, "--json",
             "--workdir", os.path.join(self.dir, "work")], capture_output=True, text=True,
            env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        result = json.loads(done.stdout)
        self.assertEqual(result["introduced"]["commit"], commits[3])
        self.assertEqual(result["signature"], self.finding["signature"])


def wrapper_script(planted):
    if planted:
        return f"#!/bin/sh\nCVMCHECK_PLANTED={PLANTED} exec {CVMCHECK} \"$@\"\n"
    # Without the planted backend: the same call on the reference, which agrees with itself.
    return ("#!/bin/sh\nfor a in \"$@\"; do shift; "
            f"[ \"$a\" = {PLANTED} ] && a=reference; set -- \"$@\" \"$a\"; done\n"
            f"unset CVMCHECK_PLANTED; exec {CVMCHECK} \"$@\"\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        CVMCHECK = ENV["CVMCHECK_BINARY"] = os.path.abspath(sys.argv.pop(1))
    unittest.main()
